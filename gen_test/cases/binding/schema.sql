-- g3_order and g3_order_item are bound; g3_region is broadcast.
CREATE TABLE g3_order (
  order_id    BIGINT NOT NULL PRIMARY KEY,
  user_id     BIGINT NOT NULL,
  region_code CHAR(2) NULL,
  total       DECIMAL(10,2) NOT NULL
);

CREATE TABLE g3_order_item (
  item_id  BIGINT NOT NULL PRIMARY KEY,
  order_id BIGINT NOT NULL,
  user_id  BIGINT NOT NULL,
  sku      VARCHAR(32) NOT NULL,
  qty      INT NOT NULL
);

CREATE TABLE g3_region (
  code CHAR(2) NOT NULL PRIMARY KEY,
  name VARCHAR(64) NOT NULL
);

-- g7_order: 8 actual tables (ds_0..ds_3 x g7_order_0..1).
CREATE TABLE g7_order (
  order_id   BIGINT NOT NULL,
  user_id    BIGINT NOT NULL,
  status     VARCHAR(16) NULL,
  amount     DECIMAL(10,2) NULL,
  qty        INT NULL,
  rate       DOUBLE NULL,
  note       VARCHAR(32) NULL,
  created_at DATETIME NOT NULL,
  PRIMARY KEY (order_id)
);
-- g7_item: 8 actual tables, the table chosen from (user_id + item_id) % 2.
CREATE TABLE g7_item (
  item_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  sku     VARCHAR(16) NOT NULL,
  qty     INT NOT NULL,
  PRIMARY KEY (item_id)
);

-- Logic tables of the orders example. shardgen creates the actual tables
-- (t_order_0 ... t_order_3 on ds_0 and ds_1) from these definitions.
CREATE TABLE t_order (
  order_id   BIGINT NOT NULL,
  user_id    BIGINT NOT NULL,
  status     VARCHAR(32) NOT NULL,
  amount     DECIMAL(12,2) NOT NULL,
  note       VARCHAR(255) NULL,
  created_at DATETIME NOT NULL,
  PRIMARY KEY (order_id),
  KEY idx_user (user_id)
);

CREATE TABLE t_order_item (
  order_item_id BIGINT NOT NULL,
  order_id      BIGINT NOT NULL,
  user_id       BIGINT NOT NULL,
  sku           VARCHAR(64) NOT NULL,
  quantity      INT NOT NULL,
  price         DECIMAL(12,2) NOT NULL,
  PRIMARY KEY (order_item_id),
  KEY idx_order (order_id)
);

CREATE TABLE t_dict (
  code  VARCHAR(32) NOT NULL PRIMARY KEY,
  label VARCHAR(64) NOT NULL
);

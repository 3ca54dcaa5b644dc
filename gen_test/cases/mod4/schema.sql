-- g1_order: one logic table, 16 actual tables (ds_0..ds_3 x g1_order_0..3).
CREATE TABLE g1_order (
  order_id   BIGINT NOT NULL,
  user_id    BIGINT NOT NULL,
  status     VARCHAR(32) NOT NULL,
  amount     DECIMAL(12,2) NOT NULL,
  note       VARCHAR(255) NULL,
  created_at DATETIME NOT NULL,
  PRIMARY KEY (order_id),
  KEY idx_user (user_id)
);

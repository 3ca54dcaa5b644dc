CREATE TABLE t_order (
  order_id BIGINT NOT NULL PRIMARY KEY,
  user_id INT NOT NULL,
  status VARCHAR(20),
  amount DECIMAL(10,2),
  created DATETIME NULL
);
CREATE TABLE t_order_item (
  item_id BIGINT NOT NULL PRIMARY KEY,
  order_id BIGINT NOT NULL,
  user_id INT NOT NULL,
  sku VARCHAR(32) NOT NULL,
  qty SMALLINT NOT NULL
);
CREATE TABLE t_user (
  user_id BIGINT NOT NULL,
  name VARCHAR(64) NOT NULL,
  email VARCHAR(128),
  avatar BLOB,
  score TINYINT,
  PRIMARY KEY (user_id, name)
);
CREATE TABLE t_event (
  id BIGINT NOT NULL PRIMARY KEY,
  created DATETIME NOT NULL,
  payload JSON
);
CREATE TABLE t_dict (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(10) NOT NULL
);

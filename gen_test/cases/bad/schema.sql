CREATE TABLE g6_order (
  order_id BIGINT NOT NULL PRIMARY KEY,
  user_id  BIGINT NOT NULL,
  note     VARCHAR(64) NULL
);

CREATE TABLE g6_payment (
  payment_id BIGINT NOT NULL PRIMARY KEY,
  order_id   BIGINT NOT NULL,
  user_id    BIGINT NOT NULL,
  amount     DECIMAL(10,2) NOT NULL
);

CREATE TABLE g6_code (
  code  VARCHAR(8) NOT NULL PRIMARY KEY,
  label VARCHAR(32) NOT NULL
);

CREATE TABLE g6_secret (
  order_id BIGINT NOT NULL PRIMARY KEY,
  user_id  BIGINT NOT NULL,
  secret   VARCHAR(32) NULL
);

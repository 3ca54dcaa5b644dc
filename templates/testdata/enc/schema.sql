CREATE TABLE t_user (
  user_id BIGINT NOT NULL PRIMARY KEY,
  name VARCHAR(32) NOT NULL,
  phone_cipher VARCHAR(128),
  phone_md5 VARCHAR(64),
  phone_like VARCHAR(64),
  email_cipher VARCHAR(256) NOT NULL
);
CREATE TABLE t_user_plain (
  user_id BIGINT NOT NULL PRIMARY KEY,
  name VARCHAR(32) NOT NULL,
  phone VARCHAR(32),
  email VARCHAR(64) NOT NULL
);
CREATE TABLE t_card (
  card_id BIGINT NOT NULL PRIMARY KEY,
  user_id BIGINT NOT NULL,
  pan_plain VARCHAR(32),
  pan_cipher VARCHAR(128),
  pan_md5 VARCHAR(64)
);

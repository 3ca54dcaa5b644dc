-- sysbench's sbtest table (oltp_common.lua, MySQL flavour, without
-- AUTO_INCREMENT: the harness chooses every id).
CREATE TABLE sbtest (
  id  INT NOT NULL,
  k   INT NOT NULL DEFAULT 0,
  c   CHAR(120) NOT NULL DEFAULT '',
  pad CHAR(60) NOT NULL DEFAULT '',
  PRIMARY KEY (id),
  KEY k_1 (k)
);
-- sbtest with c encrypted (AES, see sharding.yaml): the encrypted-insert
-- scenario. AES/ECB/PKCS5 of 119 characters is 128 bytes, Base64 172.
CREATE TABLE sbtest_enc (
  id       INT NOT NULL,
  k        INT NOT NULL DEFAULT 0,
  c_cipher VARCHAR(256) NOT NULL DEFAULT '',
  pad      CHAR(60) NOT NULL DEFAULT '',
  PRIMARY KEY (id),
  KEY k_1 (k)
);

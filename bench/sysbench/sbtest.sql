-- sysbench 1.0.20's sbtest1 (oltp_common.lua, MySQL driver).
CREATE TABLE sbtest1 (
  id  INT NOT NULL AUTO_INCREMENT,
  k   INT NOT NULL DEFAULT 0,
  c   CHAR(120) NOT NULL DEFAULT '',
  pad CHAR(60) NOT NULL DEFAULT '',
  PRIMARY KEY (id),
  KEY k_1 (k)
);

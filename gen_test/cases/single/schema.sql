-- g5_account: sharded by data source only; g5_setting: single table.
CREATE TABLE g5_account (
  account_id  BIGINT NOT NULL PRIMARY KEY,
  owner       VARCHAR(64) NOT NULL,
  nickname    VARCHAR(64) NULL,
  balance     DECIMAL(14,4) NOT NULL,
  credits     BIGINT UNSIGNED NOT NULL,
  limit_cents BIGINT UNSIGNED NULL,
  opened_at   DATETIME NOT NULL,
  closed_at   DATETIME NULL,
  score       INT NULL,
  KEY idx_owner (owner)
);

CREATE TABLE g5_setting (
  name       VARCHAR(64) NOT NULL PRIMARY KEY,
  value      VARCHAR(255) NULL,
  version    INT UNSIGNED NOT NULL,
  updated_at DATETIME NULL
);

-- g4_event: MOD x BOUNDARY_RANGE; g4_metric: VOLUME_RANGE auto table;
-- g4_log: INTERVAL by month; g4_tag: HASH_MOD auto table with an
-- INVISIBLE column, which SELECT * and INSERT without a column list skip.
CREATE TABLE g4_event (
  event_id BIGINT NOT NULL PRIMARY KEY,
  user_id  BIGINT NOT NULL,
  kind     VARCHAR(16) NOT NULL
);

CREATE TABLE g4_metric (
  metric_id BIGINT NOT NULL PRIMARY KEY,
  reading   BIGINT NOT NULL,
  label     VARCHAR(32) NULL
);

CREATE TABLE g4_log (
  log_id    BIGINT NOT NULL,
  logged_at DATETIME NOT NULL,
  message   VARCHAR(200) NOT NULL,
  PRIMARY KEY (log_id, logged_at)
);

CREATE TABLE g4_tag (
  tag_id BIGINT NOT NULL PRIMARY KEY,
  name   VARCHAR(32) NOT NULL,
  hits   INT NOT NULL DEFAULT 0 INVISIBLE
);

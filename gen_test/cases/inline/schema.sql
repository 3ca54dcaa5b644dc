-- g2_note: INLINE on author_id and note_id; g2_user: INLINE on user_id; g2_tag: INLINE (hashCode) and HASH_MOD on
-- the VARCHAR name, compared byte for byte (utf8mb4_bin) as Java's
-- String.hashCode does.
CREATE TABLE g2_user (
  user_id BIGINT NOT NULL PRIMARY KEY,
  name    VARCHAR(64) NOT NULL,
  email   VARCHAR(128) NULL,
  score   INT NOT NULL
);

CREATE TABLE g2_tag (
  name   VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
  label  VARCHAR(64) NOT NULL,
  weight INT NULL
);

CREATE TABLE g2_note (
  note_id   BIGINT NOT NULL,
  author_id BIGINT NOT NULL,
  body      VARCHAR(200) NULL,
  PRIMARY KEY (author_id, note_id)
);

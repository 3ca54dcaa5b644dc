-- g12_note: in no rule, on the only logic data source (the group rw_ds).
CREATE TABLE g12_note (
  note_id BIGINT NOT NULL PRIMARY KEY,
  owner   VARCHAR(32) NOT NULL,
  body    VARCHAR(200) NULL
);

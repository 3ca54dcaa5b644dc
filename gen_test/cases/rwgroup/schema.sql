-- g12_note: in no rule, on the only logic data source (the group rw_ds).
CREATE TABLE g12_note (
  note_id BIGINT NOT NULL PRIMARY KEY,
  owner   VARCHAR(32) NOT NULL,
  body    VARCHAR(200) NULL
);

-- g12_role, g12_role_admin: one data node each, no sharding column.
CREATE TABLE g12_role (
  role_id BIGINT NOT NULL PRIMARY KEY,
  name    VARCHAR(32) NOT NULL
);

CREATE TABLE g12_role_admin (
  admin_id BIGINT NOT NULL PRIMARY KEY,
  role_id  BIGINT NOT NULL,
  owner    VARCHAR(32) NOT NULL
);

-- name: PutRole :exec
INSERT INTO g12_role (role_id, name) VALUES (?, ?);

-- name: PutRoleAdmin :exec
INSERT INTO g12_role_admin (admin_id, role_id, owner) VALUES (?, ?, ?);

-- name: RoleAdmins :many
-- RoleAdmins joins the two single-node tables with no sharding condition.
SELECT r.name, a.admin_id FROM g12_role r JOIN g12_role_admin a ON a.role_id = r.role_id WHERE r.role_id = ? ORDER BY a.admin_id;

-- name: AdminsPerRole :many
SELECT r.name, COUNT(a.admin_id) FROM g12_role r LEFT JOIN g12_role_admin a ON a.role_id = r.role_id GROUP BY r.name ORDER BY r.name;

-- name: AdminNotes :many
-- AdminNotes joins a single-node sharding table with the table in no rule
-- on the same data source.
SELECT a.admin_id, n.note_id FROM g12_role_admin a JOIN g12_note n ON n.owner = a.owner WHERE a.role_id = ? ORDER BY a.admin_id, n.note_id;

-- name: RenameRole :execrows
UPDATE g12_role SET name = ? WHERE role_id = ?;

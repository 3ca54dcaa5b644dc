-- name: PutSetting :execrows
INSERT INTO g5_setting (name, value, version, updated_at) VALUES (?, ?, ?, ?)
ON DUPLICATE KEY UPDATE value = VALUES(value), version = version + 1;

-- name: GetSetting :one
SELECT * FROM g5_setting WHERE name = ?;

-- name: ListSettings :many
SELECT name, value, version FROM g5_setting WHERE version >= ? ORDER BY name;

-- name: DeleteSetting :execrows
DELETE FROM g5_setting WHERE name = ?;

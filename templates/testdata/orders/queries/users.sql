-- name: GetUser :one
SELECT * FROM t_user WHERE user_id = ? AND name = ?;

-- name: UpsertUser :execresult
INSERT INTO t_user (user_id, name, email, avatar, score) VALUES (?, ?, ?, ?, ?);

-- name: GetEvent :one
SELECT * FROM t_event WHERE created = ? AND id = ?;

-- name: EventsBetween :many
SELECT id, payload FROM t_event WHERE created >= ? AND created < ? AND id = ?;

-- name: AddDict :execrows
INSERT INTO t_dict (id, name) VALUES (?, ?);

-- name: GetDict :one
SELECT name FROM t_dict WHERE id = ?;

-- name: ListDict :many
SELECT id, name FROM t_dict;

-- name: TouchDict :exec
-- TouchDict writes every copy of the broadcast table and reports nothing.
UPDATE t_dict SET name = ? WHERE id = ?;

-- name: AddLog :execrows
INSERT INTO t_log (tenant, msg) VALUES (?, ?);

-- name: LogsOf :many
SELECT id, msg FROM t_log WHERE tenant = ?;

-- name: GetAudit :one
SELECT * FROM t_audit WHERE user_id = ? AND id = ?;

-- name: AuditByID :many
SELECT action FROM t_audit WHERE id = ? AND user_id IN (?, ?, ?);

-- name: GetKV :one
SELECT * FROM t_kv WHERE q = ? AND t = ?;

-- name: PutKV :exec
INSERT INTO t_kv (q, t, ds, `key`, `time`) VALUES (?, ?, ?, ?, ?);

-- name: PurgeKV :execresult
-- shardgen:allow-full-route
DELETE FROM t_kv WHERE `time` < ?;

-- name: NewSession :execresult
INSERT INTO t_session (user_id, data) VALUES (?, ?);

-- name: GetConfig :one
SELECT value FROM t_config WHERE name = ?;

-- name: SetConfig :exec
UPDATE t_config SET value = ? WHERE name = ?;

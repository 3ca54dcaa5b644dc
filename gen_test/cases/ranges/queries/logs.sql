-- name: PutLog :exec
INSERT INTO g4_log (log_id, logged_at, message) VALUES (?, ?, ?);

-- name: GetLog :one
SELECT log_id, logged_at, message FROM g4_log WHERE logged_at = ? AND log_id = ?;

-- name: LogsBetween :many
SELECT log_id, logged_at, message FROM g4_log WHERE logged_at BETWEEN ? AND ?;

-- name: LogsBefore :many
SELECT log_id, logged_at FROM g4_log WHERE logged_at < ?;

-- name: PutDict :execrows
INSERT INTO t_dict (code, label) VALUES (?, ?) ON DUPLICATE KEY UPDATE label = VALUES(label);

-- name: GetDict :one
SELECT code, label FROM t_dict WHERE code = ?;

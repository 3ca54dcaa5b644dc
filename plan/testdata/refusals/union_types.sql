-- name: Mixed :many
SELECT order_id FROM t_order WHERE user_id = ? AND order_id = ?
UNION ALL
SELECT status FROM t_order WHERE user_id = ? AND order_id = ?;

-- name: ByPosition :many
SELECT order_id, status
FROM t_order
WHERE user_id IN (?, ?)
ORDER BY 3;

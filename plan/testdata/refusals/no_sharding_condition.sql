-- name: OrdersByStatus :many
SELECT order_id, status
FROM t_order
WHERE status = ?
ORDER BY order_id;

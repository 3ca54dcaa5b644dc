-- name: ByLength :many
SELECT order_id
FROM t_order
WHERE user_id IN (?, ?)
ORDER BY UPPER(LENGTH(status));

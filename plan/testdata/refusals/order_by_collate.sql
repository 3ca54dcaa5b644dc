-- name: ByLabel :many
SELECT order_id
FROM t_order
WHERE user_id IN (?, ?)
ORDER BY CONCAT(status, 'x') COLLATE utf8mb4_bin;

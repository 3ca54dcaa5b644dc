-- name: Into :many
SELECT order_id
FROM t_order
WHERE user_id = ? AND order_id = ?
INTO @x;

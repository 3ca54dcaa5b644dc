-- name: Nothing :one
SELECT order_id
FROM t_order
WHERE user_id = NULL AND order_id = 1;

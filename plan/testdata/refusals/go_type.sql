-- name: Now :one
SELECT order_id,
  NOW()
FROM t_order
WHERE user_id = ? AND order_id = ?;

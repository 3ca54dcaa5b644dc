-- name: FromCTE :many
WITH o AS (
  SELECT order_id FROM t_order WHERE user_id IN (?, ?)
)
SELECT order_id
FROM o
WHERE order_id > ?;

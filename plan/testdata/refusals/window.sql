-- name: RankedOrders :many
SELECT order_id,
  CAST(ROW_NUMBER() OVER (ORDER BY amount) AS SIGNED) AS rn
FROM t_order
WHERE user_id IN (?, ?);

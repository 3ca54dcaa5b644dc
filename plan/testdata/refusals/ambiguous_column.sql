-- name: Ambiguous :many
SELECT o.order_id,
  user_id
FROM t_order o JOIN t_order_item i ON i.user_id = o.user_id AND i.order_id = o.order_id
WHERE o.user_id = ? AND o.order_id = ?;

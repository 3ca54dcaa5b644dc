-- name: FromCTE :many
-- a comment line
WITH o AS (SELECT order_id FROM t_order WHERE user_id = ? AND order_id = ?)
SELECT a.order_id FROM o AS a JOIN o AS b ON a.order_id = b.order_id;

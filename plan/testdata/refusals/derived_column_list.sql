-- name: Renamed :many
SELECT a
FROM (SELECT order_id FROM t_order WHERE user_id = ? AND order_id = ?) AS d (a);

-- name: GetOrder :one
SELECT * FROM t_order WHERE order_id = ?;

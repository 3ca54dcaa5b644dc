-- name: AddOrder :exec
INSERT INTO g20_orders (order_id, user_id, status) VALUES (?, ?, ?);

-- name: GetOrder :one
SELECT * FROM g20_orders WHERE user_id = ? AND order_id = ?;

-- name: ListOrders :many
SELECT * FROM g20_orders WHERE user_id = ? ORDER BY order_id;

-- name: ListOrdersOf :many
SELECT order_id, user_id FROM g20_orders WHERE user_id IN (?, ?);

-- name: CountOrders :one
SELECT COUNT(*) AS n FROM g20_orders WHERE user_id = ?;

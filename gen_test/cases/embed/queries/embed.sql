-- name: AddUser :exec
INSERT INTO g41_user (user_id, name, city_id) VALUES (?, ?, ?);

-- name: AddOrder :exec
INSERT INTO g41_order (order_id, user_id, amount) VALUES (?, ?, ?);

-- name: AddCity :exec
INSERT INTO g41_city (city_id, name) VALUES (?, ?);

-- name: GetUserWithCity :one
SELECT sqlc.embed(u), sqlc.embed(c), u.name AS user_name FROM g41_user u JOIN g41_city c ON c.city_id = u.city_id WHERE u.user_id = ?;

-- name: OrdersOfUser :many
SELECT sqlc.embed(o), sqlc.embed(u) FROM g41_order o JOIN g41_user u ON u.user_id = o.user_id WHERE o.user_id = ? ORDER BY o.order_id;

-- name: OrdersOfUsers :many
SELECT CAST(o.amount * 2 AS SIGNED) AS twice, sqlc.embed(o) FROM g41_order o WHERE o.user_id IN (sqlc.slice(user_ids)) ORDER BY o.order_id;

-- name: BigOrders :many
-- shardgen:allow-full-route
SELECT sqlc.embed(g41_order) FROM g41_order WHERE amount > ? ORDER BY amount DESC, order_id LIMIT ?;

-- name: TopOrders :many
-- TopOrders pages through the orders of two users, the largest amount first.
SELECT order_id, user_id, status, amount FROM t_order
WHERE user_id IN (?, ?) ORDER BY amount DESC, order_id LIMIT ?, ?;

-- name: FirstStatuses :many
-- shardgen:allow-full-route
SELECT DISTINCT status FROM t_order ORDER BY status LIMIT 1, 2;

-- name: StatusStats :many
-- shardgen:allow-full-route
SELECT status, COUNT(*) AS orders, AVG(amount) AS avg_amount, COUNT(DISTINCT user_id) AS users
FROM t_order GROUP BY status ORDER BY status;

-- name: OrderTotals :one
-- shardgen:allow-full-route
SELECT COUNT(*) AS orders, SUM(amount) AS total, MIN(created) AS first_created, MAX(order_id) AS last_id
FROM t_order;

-- name: AddOrders :execresult
-- AddOrders inserts three orders; each gets its own snowflake key and goes
-- to its own data node.
INSERT INTO t_order (user_id, status, amount, created)
VALUES (?, ?, ?, ?), (?, 'new', ?, NULL), (7, ?, ?, ?);

-- name: AddUsers :execrows
INSERT INTO t_user (user_id, name, email) VALUES (?, ?, ?), (?, ?, ?)
ON DUPLICATE KEY UPDATE email = ?;

-- name: AddEvents :exec
INSERT INTO t_event (id, created, payload) VALUES (?, ?, ?), (?, ?, ?);

-- name: LatestOrder :one
-- LatestOrder returns the newest order of two users as the model row.
SELECT order_id, user_id, status, amount, created FROM t_order
WHERE user_id IN (?, ?) ORDER BY order_id DESC LIMIT 1;

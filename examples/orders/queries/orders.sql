-- name: CreateOrder :execresult
-- CreateOrder inserts an order; its order_id comes from the snowflake key
-- generator and is the result's LastInsertId.
INSERT INTO t_order (user_id, status, amount, note, created_at)
VALUES (?, ?, ?, ?, ?);

-- name: GetOrder :one
SELECT * FROM t_order WHERE user_id = ? AND order_id = ?;

-- name: ListUserOrders :many
-- ListUserOrders reads the four tables of the user's data source.
SELECT order_id, status, amount FROM t_order WHERE user_id = sqlc.arg(user_id);

-- name: GetOrders :many
SELECT order_id, user_id, status FROM t_order
WHERE user_id = ? AND order_id IN (?, ?, ?);

-- name: UpdateOrderStatus :execrows
UPDATE t_order SET status = sqlc.arg(status)
WHERE user_id = sqlc.arg(user_id) AND order_id = sqlc.arg(order_id);

-- name: DeleteOrder :exec
DELETE FROM t_order WHERE user_id = ? AND order_id = ?;

-- name: CountOrdersOfUser :one
-- Routes to one data node only when both sharding values are given.
SELECT COUNT(*) AS orders FROM t_order WHERE user_id = ? AND order_id = ?;

-- name: ListAllOrdersForAudit :many
-- shardgen:allow-full-route
SELECT order_id, user_id, amount FROM t_order WHERE amount > ?;

-- name: ListRecentOrders :many
-- ListRecentOrders returns a user's newest orders: the four tables of the
-- user's data source each return their newest n, and the merge keeps the
-- newest n of those.
SELECT order_id, status, amount, created_at FROM t_order
WHERE user_id = sqlc.arg(user_id) ORDER BY created_at DESC, order_id DESC LIMIT sqlc.arg(how_many);

-- name: CountOrdersByStatus :many
-- shardgen:allow-full-route
-- CountOrdersByStatus counts and sums the orders of every status over all
-- data nodes; the groups of the nodes are merged.
SELECT status, COUNT(*) AS orders, SUM(amount) AS total FROM t_order
GROUP BY status ORDER BY status;

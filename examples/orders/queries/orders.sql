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

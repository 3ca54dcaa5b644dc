-- name: CreateOrder :execresult
-- CreateOrder inserts an order; order_id comes from the snowflake generator.
INSERT INTO g1_order (user_id, status, amount, note, created_at)
VALUES (?, ?, ?, ?, ?);

-- name: PutOrder :exec
-- PutOrder inserts an order with a caller-chosen order_id.
INSERT INTO g1_order (order_id, user_id, status, amount, note, created_at)
VALUES (?, ?, ?, ?, ?, ?);

-- name: GetOrder :one
SELECT * FROM g1_order WHERE user_id = ? AND order_id = ?;

-- name: GetOrderSorted :many
-- One data node, so ORDER BY needs no merge.
SELECT order_id, status, amount FROM g1_order
WHERE order_id = ? AND user_id = ? ORDER BY amount DESC, order_id;

-- name: ListUserOrders :many
-- Four tables of one data source.
SELECT order_id, status, note FROM g1_order WHERE user_id = ?;

-- name: ListOrdersIn :many
SELECT order_id, user_id, status, amount FROM g1_order
WHERE user_id IN (?, ?) AND order_id IN (?, ?, ?);

-- name: ListOrdersByID :many
-- Only the table sharding column: one table on every data source.
SELECT order_id, user_id, created_at FROM g1_order WHERE order_id = ?;

-- name: ListUserTwoLiteral :many
-- A literal sharding value: the data source is fixed at generate time.
SELECT order_id, amount FROM g1_order WHERE user_id = 2;

-- name: UpdateOrderStatus :execrows
UPDATE g1_order SET status = sqlc.arg(status)
WHERE user_id = sqlc.arg(user_id) AND order_id = sqlc.arg(order_id);

-- name: UpdateUserStatus :execrows
UPDATE g1_order SET status = ? WHERE user_id = ? AND status = ?;

-- name: DeleteOrder :execrows
DELETE FROM g1_order WHERE user_id = ? AND order_id = ?;

-- name: DeleteCheapOrders :execrows
DELETE FROM g1_order WHERE user_id IN (?, ?) AND amount < ?;

-- name: ListUserOrdersBelow :many
-- An upper bound only on the MOD table column: every table of the data
-- source (ShardingSphere's MOD fails on such a range).
SELECT order_id, status FROM g1_order WHERE user_id = ? AND order_id < ?;

-- name: AmountSpread :one
-- STDDEV and VARIANCE on one data node: DOUBLE, NULL over no rows.
SELECT STDDEV_SAMP(amount) AS spread, VARIANCE(amount) AS v FROM g1_order WHERE user_id = ? AND order_id = ?;

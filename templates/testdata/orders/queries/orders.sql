-- name: GetOrder :one
-- GetOrder returns one order by its sharding keys.
SELECT * FROM t_order WHERE user_id = ? AND order_id = ?;

-- name: ListUserOrders :many
SELECT order_id, status FROM t_order WHERE user_id = sqlc.arg(user_id) AND order_id = sqlc.arg(order_id);

-- name: FindOrders :many
SELECT order_id, status FROM t_order WHERE user_id IN (?, ?) AND order_id = ?;

-- name: FindOrder :one
SELECT * FROM t_order WHERE order_id = ? AND user_id IN (?, ?);

-- name: CreateOrder :execresult
INSERT INTO t_order (user_id, status, amount, created) VALUES (?, ?, ?, ?);

-- name: UpdateStatus :execrows
UPDATE t_order SET status = ? WHERE user_id = ? AND order_id = ?;

-- name: DeleteOrders :exec
DELETE FROM t_order WHERE user_id = ? AND order_id IN (?, ?);

-- name: CountAll :many
-- shardgen:allow-full-route
SELECT order_id FROM t_order WHERE status = ?;

-- name: GetFixedOrder :one
SELECT status FROM t_order WHERE user_id = 3 AND order_id = 5;

-- name: OrderItems :many
SELECT i.item_id, i.sku, o.status FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id WHERE o.user_id = ? AND o.order_id = ?;

-- name: OrderByUserLiteral :one
SELECT status FROM t_order WHERE user_id = 7 AND order_id = ?;

-- name: InsertOrderFull :exec
INSERT INTO t_order (order_id, user_id, status, amount, created) VALUES (?, ?, ?, ?, ?);

-- name: CopyOrders :copyfrom
INSERT INTO t_order (user_id, status, amount, created) VALUES (?, ?, ?, ?);

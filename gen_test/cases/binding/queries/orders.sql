-- name: PutOrder :exec
INSERT INTO g3_order (order_id, user_id, region_code, total) VALUES (?, ?, ?, ?);

-- name: CreateOrder :execresult
INSERT INTO g3_order (user_id, region_code, total) VALUES (?, ?, ?);

-- name: AddItem :execresult
INSERT INTO g3_order_item (order_id, user_id, sku, qty) VALUES (?, ?, ?, ?);

-- name: GetOrderItems :many
-- Bound tables joined on one data node.
SELECT o.order_id, o.total, i.item_id, i.sku, i.qty
FROM g3_order o JOIN g3_order_item i ON i.order_id = o.order_id AND i.user_id = o.user_id
WHERE o.user_id = ? AND o.order_id = ?
ORDER BY i.sku, i.item_id;

-- name: ListUserItems :many
-- Bound tables joined table by table on the user's data source.
SELECT o.order_id, i.sku, i.qty
FROM g3_order o JOIN g3_order_item i ON i.order_id = o.order_id AND i.user_id = o.user_id
WHERE o.user_id = ?;

-- name: ListOrdersItemsIn :many
SELECT o.order_id, i.item_id, i.qty
FROM g3_order o JOIN g3_order_item i ON i.order_id = o.order_id AND i.user_id = o.user_id
WHERE o.user_id IN (?, ?) AND o.order_id IN (?, ?);

-- name: ListUserOrdersWithRegion :many
-- A sharded table joined with a broadcast table: runs where the order is.
SELECT o.order_id, o.region_code, r.name
FROM g3_order o LEFT JOIN g3_region r ON r.code = o.region_code
WHERE o.user_id = ?;

-- name: GetOrderRegion :one
SELECT r.name AS region_name, o.total
FROM g3_order o JOIN g3_region r ON r.code = o.region_code
WHERE o.user_id = ? AND o.order_id = ?;

-- name: MoveItems :execrows
UPDATE g3_order_item SET qty = qty * 2 WHERE user_id = ? AND order_id = ?;

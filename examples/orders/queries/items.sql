-- name: AddItem :exec
INSERT INTO t_order_item (order_id, user_id, sku, quantity, price) VALUES (?, ?, ?, ?, ?);

-- name: AddItems :execrows
-- AddItems adds two items in one statement; each gets its own snowflake
-- order_item_id and goes to the data node of its order.
INSERT INTO t_order_item (order_id, user_id, sku, quantity, price)
VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?);

-- name: ListOrderItems :many
-- ListOrderItems joins an order with its items on the one data node that
-- holds both (t_order and t_order_item are bound).
SELECT i.order_item_id, i.sku, i.quantity, i.price, o.status
FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id
WHERE o.user_id = ? AND o.order_id = ?;

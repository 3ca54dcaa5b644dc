-- name: OrdersByText :many
-- Sharding values written as other types than their BIGINT columns: MySQL
-- compares them as the integers, and so does the route (issue 12 §2):
-- '1' is user 1, 1.0 / '6' / 11e0 orders 1, 6 and 11; 16.5 matches no row.
SELECT order_id, user_id, status FROM g7_order
WHERE user_id = '1' AND order_id IN (1.0, '6', 11e0, 16.5);

-- name: OrdersMixedText :many
-- Parameters and converted literals in one IN list: the literals are the
-- integers in the generated route (HASH_MOD hashes them as integers).
SELECT order_id, status FROM g7_order
WHERE user_id IN (?, 2.0) AND order_id IN (?, '7', 0x0c);

-- name: OrderBinary :many
-- BINARY col = ? takes the column's type and routes by the value.
SELECT order_id, status FROM g7_order WHERE BINARY user_id = ? AND BINARY order_id = ?;

-- name: PutOrderText :exec
-- The row lands where the server stores '3' (user 3), as the integer 3.
INSERT INTO g7_order (order_id, user_id, status, created_at) VALUES (?, '3', 'T', '2026-12-24 00:00:00');

-- name: PutOrderLiterals :exec
-- 901.0 and 4e0 are stored as 901 and 4: the row is where 901 and 4 route.
INSERT INTO g7_order (order_id, user_id, status, created_at) VALUES (901.0, 4e0, 'L', '20261224');

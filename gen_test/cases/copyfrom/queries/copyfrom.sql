-- name: CopyOrders :copyfrom
INSERT INTO g43_order (order_id, user_id, status, amount) VALUES (?, ?, ?, ?);

-- name: CopyNewOrders :copyfrom
-- CopyNewOrders inserts orders with the status NEW.
INSERT INTO g43_order (user_id, order_id, amount, status) VALUES (?, ?, ?, 'NEW');

-- name: CopyItems :copyfrom
INSERT IGNORE INTO g43_item (code, name) VALUES (?, ?);

-- name: CopyLogs :copyfrom
INSERT INTO g43_log (id, msg) VALUES (?, ?) ON DUPLICATE KEY UPDATE msg = VALUES(msg);

-- name: ListOrders :many
-- shardgen:allow-full-route
SELECT * FROM g43_order ORDER BY order_id;

-- name: ListItems :many
-- shardgen:allow-full-route
SELECT * FROM g43_item ORDER BY code;

-- name: ListLogs :many
SELECT * FROM g43_log ORDER BY id;

-- name: CopyDict :copyfrom
-- CopyDict inserts dictionary entries into every copy of g43_dict.
INSERT INTO g43_dict (id, name) VALUES (?, ?);

-- name: CopyNewDict :copyfrom
INSERT IGNORE INTO g43_dict (id, name) VALUES (?, ?);

-- name: ListDict :many
SELECT * FROM g43_dict ORDER BY id;

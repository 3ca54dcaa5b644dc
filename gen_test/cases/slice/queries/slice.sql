-- name: AddOrder :exec
INSERT INTO g40_order (order_id, user_id, status, amount) VALUES (?, ?, ?, ?);

-- name: ListOrdersOfUsers :many
-- Each user's orders are on the two tables of its data source.
SELECT * FROM g40_order WHERE user_id IN (sqlc.slice(user_ids)) ORDER BY order_id;

-- name: FindOrders :many
-- Each order_id picks its table; the statuses before and after the list.
SELECT order_id, status FROM g40_order
WHERE status <> sqlc.arg(not_status) AND user_id = sqlc.arg(user_id) AND order_id IN (sqlc.slice(order_ids)) AND amount >= sqlc.arg(min_amount)
ORDER BY order_id;

-- name: GetIfStatus :one
SELECT order_id, amount FROM g40_order WHERE user_id = ? AND order_id = ? AND status IN (sqlc.slice(statuses));

-- name: ListOfUserByStatus :many
SELECT order_id FROM g40_order WHERE user_id = ? AND status IN (sqlc.slice(statuses)) ORDER BY order_id;

-- name: CountByStatus :one
-- shardgen:allow-full-route
SELECT COUNT(*) AS n, SUM(amount) AS total FROM g40_order WHERE status IN (sqlc.slice(statuses));

-- name: CountOfUsers :one
SELECT COUNT(*) AS n FROM g40_order WHERE user_id IN (sqlc.slice(user_ids));

-- name: TopOrdersOfUsers :many
SELECT order_id, user_id FROM g40_order WHERE user_id IN (sqlc.slice(user_ids)) ORDER BY amount DESC, order_id LIMIT ?;

-- name: SetStatus :execrows
UPDATE g40_order SET status = ? WHERE order_id IN (sqlc.slice(order_ids)) AND user_id = ?;

-- name: TouchOrders :exec
UPDATE g40_order SET amount = amount + 1 WHERE user_id = ? AND order_id IN (sqlc.slice(order_ids));

-- name: DeleteOfUsers :execresult
DELETE FROM g40_order WHERE user_id IN (sqlc.slice(user_ids)) AND amount > ?;

-- name: AddItem :exec
INSERT INTO g40_item (code, name) VALUES (?, ?);

-- name: ListItems :many
SELECT * FROM g40_item WHERE code IN (sqlc.slice(codes)) ORDER BY code;

-- name: AddDict :exec
INSERT INTO g40_dict (id, name) VALUES (?, ?);

-- name: ListDicts :many
SELECT * FROM g40_dict WHERE id IN (sqlc.slice(ids)) ORDER BY id;

-- name: DeleteDicts :execrows
DELETE FROM g40_dict WHERE id IN (sqlc.slice(ids));

-- name: RenameLastItems :execrows
-- shardgen:allow-full-route
-- UPDATE … ORDER BY … LIMIT over several data nodes on a text key: the
-- keys selected in order, then each data node's write gets only the keys
-- HASH_MOD puts there (a string's Java hashCode).
UPDATE g40_item SET name = ? WHERE name <> ? ORDER BY code DESC LIMIT 3;

-- name: DeleteFirstItems :execrows
-- shardgen:allow-full-route
DELETE FROM g40_item ORDER BY name, code LIMIT 2;

-- name: AddLine :exec
INSERT INTO g40_line (order_id, tag, qty, note) VALUES (?, ?, sqlc.narg(qty), ?);

-- name: BumpLines :execrows
-- shardgen:allow-full-route
-- UPDATE … ORDER BY … LIMIT ? over several data nodes on a primary key of
-- two columns (order_id, tag): NULL quantities last, ties broken by the
-- whole key; each data node's write gets only the keys of its order_id.
UPDATE g40_line SET qty = qty + 1, note = ? WHERE note <> ? ORDER BY qty DESC, order_id, tag LIMIT ?;

-- name: DeleteLastLines :execrows
-- shardgen:allow-full-route
-- DELETE … ORDER BY … LIMIT over several data nodes ordered by the key's
-- latin1 text part (latin1_swedish_ci) first.
DELETE FROM g40_line WHERE order_id > ? ORDER BY tag DESC, order_id DESC LIMIT 3;

-- name: ListLines :many
-- shardgen:allow-full-route
SELECT order_id, tag, qty, note FROM g40_line ORDER BY order_id, tag;

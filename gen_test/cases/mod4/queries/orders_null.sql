-- NULL sharding values (sqlc.narg): in a WHERE, NULL equals nothing, as in
-- MySQL, so a NULL drops out of an IN list and a condition left with no
-- value reaches no data node; <=> matches NULL and is no sharding condition.

-- name: ListOrdersNargIn :many
SELECT order_id, user_id, status FROM g1_order
WHERE user_id IN (sqlc.narg(a), sqlc.narg(b)) ORDER BY order_id;

-- name: ListOrdersNargOr :many
SELECT order_id FROM g1_order
WHERE user_id = sqlc.narg(a) OR (user_id = sqlc.narg(b) AND order_id = sqlc.arg(order_id)) ORDER BY order_id;

-- name: GetOrderNarg :one
SELECT order_id, status FROM g1_order WHERE user_id = sqlc.narg(user_id) AND order_id = sqlc.arg(order_id);

-- name: ListOrdersNarg :many
SELECT order_id, status FROM g1_order WHERE user_id = sqlc.narg(user_id) AND order_id = sqlc.arg(order_id);

-- name: CountOrdersNullSafe :one
-- shardgen:allow-full-route
SELECT COUNT(*) AS n FROM g1_order WHERE user_id <=> sqlc.narg(user_id);

-- name: TouchOrdersNargIn :execrows
UPDATE g1_order SET note = 'touched' WHERE user_id IN (sqlc.narg(a), sqlc.narg(b));

-- name: TouchOrderNarg :execrows
UPDATE g1_order SET note = 'one' WHERE user_id = sqlc.narg(user_id) AND order_id = sqlc.arg(order_id);

-- name: DeleteOrderNarg :exec
DELETE FROM g1_order WHERE user_id = sqlc.narg(user_id) AND order_id = sqlc.arg(order_id);

-- name: PutOrderNarg :exec
INSERT INTO g1_order (order_id, user_id, status, amount, note, created_at)
VALUES (sqlc.arg(order_id), sqlc.narg(user_id), 'NARG', '1.00', NULL, '2026-11-05 00:00:00');

-- name: GetOrder :one
SELECT order_id, note FROM g6_order WHERE user_id = ? AND order_id = ?;

-- name: UnknownTable :many
-- expect: unknown table "g6_missing"
SELECT id FROM g6_missing WHERE id = ?;

-- name: UnknownColumn :one
-- expect: no_such_column
SELECT no_such_column FROM g6_order WHERE user_id = ? AND order_id = ?;

-- name: ParserRejects :exec
-- expect: syntax error
UPDATE g6_order SET note = WHERE user_id = ?;

-- name: GetOrder :one
-- expect: duplicate query name "GetOrder"
SELECT order_id FROM g6_order WHERE user_id = ? AND order_id = ?;

-- name: UnboundJoin :many
-- expect: not bound
-- (evaluated in steps across data nodes but for its LIMIT ?, which a
-- grouped join's steps do not take from a parameter)
SELECT o.order_id, COUNT(*) AS n
FROM g6_order o JOIN g6_payment p ON p.order_id = o.order_id
WHERE o.user_id = ? AND o.order_id = ? GROUP BY o.order_id ORDER BY o.order_id LIMIT ?;

-- name: FullRoute :many
-- expect: no sharding condition on table "g6_payment"
SELECT payment_id FROM g6_payment WHERE amount > ?;

-- name: GetCode :one
SELECT code, label FROM g6_code WHERE code = ?;

-- name: EmbedAcrossNodes :many
-- expect: sqlc.embed(o) is not supported in a statement evaluated across data nodes (steps) yet
SELECT sqlc.embed(o), p.amount FROM g6_order o JOIN g6_payment p ON p.order_id = o.order_id;

-- name: FederatedUnion :many
-- expect: it is evaluated only over temporary tables (SQL federation), which the proxy runs and generated code does not: the statement cannot be evaluated in steps across data nodes: column 1 of the UNION has different types in its SELECTs
SELECT note FROM g6_order WHERE user_id IN (1, 2) UNION ALL SELECT amount FROM g6_payment WHERE user_id IN (1, 2);

-- name: JoinMaxText :many
-- expect: max(o.note) of text compared by its collation's WEIGHT_STRING over the rows of a join across data nodes is not evaluated
SELECT p.amount, MAX(o.note) AS mx FROM g6_order o JOIN g6_payment p ON p.order_id = o.order_id WHERE o.user_id IN (1, 2) GROUP BY p.amount;

-- name: EncryptedInSubquery :many
-- shardgen:allow-full-route
-- expect: the subquery compares an encrypted column with a value, which generated code does not encrypt in a step across data nodes yet
SELECT payment_id FROM g6_payment WHERE user_id IN (SELECT user_id FROM g6_secret WHERE secret = ?);

-- name: ScalarOfUnknownText :many
-- expect: the generator binds text of a column of a character set and collation the DDL names, not note; CONVERT(… USING charset) it
SELECT payment_id, (SELECT note FROM g6_order WHERE order_id = 5) AS n FROM g6_payment WHERE user_id IN (1, 2);

-- name: ScalarOfExpression :many
-- expect: the generator cannot tell the exact type of its column max(amount) * 2 to bind its value as; give it a CAST(… AS type)
SELECT order_id FROM g6_order WHERE user_id IN (1, 2) AND order_id > (SELECT MAX(amount) * 2 FROM g6_payment WHERE user_id = 3);

-- name: UpdateNotTotal :exec
-- shardgen:allow-full-route
-- expect: the ORDER BY must include every column of the primary key (order_id)
UPDATE g6_order SET note = ? ORDER BY note LIMIT 2;

-- name: DeleteLimitExpr :execrows
-- shardgen:allow-full-route
-- expect: LIMIT 1 + 1 must be an integer literal or a parameter
DELETE FROM g6_order ORDER BY order_id LIMIT 1 + 1;

-- name: MoveOrders :exec
-- shardgen:allow-full-route
-- expect: sets sharding column
UPDATE g6_order SET user_id = ? ORDER BY order_id LIMIT 1;

-- name: LimitedResult :execresult
-- shardgen:allow-full-route
-- expect: use :execrows or :exec
UPDATE g6_order SET note = 'x' ORDER BY order_id LIMIT 1;

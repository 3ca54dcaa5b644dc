-- name: PutOrders :execrows
-- PutOrders writes two orders with caller-chosen ids, each to its own data
-- node; an existing id gets the last argument as its status.
INSERT INTO g7_order (order_id, user_id, status, amount, qty, rate, note, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?)
ON DUPLICATE KEY UPDATE status = ?;

-- name: AddOrders :execresult
-- AddOrders inserts three orders, each with its own snowflake order_id;
-- LastInsertId is the first one.
INSERT INTO g7_order (user_id, status, amount, qty, rate, note, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?), (?, 'NEW', ?, NULL, NULL, NULL, ?);

-- name: TopOrders :many
-- ORDER BY + LIMIT ?, ? over the data sources of three users.
SELECT order_id, user_id, status, amount FROM g7_order
WHERE user_id IN (?, ?, ?) ORDER BY amount DESC, order_id LIMIT ?, ?;

-- name: FirstOrders :many
-- ORDER BY + LIMIT ? (no offset): every node returns its first n rows.
SELECT order_id, note, rate FROM g7_order
WHERE user_id IN (?, ?) ORDER BY note, order_id DESC LIMIT ?;

-- name: PageAll :many
-- shardgen:allow-full-route
-- ORDER BY + literal LIMIT offset, count over every data node.
SELECT order_id, user_id, created_at FROM g7_order
ORDER BY created_at DESC, order_id LIMIT 3, 5;

-- name: SkipThenTake :many
-- shardgen:allow-full-route
-- A literal offset with a ? count: the nodes get LIMIT 2 + count.
SELECT order_id, qty FROM g7_order ORDER BY qty, order_id LIMIT 2, ?;

-- name: StatsByStatus :many
-- shardgen:allow-full-route
-- GROUP BY with every aggregate, merged in memory.
SELECT status, COUNT(*) AS n, COUNT(amount) AS n_amount, SUM(amount) AS total,
       MIN(amount) AS lo, MAX(amount) AS hi, AVG(amount) AS avg_amount,
       SUM(qty) AS qty, AVG(qty) AS avg_qty, SUM(rate) AS rate, AVG(rate) AS avg_rate,
       MIN(created_at) AS first_at, MAX(note) AS last_note
FROM g7_order WHERE created_at >= ? GROUP BY status;

-- name: StatsByUser :many
-- shardgen:allow-full-route
-- GROUP BY = ORDER BY with COUNT/SUM/AVG(DISTINCT).
SELECT user_id, COUNT(DISTINCT status) AS statuses, SUM(DISTINCT qty) AS qtys,
       AVG(DISTINCT amount) AS avg_amount, COUNT(*) AS n
FROM g7_order WHERE created_at >= ? GROUP BY user_id ORDER BY user_id;

-- name: StatusBits :many
-- shardgen:allow-full-route
-- COUNT(DISTINCT a, b) (tuples distinct across data nodes, none with a
-- NULL counted) and BIT_AND / BIT_OR / BIT_XOR merged per group, HAVING
-- over them; no group at all gives no row.
SELECT status, COUNT(DISTINCT user_id, qty) AS pairs, BIT_AND(qty) AS qty_and,
       BIT_OR(order_id) AS id_or, BIT_XOR(order_id) AS id_xor
FROM g7_order WHERE created_at >= ? GROUP BY status
HAVING BIT_OR(order_id) > ? ORDER BY status;

-- name: CountBits :one
-- shardgen:allow-full-route
-- Scalar COUNT(DISTINCT a, b) and BIT_*: over no row 0, and BIT_AND's
-- 18446744073709551615.
SELECT COUNT(DISTINCT user_id, status) AS pairs, BIT_AND(qty) AS qty_and,
       BIT_OR(qty) AS qty_or, BIT_XOR(order_id) AS id_xor
FROM g7_order WHERE amount > ?;

-- name: TopUsers :many
-- shardgen:allow-full-route
-- ORDER BY an aggregate, then LIMIT ?: groups are merged before paging.
SELECT user_id, SUM(amount) AS total, MAX(order_id) AS last_id FROM g7_order
GROUP BY user_id ORDER BY total DESC, user_id LIMIT ?;

-- name: CountOrders :one
-- shardgen:allow-full-route
-- A scalar aggregate: exactly one row, even when nothing matches.
SELECT COUNT(*) AS n, SUM(amount) AS total, AVG(amount) AS avg_amount,
       MAX(order_id) AS max_id, COUNT(DISTINCT user_id) AS users
FROM g7_order WHERE amount > ?;

-- name: UserStatuses :many
-- DISTINCT over the data nodes of two users.
SELECT DISTINCT status FROM g7_order WHERE user_id IN (?, ?) ORDER BY status;

-- name: StatusPage :many
-- shardgen:allow-full-route
-- DISTINCT with ORDER BY and a LIMIT ?, ? page.
SELECT DISTINCT user_id, status FROM g7_order ORDER BY user_id, status LIMIT ?, ?;

-- name: CountStatuses :one
SELECT COUNT(DISTINCT status) AS statuses, COUNT(*) AS n, MIN(note) AS first_note
FROM g7_order WHERE user_id IN (?, ?);

-- name: BigSpenders :many
-- shardgen:allow-full-route
-- HAVING compares merged aggregates with parameters of the aggregates'
-- types: SUM of a DECIMAL column and SUM of an INT (DECIMAL) take string,
-- MAX of a DOUBLE float64, COUNT int64; never their NULL forms.
SELECT user_id, SUM(amount) AS total, SUM(qty) AS qtys, COUNT(*) AS n FROM g7_order
GROUP BY user_id HAVING SUM(amount) > ? AND SUM(qty) >= ? AND MAX(rate) > ? AND COUNT(*) > ?
ORDER BY user_id;

-- name: OrderRanks :many
-- Ranking window functions partitioned by every sharding column (each
-- partition is on one data node), typed without a CAST: BIGINT, DOUBLE.
-- shardgen:allow-full-route
SELECT order_id, ROW_NUMBER() OVER (PARTITION BY user_id, order_id ORDER BY created_at) AS rn,
       RANK() OVER (PARTITION BY user_id, order_id ORDER BY amount) AS rk,
       PERCENT_RANK() OVER (PARTITION BY user_id, order_id ORDER BY amount) AS pr
FROM g7_order ORDER BY order_id;

-- name: DerivedPick :many
-- A derived table that picks columns and filters rows, over the two
-- actual tables of one data source: planned with the derived table merged
-- into the statement (MySQL's derived_merge).
SELECT * FROM (SELECT order_id, status, amount FROM g7_order WHERE user_id = ?) AS temp ORDER BY order_id;

-- name: DerivedGroups :many
-- Groups of a merged derived table over every data node: an aliased
-- column, the outer WHERE on a derived column, ORDER BY a select alias.
-- shardgen:allow-full-route
SELECT temp.st, COUNT(*) AS n, SUM(temp.amount) AS total
FROM (SELECT o.status AS st, o.amount FROM g7_order o WHERE o.qty >= ?) AS temp
WHERE temp.amount > ? GROUP BY temp.st ORDER BY n DESC, temp.st;

-- name: DerivedIn :many
-- ShardingSphere's case: a derived table with IN (SELECT …), whose rows
-- are routed by another parameter (evaluated in steps once merged).
SELECT * FROM (SELECT order_id, status FROM g7_order WHERE user_id = ? AND status IN (SELECT status FROM g7_order WHERE user_id = ? AND qty > 1)) AS temp ORDER BY order_id;

-- name: DerivedStar :many
-- SELECT * in the derived table, the outer statement names its columns.
SELECT order_id AS id, t.qty FROM (SELECT * FROM g7_order WHERE user_id = ?) AS t WHERE t.qty > ? ORDER BY t.order_id DESC LIMIT 3;


-- The statements of sysbench's oltp_* scenarios (oltp_common.lua) on sbtest.

-- name: PointSelect :one
SELECT c FROM sbtest WHERE id = ?;

-- name: InsertRow :exec
INSERT INTO sbtest (id, k, c, pad) VALUES (?, ?, ?, ?);

-- name: UpdateIndex :execrows
UPDATE sbtest SET k = k + 1 WHERE id = ?;

-- name: UpdateNonIndex :execrows
UPDATE sbtest SET c = ? WHERE id = ?;

-- name: DeleteRow :execrows
DELETE FROM sbtest WHERE id = ?;

-- name: SimpleRange :many
-- shardgen:allow-full-route
SELECT c FROM sbtest WHERE id BETWEEN ? AND ?;

-- name: SumRange :one
-- shardgen:allow-full-route
SELECT SUM(k) AS total FROM sbtest WHERE id BETWEEN ? AND ?;

-- name: OrderRange :many
-- shardgen:allow-full-route
SELECT c FROM sbtest WHERE id BETWEEN ? AND ? ORDER BY c;

-- name: DistinctRange :many
-- shardgen:allow-full-route
SELECT DISTINCT c FROM sbtest WHERE id BETWEEN ? AND ? ORDER BY c;

-- name: InsertEncRow :exec
INSERT INTO sbtest_enc (id, k, c, pad) VALUES (?, ?, ?, ?);

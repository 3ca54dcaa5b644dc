-- name: AddItems :execrows
-- Three items, each routed by MOD on user_id and COMPLEX_INLINE on
-- (user_id, item_id).
INSERT INTO g7_item (item_id, user_id, sku, qty) VALUES (?, ?, ?, ?), (?, ?, ?, ?), (?, ?, ?, ?);

-- name: SkuTotals :many
-- shardgen:allow-full-route
SELECT sku, SUM(qty) AS qty, COUNT(*) AS items, COUNT(DISTINCT user_id) AS users
FROM g7_item GROUP BY sku ORDER BY sku;

-- name: BusySkus :many
-- Groups span data nodes: HAVING and the quotient are evaluated on the
-- merged groups (a parameter in HAVING, AVG inside an expression).
-- shardgen:allow-full-route
SELECT sku, CAST(SUM(qty) / COUNT(*) AS DECIMAL(10,4)) AS per_item, COUNT(*) AS items,
       CAST(AVG(qty) * 3 AS DECIMAL(12,6)) AS avg3
FROM g7_item GROUP BY sku HAVING COUNT(*) > ? AND SUM(qty) / COUNT(*) >= 1 ORDER BY per_item DESC, sku;

-- name: SkuUsers :many
-- GROUP_CONCAT over groups that span data nodes: the nodes return the
-- values, the merge orders, joins and cuts them.
-- shardgen:allow-full-route
SELECT sku, GROUP_CONCAT(DISTINCT user_id ORDER BY user_id DESC SEPARATOR '|') AS users,
       GROUP_CONCAT(qty ORDER BY item_id) AS qtys
FROM g7_item GROUP BY sku ORDER BY sku;

-- name: SkuRatios :many
-- Arithmetic over merged aggregates without a CAST: typed as MySQL returns
-- it (DECIMAL text for /, BIGINT for -), evaluated on the merged groups.
-- shardgen:allow-full-route
SELECT sku, SUM(qty) / COUNT(*) AS per_item, MAX(qty) - MIN(qty) AS spread, AVG(qty) * 3 AS avg3
FROM g7_item GROUP BY sku HAVING SUM(qty) / COUNT(*) >= ? ORDER BY sku;

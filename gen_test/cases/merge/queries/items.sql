-- name: AddItems :execrows
-- Three items, each routed by MOD on user_id and COMPLEX_INLINE on
-- (user_id, item_id).
INSERT INTO g7_item (item_id, user_id, sku, qty) VALUES (?, ?, ?, ?), (?, ?, ?, ?), (?, ?, ?, ?);

-- name: SkuTotals :many
-- shardgen:allow-full-route
SELECT sku, SUM(qty) AS qty, COUNT(*) AS items, COUNT(DISTINCT user_id) AS users
FROM g7_item GROUP BY sku ORDER BY sku;

-- name: ByMaxStatus :many
SELECT status, COUNT(*) AS n
FROM t_order
WHERE user_id IN (?, ?)
GROUP BY status
ORDER BY MAX(status) COLLATE utf8mb4_unicode_ci;

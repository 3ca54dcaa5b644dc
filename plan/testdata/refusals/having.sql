-- name: Having :many
SELECT status, COUNT(*) AS n
FROM t_order
WHERE user_id IN (?, ?)
GROUP BY status
HAVING MAX(status) LIKE 'a%';

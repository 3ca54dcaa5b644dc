-- name: Concat :many
SELECT user_id, GROUP_CONCAT(status) AS g
FROM t_order
WHERE user_id IN (?, ?)
GROUP BY user_id
ORDER BY GROUP_CONCAT(status);

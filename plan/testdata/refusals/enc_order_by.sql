-- name: ByMobile :many
SELECT name
FROM t_user
WHERE user_id = ?
ORDER BY mobile;

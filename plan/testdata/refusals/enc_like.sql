-- name: ByEmail :many
SELECT name
FROM t_user
WHERE user_id = ?
  AND email LIKE ?;

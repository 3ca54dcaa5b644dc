-- name: MobileAbove :many
SELECT name
FROM t_user
WHERE user_id = ?
  AND mobile > ?;

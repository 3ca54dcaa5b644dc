-- name: GetUser :one
SELECT * FROM t_user WHERE user_id = ?;

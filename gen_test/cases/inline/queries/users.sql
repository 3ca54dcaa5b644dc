-- name: InsertUser :exec
INSERT INTO g2_user (user_id, name, email, score) VALUES (?, ?, ?, ?);

-- name: GetUser :one
SELECT * FROM g2_user WHERE user_id = ?;

-- name: ListUsers :many
SELECT user_id, name, score FROM g2_user WHERE user_id IN (?, ?, ?);

-- name: ListUsersLiteral :many
-- Literal sharding values: the route is fixed at generate time.
SELECT user_id, email FROM g2_user WHERE user_id IN (3, 4, 10);

-- name: UpdateUserScore :execrows
UPDATE g2_user SET score = score + ? WHERE user_id = ?;

-- name: DeleteUser :execrows
DELETE FROM g2_user WHERE user_id = ?;

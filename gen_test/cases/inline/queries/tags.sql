-- name: InsertTag :exec
INSERT INTO g2_tag (name, label, weight) VALUES (?, ?, ?);

-- name: GetTag :one
SELECT name, label, weight FROM g2_tag WHERE name = ?;

-- name: ListTags :many
SELECT name, weight FROM g2_tag WHERE name IN (?, ?, ?);

-- name: RelabelTag :execrows
UPDATE g2_tag SET label = sqlc.arg(label), weight = sqlc.narg(weight) WHERE name = sqlc.arg(name);

-- name: DeleteTag :execrows
DELETE FROM g2_tag WHERE name = ?;

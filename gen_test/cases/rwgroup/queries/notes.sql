-- name: PutNote :exec
INSERT INTO g12_note (note_id, owner, body) VALUES (?, ?, ?);

-- name: GetNote :one
SELECT note_id, owner, body FROM g12_note WHERE note_id = ?;

-- name: OwnerNotes :many
SELECT note_id, body FROM g12_note WHERE owner = ? ORDER BY note_id;

-- name: CountByOwner :many
SELECT owner, COUNT(*) FROM g12_note GROUP BY owner ORDER BY owner;

-- name: EditNotes :execrows
UPDATE g12_note SET body = ? WHERE owner = ?;

-- name: DeleteNote :execrows
DELETE FROM g12_note WHERE note_id = ?;

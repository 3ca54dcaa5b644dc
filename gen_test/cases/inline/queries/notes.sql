-- name: InsertNote :exec
INSERT INTO g2_note (note_id, author_id, body) VALUES (?, ?, ?);

-- name: GetNote :one
SELECT body FROM g2_note WHERE author_id = ? AND note_id = ?;

-- name: ListAuthorNotes :many
SELECT note_id, body FROM g2_note WHERE author_id = ?;

-- name: ListNotesIn :many
SELECT author_id, note_id FROM g2_note WHERE author_id IN (?, ?) AND note_id IN (?, ?);

-- name: DeleteNote :execrows
DELETE FROM g2_note WHERE author_id = ? AND note_id = ?;

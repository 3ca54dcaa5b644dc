-- name: PutTag :exec
INSERT INTO g4_tag (tag_id, name) VALUES (?, ?);

-- name: TagsIn :many
-- TagsIn reads an IN list whose values live on both data sources.
SELECT tag_id, name FROM g4_tag WHERE tag_id IN (?, ?, ?) ORDER BY tag_id;

-- name: TagsEdge :many
SELECT tag_id, name FROM g4_tag WHERE tag_id IN (2, 4294967295) ORDER BY tag_id;

-- name: RenameTagsIn :execrows
UPDATE g4_tag SET name = ? WHERE tag_id IN (?, ?);

-- name: DeleteTagsIn :execrows
DELETE FROM g4_tag WHERE tag_id IN (?, ?, ?);

-- name: PutTagRow :exec
-- PutTagRow gives every visible column, without a column list.
INSERT INTO g4_tag VALUES (?, ?);

-- name: TagRows :many
SELECT * FROM g4_tag WHERE tag_id IN (?, ?) ORDER BY tag_id;

-- name: CountHit :execrows
UPDATE g4_tag SET hits = hits + 1 WHERE tag_id = ?;

-- name: TagHits :many
SELECT tag_id, hits FROM g4_tag WHERE tag_id BETWEEN ? AND ? ORDER BY tag_id;

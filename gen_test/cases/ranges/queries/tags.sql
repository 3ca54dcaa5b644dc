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

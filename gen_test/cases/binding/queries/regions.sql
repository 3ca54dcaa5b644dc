-- name: PutRegion :execrows
INSERT INTO g3_region (code, name) VALUES (?, ?);

-- name: GetRegion :one
SELECT code, name FROM g3_region WHERE code = ?;

-- name: ListRegions :many
SELECT code, name FROM g3_region ORDER BY name, code;

-- name: RenameRegion :execrows
UPDATE g3_region SET name = ? WHERE code = ?;

-- name: DeleteRegion :execrows
DELETE FROM g3_region WHERE code = ?;

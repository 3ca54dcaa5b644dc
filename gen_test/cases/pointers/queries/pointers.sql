-- name: AddPerson :exec
INSERT INTO g42_person (id, name, age, born, score, active, small, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?);

-- name: GetPerson :one
SELECT * FROM g42_person WHERE id = ?;

-- name: ListPersons :many
SELECT id, name, age, born, score, active, small FROM g42_person WHERE id IN (?, ?, ?) ORDER BY age, id;

-- name: SetName :execrows
UPDATE g42_person SET name = sqlc.narg(name), age = ? WHERE id = ?;

-- name: AgeRange :one
-- shardgen:allow-full-route
SELECT MIN(age) AS youngest, MAX(born) AS latest, MAX(name) AS last_name FROM g42_person WHERE score > ?;

-- name: AddEvent :exec
INSERT INTO g42_event (event_id, person_id, kind) VALUES (?, ?, ?);

-- name: EventsOf :many
SELECT event_id, kind FROM g42_event WHERE person_id = sqlc.narg(person_id) ORDER BY event_id;

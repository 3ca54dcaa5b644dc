-- name: PutEvent :exec
INSERT INTO g4_event (event_id, user_id, kind) VALUES (?, ?, ?);

-- name: GetEvent :one
SELECT event_id, user_id, kind FROM g4_event WHERE user_id = ? AND event_id = ?;

-- name: EventsBetween :many
-- BETWEEN on the table sharding column: the partitions it spans, on every
-- data source.
SELECT event_id, user_id, kind FROM g4_event WHERE event_id BETWEEN ? AND ?;

-- name: UserEventsBelow :many
SELECT event_id, kind FROM g4_event WHERE user_id = ? AND event_id < ?;

-- name: EventsAbove :many
SELECT event_id, user_id FROM g4_event WHERE event_id > ?;

-- name: EventsFromLiteral :many
-- Literal bounds: the route is fixed at generate time.
SELECT event_id FROM g4_event WHERE event_id >= 20 AND event_id <= 29;

-- name: RenameEventsBetween :execrows
UPDATE g4_event SET kind = ? WHERE event_id BETWEEN ? AND ?;

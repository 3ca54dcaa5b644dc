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

-- name: MoveEvent :execrows
-- MoveEvent sets the database sharding column: allowed where the new
-- user_id routes to the row's own data node, refused at run time otherwise.
UPDATE g4_event SET user_id = ?, kind = ? WHERE user_id = ? AND event_id = ?;

-- name: RenumberEvent :execrows
UPDATE g4_event SET event_id = ? WHERE user_id = ? AND event_id = ?;

-- name: ReassignUser :execrows
-- ReassignUser runs on every table of one data source; the table strategy
-- does not read user_id, so rows stay where the new user_id routes to the
-- same data source.
UPDATE g4_event SET user_id = ? WHERE user_id = ?;

-- name: SwapLiteral :execrows
UPDATE g4_event SET user_id = 2 WHERE user_id = 0 AND event_id = 11;

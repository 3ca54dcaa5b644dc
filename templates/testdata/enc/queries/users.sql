-- name: AddUser :exec
INSERT INTO t_user (user_id, name, phone, email) VALUES (?, ?, ?, ?);

-- name: AddPlainUser :exec
INSERT INTO t_user_plain (user_id, name, phone, email) VALUES (?, ?, ?, ?);

-- name: AddHelloUser :exec
INSERT INTO t_user (user_id, name, phone, email) VALUES (?, ?, NULL, 'hello');

-- name: GetUser :one
SELECT * FROM t_user WHERE user_id = ?;

-- name: GetPlainUser :one
SELECT * FROM t_user_plain WHERE user_id = ?;

-- name: ListUsers :many
SELECT user_id, name, phone, email FROM t_user WHERE user_id = ?;

-- name: FindByPhone :many
-- shardgen:allow-full-route
SELECT user_id, name, phone, email FROM t_user WHERE phone = ?;

-- name: FindByEmails :many
-- shardgen:allow-full-route
SELECT user_id, phone, email FROM t_user WHERE email IN (?, ?) ORDER BY user_id;

-- name: FirstByPhoneLike :one
-- shardgen:allow-full-route
SELECT user_id, phone FROM t_user WHERE phone LIKE ? ORDER BY user_id LIMIT 1;

-- name: CountNoPhone :one
-- shardgen:allow-full-route
SELECT COUNT(*) AS n FROM t_user WHERE phone IS NULL;

-- name: FindHello :many
-- shardgen:allow-full-route
SELECT user_id, email FROM t_user WHERE email = 'hello';

-- name: UpdateUser :execrows
UPDATE t_user SET email = ?, name = ?, phone = ? WHERE user_id = ? AND phone = ?;

-- name: LockUser :one
SELECT user_id, phone FROM t_user WHERE user_id = ? FOR UPDATE;

-- name: GetUserPrimary :one
-- shardgen:primary
SELECT user_id, email FROM t_user WHERE user_id = ?;

-- name: AddCard :exec
INSERT INTO t_card (card_id, user_id, pan) VALUES (?, ?, ?);

-- name: GetCard :one
SELECT card_id, pan FROM t_card WHERE user_id = ? AND pan = ?;

-- name: WhoReads :one
SELECT user_id, CAST(@@server_id AS SIGNED) AS server_id FROM t_user WHERE user_id = ?;

-- name: WhoReadsPrimary :one
-- shardgen:primary
SELECT user_id, CAST(@@server_id AS SIGNED) AS server_id FROM t_user WHERE user_id = ?;

-- name: WhoLocks :one
SELECT user_id, CAST(@@server_id AS SIGNED) AS server_id FROM t_user WHERE user_id = ? FOR UPDATE;

-- name: AddUsers :execrows
INSERT INTO t_user (user_id, name, phone, email) VALUES (?, ?, ?, ?), (?, ?, ?, ?), (?, ?, NULL, ?);

-- name: FindByPhones :many
-- shardgen:allow-full-route
SELECT user_id, name, phone, email FROM t_user WHERE phone IN (sqlc.slice(phones)) ORDER BY user_id;

-- name: FindPlainByPhones :many
-- shardgen:allow-full-route
SELECT user_id, name, phone, email FROM t_user_plain WHERE phone IN (sqlc.slice(phones)) ORDER BY user_id;

-- name: RenameByEmails :execrows
-- shardgen:allow-full-route
UPDATE t_user SET name = ? WHERE email IN (sqlc.slice(emails)) AND name <> ?;

-- name: RenamePlainByEmails :execrows
-- shardgen:allow-full-route
UPDATE t_user_plain SET name = ? WHERE email IN (sqlc.slice(emails)) AND name <> ?;

-- name: CopyUsers :copyfrom
INSERT INTO t_user (user_id, name, phone, email) VALUES (?, ?, ?, ?);

-- name: GetPhone :one
SELECT phone FROM t_user WHERE user_id = ?;

-- name: PhonesOf :many
SELECT phone FROM t_user WHERE user_id IN (?, ?);

-- name: FirstPhoneOf :one
SELECT phone FROM t_user WHERE user_id IN (?, ?);

-- name: EmailsOf :many
SELECT email FROM t_user WHERE user_id IN (?, ?) ORDER BY user_id;

-- name: NamesOfUser :many
SELECT name FROM t_user WHERE user_id = ?;

-- name: CreateAccount :exec
INSERT INTO g5_account (account_id, owner, nickname, balance, credits, limit_cents, opened_at, closed_at, score)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?);

-- name: GetAccount :one
SELECT * FROM g5_account WHERE account_id = sqlc.arg(id);

-- name: GetAccountByNickname :one
-- sqlc.narg: a nullable parameter; <=> matches NULL with NULL.
SELECT account_id, nickname, limit_cents FROM g5_account
WHERE account_id = sqlc.arg(account_id) AND nickname <=> sqlc.narg(nickname);

-- name: ListOwnerAccounts :many
-- shardgen:allow-full-route
SELECT account_id, balance, closed_at FROM g5_account WHERE owner = ?;

-- name: FindAccounts :many
-- Six parameters: a Params struct.
SELECT account_id, owner, balance, credits, opened_at FROM g5_account
WHERE account_id IN (?, ?, ?) AND balance >= ? AND opened_at BETWEEN ? AND ?;

-- name: UpdateAccount :execrows
UPDATE g5_account
SET nickname = sqlc.narg(nickname), balance = balance + sqlc.arg(delta),
    limit_cents = sqlc.narg(limit_cents), closed_at = sqlc.narg(closed_at), score = sqlc.narg(score)
WHERE account_id = sqlc.arg(account_id);

-- name: DeleteAccount :execrows
DELETE FROM g5_account WHERE account_id = ?;

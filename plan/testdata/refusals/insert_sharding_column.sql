-- name: AddOrder :exec
INSERT INTO t_order
  (order_id, status, amount)
VALUES (?, ?, ?);

-- name: AddOrders :exec
INSERT INTO t_order (user_id, status, amount) VALUES (?, ?, ?),
  (NULL, ?, ?);

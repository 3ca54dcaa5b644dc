-- name: CancelSome :exec
UPDATE t_order SET status = 'cancelled'
WHERE user_id IN (?, ?)
ORDER BY order_id
LIMIT 2;

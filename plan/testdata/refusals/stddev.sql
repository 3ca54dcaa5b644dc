-- name: Spread :many
SELECT status,
  CAST(STDDEV(amount) AS DOUBLE) AS s
FROM t_order
WHERE user_id IN (?, ?)
GROUP BY status;

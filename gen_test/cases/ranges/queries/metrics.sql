-- name: PutMetric :exec
INSERT INTO g4_metric (metric_id, reading, label) VALUES (?, ?, ?);

-- name: MetricsAt :many
SELECT metric_id, reading, label FROM g4_metric WHERE reading = ?;

-- name: MetricsIn :many
SELECT metric_id, reading, label FROM g4_metric WHERE reading IN (?, ?, ?) ORDER BY metric_id;

-- name: MetricsBetween :many
SELECT metric_id, reading FROM g4_metric WHERE reading BETWEEN ? AND ?;

-- name: MetricsBelow :many
SELECT metric_id, reading FROM g4_metric WHERE reading <= ?;

-- name: DeleteMetricsAbove :execrows
DELETE FROM g4_metric WHERE reading > ?;

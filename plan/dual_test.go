package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTablelessSelect: a SELECT that reads no table (MySQL's DUAL) runs on
// the first data source, unchanged; other statements on dual stay refused.
func TestTablelessSelect(t *testing.T) {
	b := newBuilder(t)
	for _, sql := range []string{"SELECT 1", "SELECT 1 AS one FROM dual", "SELECT CAST(? AS SIGNED) AS v"} {
		p, err := build(t, b, ":one", sql)
		require.NoError(t, err, sql)
		require.Equal(t, []string{"ds_0"}, p.Route.DataSources, sql)
		require.Len(t, p.Route.Units, 1, sql)
		require.Equal(t, sql, p.Route.Units[0].SQL, sql)
	}
	_, err := build(t, b, ":one", "SELECT NOW()")
	require.ErrorContains(t, err, "cannot infer the Go type of result column 1")
	_, err = build(t, b, ":one", "SELECT order_id FROM t_order, dual WHERE order_id = 1")
	require.Error(t, err)
}

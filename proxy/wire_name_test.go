package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOriginalName: an expression column is named by the client's own
// spelling of it, as MySQL names it, whatever quoting and spacing the
// planner prints.
func TestOriginalName(t *testing.T) {
	for _, tc := range []struct{ q, name, want string }{
		{"SELECT COUNT(*) FROM t", "count(*)", "COUNT(*)"},
		{"SELECT LENGTH(name) FROM t WHERE id = 1", "LENGTH(`name`)", "LENGTH(name)"},
		{"select length( `name` ) from t", "LENGTH(`name`)", "length( `name` )"},
		{"SELECT a+b FROM t", "a + b", "a+b"},
		{"SELECT SUM(x),  MAX(y) FROM t", "MAX(`y`)", "MAX(y)"},
		{"SELECT id FROM t", "id", "id"},
		{"SELECT COALESCE(a, 'x') FROM t", "coalesce(`a`, 'x')", "COALESCE(a, 'x')"},
		{"SELECT 1", "not there (`z`)", "not there (`z`)"},
	} {
		require.Equal(t, tc.want, originalName(tc.q, tc.name), tc.q)
	}
}

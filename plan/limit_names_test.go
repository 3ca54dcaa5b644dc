package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLimitParamNames: LIMIT placeholders are named limit and offset, as
// sqlc names them; sqlc.arg names win.
func TestLimitParamNames(t *testing.T) {
	b := newBuilder(t)
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"SELECT order_id FROM t_order WHERE user_id = ? ORDER BY order_id LIMIT ?", []string{"userID", "limit"}},
		{"SELECT order_id FROM t_order WHERE user_id = ? ORDER BY order_id LIMIT ?, ?", []string{"userID", "offset", "limit"}},
		{"SELECT order_id FROM t_order WHERE user_id = ? ORDER BY order_id LIMIT ? OFFSET ?", []string{"userID", "limit", "offset"}},
		{"SELECT order_id FROM t_order WHERE user_id = ? ORDER BY order_id LIMIT sqlc.arg(take)", []string{"userID", "take"}},
	} {
		p, err := build(t, b, ":many", tc.sql)
		require.NoError(t, err, tc.sql)
		var got []string
		for _, prm := range p.Params {
			got = append(got, prm.Name)
		}
		require.Equal(t, tc.want, got, tc.sql)
	}
}

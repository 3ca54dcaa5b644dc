package plan_test

import (
	"strings"
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

// TestManyParamNames: 65,535 unnamed placeholders (the protocol's limit,
// go-sql-driver's TestPreparedManyCols) are named arg, arg_2 ... arg_65535 and
// their columns v, v_2 ...; naming them tried every earlier suffix again
// (quadratic: minutes of CPU for this statement), now each name is found in
// one step.
func TestManyParamNames(t *testing.T) {
	b := newBuilder(t)
	const n = 65535
	sql := "SELECT CAST(? AS SIGNED) AS v" + strings.Repeat(", CAST(? AS SIGNED) AS v", n-1)
	p, err := build(t, b, ":one", sql)
	require.NoError(t, err)
	require.Len(t, p.Params, n)
	require.Len(t, p.Columns, n)
	for i, want := range map[int]string{0: "arg", 1: "arg_2", 2: "arg_3", n - 1: "arg_65535"} {
		require.Equal(t, want, p.Params[i].Name)
	}
	require.Equal(t, "V", p.Columns[0].Field)
	require.Equal(t, "V_2", p.Columns[1].Field)
	require.Equal(t, "V_65535", p.Columns[n-1].Field)
}

package plan_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
)

// TestLimitedWriteSteps: an UPDATE or DELETE with a total ORDER BY … LIMIT
// over several data nodes selects the keys in order, then writes exactly
// those rows (FALSE for none); an ORDER BY without a unique key, no ORDER
// BY, or another shape is refused with the reason (ErrCrossNode).
func TestLimitedWriteSteps(t *testing.T) {
	b := newBuilder(t)
	st, err := b.LimitedWriteSteps("UPDATE t_order SET status = 'X' WHERE amount > 1 ORDER BY amount DESC, order_id LIMIT 3")
	require.NoError(t, err)
	require.Equal(t, plan.StepsSubqueries, st.Kind)
	require.Len(t, st.Subqueries, 1)
	require.Equal(t, "select t_order.order_id from t_order where amount > 1 order by amount desc, order_id asc limit 3", st.Subqueries[0].SQL)
	bound, err := st.Bind([][][]plan.BoundValue{{{{Kind: plan.BoundInt, Text: "7"}}, {{Kind: plan.BoundInt, Text: "2"}}}})
	require.NoError(t, err)
	require.Equal(t, "update t_order set `status` = 'X' where amount > 1 and t_order.order_id in (7, 2)", bound)
	bound, err = st.Bind([][][]plan.BoundValue{nil})
	require.NoError(t, err)
	require.Equal(t, "update t_order set `status` = 'X' where amount > 1 and false", bound)

	st, err = b.LimitedWriteSteps("DELETE FROM t_user u ORDER BY u.user_id DESC LIMIT 2")
	require.NoError(t, err)
	require.Equal(t, "select u.user_id from t_user as u order by u.user_id desc limit 2", st.Subqueries[0].SQL)

	for _, c := range []struct{ sql, err string }{
		{"UPDATE t_order SET status = 'X' ORDER BY amount LIMIT 3", "the ORDER BY must include every column of the primary key (order_id) or of a unique key of NOT NULL columns, so that it orders the rows totally and the rows MySQL would change are known; e.g. ORDER BY amount, order_id"},
		{"DELETE FROM t_order LIMIT 3", "the ORDER BY must include every column of the primary key (order_id)"},
		{"UPDATE t_order SET status = 'X' ORDER BY order_id LIMIT ?", "its LIMIT is a parameter; the LIMIT must be an integer literal"},
		{"SELECT 1", "only UPDATE and DELETE"},
	} {
		_, err := b.LimitedWriteSteps(c.sql)
		require.ErrorContains(t, err, c.err, c.sql)
		require.True(t, errors.Is(err, plan.ErrCrossNode), c.sql)
	}
}

package proxy

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// cxRules adds to xnRules xn_cx: INLINE on a over ds_0 and ds_1, then
// COMPLEX_INLINE on (a, b) over xn_cx_0 and xn_cx_1.
var cxRules = strings.Replace(xnRules, "    shardingAlgorithms:\n", `      xn_cx:
        actualDataNodes: ds_${0..1}.xn_cx_${0..1}
        databaseStrategy:
          standard:
            shardingColumn: a
            shardingAlgorithmName: xn_cx_db
        tableStrategy:
          complex:
            shardingColumns: a, b
            shardingAlgorithmName: xn_cx_complex
    shardingAlgorithms:
      xn_cx_db:
        type: INLINE
        props:
          algorithm-expression: ds_${a % 2}
      xn_cx_complex:
        type: COMPLEX_INLINE
        props:
          algorithm-expression: xn_cx_${(a + b) % 2}
`, 1)

// TestComplexRouteRefusals: a statement whose sharding algorithm refuses
// its conditions is refused alike over the text protocol (values
// interpolated: literals routed when the statement is planned) and the
// binary protocol (parameters routed when it runs), whether the table is
// routed once or in a step (an IN subquery evaluated first), with ERROR
// 1235 and the same message, which says what would make it run:
//   - COMPLEX_INLINE given a value for a but not for b, which its
//     expression reads (ShardingSphere fails such a statement): refused
//     whatever the values, when the statement is planned;
//   - an INLINE value that reaches no data node (ds_-1): a step's route
//     refused it neither, but ran the subquery on every data node.
//
// The statements the algorithms accept return the reference's rows.
func TestComplexRouteRefusals(t *testing.T) {
	const ddl = xnDDL + `;
CREATE TABLE xn_cx (a BIGINT NOT NULL, b BIGINT NOT NULL, sku VARCHAR(16) NULL, PRIMARY KEY (a, b))`
	rows := append(xnRows[:len(xnRows):len(xnRows)], "INSERT INTO xn_cx VALUES (1, 1, 'S1'), (1, 2, 'S2'), (2, 3, 'S1'), (3, 4, 'S3'), (4, 7, 'S4')")
	e, binary := newStepsEnv(t, "", cxRules, ddl, rows, "xn_a", "xn_b", "xn_cx", "xn_cx_0", "xn_cx_1")
	text := e.client(t, "root", "secret", map[string]string{"interpolateParams": "true"})
	ctx := context.Background()
	const readsB = `Error 1235 (42000): routing table "xn_cx": COMPLEX_INLINE "xn_cx_${(a + b) % 2}" reads "b", but the condition gives = or IN values only for a: add b = ? or b IN (…) to it`
	const noTarget = `Error 1235 (42000): routing table "xn_b": no data node matches the sharding value: INLINE "ds_${bid % 2}" gives "ds_-1" for Long -1, which is not an available target`
	for _, c := range []struct {
		q    string
		args []any
		err  string
	}{
		{"SELECT sku FROM xn_cx WHERE a = ?", []any{1}, readsB},
		{"SELECT sku FROM xn_cx WHERE a IN (?, ?) ORDER BY sku", []any{1, 2}, readsB},
		{"SELECT sku FROM xn_cx WHERE a = ? AND b = ? OR a = ?", []any{1, 1, 2}, readsB},
		{"SELECT id FROM xn_a WHERE id IN (SELECT b FROM xn_cx WHERE a = ?) ORDER BY id", []any{1}, readsB},
		{"SELECT a_id FROM xn_b WHERE bid = ?", []any{-1}, noTarget},
		{"SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE bid = ?) ORDER BY id", []any{-1}, noTarget},
		{"SELECT sku FROM xn_cx WHERE a = ? AND b = ?", []any{1, 2}, ""},
		{"SELECT id FROM xn_a WHERE id IN (SELECT b FROM xn_cx WHERE a = ? AND b IN (?, ?)) ORDER BY id", []any{1, 1, 2}, ""},
		{"SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE bid = ?) ORDER BY id", []any{101}, ""},
	} {
		for _, px := range []struct {
			proto string
			db    querier
		}{{"text", text}, {"binary", binary}} {
			if c.err != "" {
				r, err := px.db.QueryContext(ctx, c.q, c.args...)
				if err == nil {
					r.Close()
				}
				require.EqualError(t, err, c.err, "%s over %s", c.q, px.proto)
				continue
			}
			require.Equal(t, rowsOf(t, e.ref, c.q, c.args...), rowsOf(t, px.db, c.q, c.args...), "%s over %s", c.q, px.proto)
		}
	}
}

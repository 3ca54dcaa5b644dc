package proxy

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"

	"github.com/shardgen/shardgen/internal/testdb"
)

// BenchmarkStepsJoinRepeated is one session's cross-node join (xn_a sharded by id,
// xn_b by bid, joined on b.a_id = a.id, two rows per id) through the proxy
// in process over the local MariaDB servers, with a raw-packet client
// (inproc_test.go's benchClient): prepared is COM_STMT_EXECUTE of a
// statement prepared once with the id as its parameter, text the same
// join with the id as a literal (one text per id). Each execution runs the
// steps (the xn_a side on the id's data node, the xn_b side on both); the
// plans come from the plan cache after the first. ns/op includes the data
// sources' round trips.
func BenchmarkStepsJoinRepeated(b *testing.B) {
	y := strings.Replace(pxYAML(), "    shardingAlgorithms:\n", xnRules, 1)
	e := newPxEnvDDL(b, y, xnDDL)
	ctx := context.Background()
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(b, ds)
		for _, tb := range []string{"xn_a", "xn_b"} {
			_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+tb)
			require.NoError(b, err)
			b.Cleanup(func() { _, _ = db.ExecContext(ctx, "DROP TABLE IF EXISTS "+tb) })
		}
	}
	px := e.client(b, "root", "secret", nil)
	for _, q := range append(strings.Split(xnDDL, ";"), xnRows...) {
		_, err := px.ExecContext(ctx, q)
		require.NoError(b, err)
	}
	dial := func(b *testing.B) *benchClient {
		c, err := rawHandshakeCaps(e.srv.Addr(), "root", "secret", "px_db", mysql.MysqlNativePassword, 0)
		require.NoError(b, err)
		b.Cleanup(func() { c.conn.Close() })
		require.NoError(b, c.conn.SetDeadline(time.Time{}))
		return &benchClient{rawClient: c}
	}
	const join = "SELECT a.id, a.name, b.bid FROM xn_a a JOIN xn_b b ON b.a_id = a.id WHERE a.id = "
	// ids 1, 4 and 7 have two xn_b rows each, 2 has one.
	ids := []int64{1, 4, 7, 2}
	b.Run("prepared", func(b *testing.B) {
		c := dial(b)
		stmt, err := c.prepareStmt(join + "? ORDER BY b.bid")
		require.NoError(b, err)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if rows, _, err := c.execute(stmt, ids[i%len(ids)]); err != nil || rows == 0 {
				b.Fatal(rows, err)
			}
		}
	})
	b.Run("text", func(b *testing.B) {
		c := dial(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			c.out = append(append(c.out[:0], 0, 0, 0, 0, mysql.ComQuery), join...)
			c.out = strconv.AppendInt(c.out, ids[i%len(ids)], 10)
			c.out = append(c.out, " ORDER BY b.bid"...)
			if err := c.send(c.out); err != nil {
				b.Fatal(err)
			}
			if rows, _, err := c.result(); err != nil || rows == 0 {
				b.Fatal(rows, err)
			}
		}
	})
}

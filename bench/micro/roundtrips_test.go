package micro

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// comCounters reads the server's global Com_* counters and Questions
// (every command a client sent) of the server pool p is on.
func comCounters(t testing.TB, p *sql.DB) map[string]int64 {
	t.Helper()
	rows, err := p.Query("SHOW GLOBAL STATUS WHERE Variable_name LIKE 'Com\\_%' OR Variable_name = 'Questions'")
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var v int64
		require.NoError(t, rows.Scan(&k, &v))
		out[k] = v
	}
	require.NoError(t, rows.Err())
	return out
}

// TestReadWritePKRoundTrips: one event of the load harness's read_write_pk
// scenario (10 point selects, index update, non-index update, delete +
// insert; no transaction) sends the servers exactly the commands of the
// careful direct path on the same pools: 14 COM_STMT_EXECUTE and nothing
// else (no BEGIN/COMMIT, SAVEPOINT, SET, ping or re-prepare), counted by
// the servers' Com_* and Questions status before and after 200 events per
// side (ds_0..ds_3 live on the first two servers), and allocates no more
// per event (260 vs 270: the generated call reaches
// *shardrt.Sources through shardrt.Runner; it paid one more per write, 274,
// when the argument slice escaped through the Executor interface). Not
// timed.
func TestReadWritePKRoundTrips(t *testing.T) {
	e := openSbtest(t)
	ctx := context.Background()
	c := strings.Repeat("c", 119)
	pad := strings.Repeat("p", 59)
	direct := func(id int32) error {
		for i := int32(0); i < 10; i++ {
			if _, err := e.directPointSelect(ctx, sbtestBase+(id+i)%sbtestRows+1); err != nil {
				return err
			}
		}
		if _, err := e.update[id%4].ExecContext(ctx, id); err != nil {
			return err
		}
		if _, err := e.updateNon[id%4].ExecContext(ctx, c, id); err != nil {
			return err
		}
		if _, err := e.delete[id%4].ExecContext(ctx, id); err != nil {
			return err
		}
		_, err := e.insert[id%4].ExecContext(ctx, id, id, c, pad)
		return err
	}
	generated := func(id int32) error {
		for i := int32(0); i < 10; i++ {
			if _, err := e.q.PointSelect(ctx, sbtestBase+(id+i)%sbtestRows+1); err != nil {
				return err
			}
		}
		if _, err := e.q.UpdateIndex(ctx, id); err != nil {
			return err
		}
		if _, err := e.q.UpdateNonIndex(ctx, c, id); err != nil {
			return err
		}
		if _, err := e.q.DeleteRow(ctx, id); err != nil {
			return err
		}
		return e.q.InsertRow(ctx, id, id, c, pad)
	}
	perEvent, allocs := eventCommands(t, e, map[string]func(int32) error{"direct": direct, "generated": generated})
	require.Equal(t, perEvent["direct"], perEvent["generated"])
	require.Equal(t, "Com_delete=1.00 Com_insert=1.00 Com_select=10.00 Com_stmt_execute=14.00 Com_update=2.00 Questions=14.00", perEvent["generated"])
	require.LessOrEqual(t, allocs["generated"], allocs["direct"])
}

// TestTxRoundTrips: read_write_pk's writes of one id in one single-shard
// transaction, through generated code (Queries.WithTx over Sources.BeginTx)
// and through the careful direct path (sql.DB.BeginTx on the id's pool,
// Tx.StmtContext of the prepared statements), send the same commands: the
// BEGIN, 4 COM_STMT_EXECUTE and the COMMIT (no savepoint, SET or
// re-prepare).
func TestTxRoundTrips(t *testing.T) {
	e := openSbtest(t)
	ctx := context.Background()
	c := strings.Repeat("c", 119)
	pad := strings.Repeat("p", 59)
	direct := func(id int32) error {
		tx, err := e.pools[id%4].BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for _, x := range []struct {
			st   *sql.Stmt
			args []any
		}{{e.update[id%4], []any{id}}, {e.updateNon[id%4], []any{c, id}}, {e.delete[id%4], []any{id}}, {e.insert[id%4], []any{id, id, c, pad}}} {
			if _, err := tx.StmtContext(ctx, x.st).ExecContext(ctx, x.args...); err != nil {
				_ = tx.Rollback()
				return err
			}
		}
		return tx.Commit()
	}
	generated := func(id int32) error {
		tx := e.q.Sources().BeginTx(ctx, nil)
		q := e.q.WithTx(tx)
		err := func() error {
			if _, err := q.UpdateIndex(ctx, id); err != nil {
				return err
			}
			if _, err := q.UpdateNonIndex(ctx, c, id); err != nil {
				return err
			}
			if _, err := q.DeleteRow(ctx, id); err != nil {
				return err
			}
			return q.InsertRow(ctx, id, id, c, pad)
		}()
		if err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	perEvent, allocs := eventCommands(t, e, map[string]func(int32) error{"direct": direct, "generated": generated})
	require.Equal(t, perEvent["direct"], perEvent["generated"])
	t.Logf("allocs per transaction: direct %v, generated %v", allocs["direct"], allocs["generated"])
}

// eventCommands runs each side's event (on ids sbtestBase+1 ..) once per
// id to warm the connections up, then 200 times between two readings of
// the servers' Com_* and Questions, and returns each side's commands per
// event ("Com_select=10.00 ..."; the status queries left out) and its
// allocations per event.
func eventCommands(t *testing.T, e *sbtestEnv, sides map[string]func(int32) error) (map[string]string, map[string]float64) {
	const events = 200
	perEvent := map[string]string{}
	allocs := map[string]float64{}
	for _, name := range []string{"direct", "generated"} {
		side := struct {
			name  string
			event func(int32) error
		}{name, sides[name]}
		id := int32(0)
		run := func() {
			id = sbtestBase + id%sbtestRows + 1
			require.NoError(t, side.event(id))
		}
		for range sbtestRows {
			run() // every statement prepared on the connection it uses
		}
		var before, after []map[string]int64
		for _, p := range e.pools[:2] {
			before = append(before, comCounters(t, p))
		}
		for range events {
			run()
		}
		for _, p := range e.pools[:2] {
			after = append(after, comCounters(t, p))
		}
		delta := func(k string) (d int64) {
			for s := range after {
				d += after[s][k] - before[s][k]
			}
			return d
		}
		var counts []string
		for k := range before[0] {
			d := delta(k)
			if k == "Questions" {
				d -= delta("Com_show_status") // the status queries themselves
			}
			if d != 0 && k != "Com_show_status" {
				counts = append(counts, fmt.Sprintf("%s=%.2f", k, float64(d)/events))
			}
		}
		sort.Strings(counts)
		perEvent[side.name] = strings.Join(counts, " ")
		allocs[side.name] = testing.AllocsPerRun(50, run)
		t.Logf("%s: %v allocs per event; commands per event: %s", side.name, allocs[side.name], perEvent[side.name])
	}
	return perEvent, allocs
}

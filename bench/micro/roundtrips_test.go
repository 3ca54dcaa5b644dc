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
	const events = 200
	perEvent := map[string]string{}
	allocs := map[string]float64{}
	for _, side := range []struct {
		name  string
		event func(int32) error
	}{{"direct", direct}, {"generated", generated}} {
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
	require.LessOrEqual(t, allocs["generated"], allocs["direct"])
	require.Equal(t, perEvent["direct"], perEvent["generated"])
	require.Equal(t, "Com_delete=1.00 Com_insert=1.00 Com_select=10.00 Com_stmt_execute=14.00 Com_update=2.00 Questions=14.00", perEvent["generated"])
}

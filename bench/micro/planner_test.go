// Package micro holds the route micro-benchmarks of issue 8 that compare
// generated code with the proxy's run-time planner on the sysbench table of
// the proxy phase (bench/sysbench/proxy.yaml: sbtest1 by id MOD 2), through
// exported APIs only: proxy.LoadConfig, plan.NewBuilder, Builder.Build (what
// the proxy runs on a plan-cache miss) and Builder.Units (what it runs on
// every execution after the cache returns the plan). The proxy's cache
// itself is unexported; its hit cost is measured under load from a CPU
// profile of the proxy (see docs/benchmarks.md).
//
// pointselect_test.go compares the generated sbtest package (bench/sbtest/db)
// with the careful direct path of issue 14 on the same pools and data nodes
// (needs the local MariaDB servers, as every test does): allocations per
// call, counted (TestGeneratedAllocsNearDirect) and benchmarked with the
// client's CPU per call (BenchmarkPointSelect, BenchmarkWrites).
package micro

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/proxy"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

const pointSelect = "SELECT c FROM sbtest1 WHERE id = ?"

func builder(tb testing.TB) *plan.Builder {
	tb.Helper()
	cfg, err := proxy.LoadConfig("../sysbench/proxy.yaml", []string{"../sysbench/sbtest.sql"})
	require.NoError(tb, err)
	b, err := plan.NewBuilder(cfg.Rules, nil)
	require.NoError(tb, err)
	return b
}

// query is the schema.Query the proxy builds for an ad-hoc or prepared
// statement (proxy.(*Server).plan).
func query(sql string) *schema.Query {
	pos := schema.Pos{File: "<sql>", Line: 1, Col: 1}
	return &schema.Query{Name: "proxy", Cmd: schema.CmdMany, SQL: sql, AllowFullRoute: true, Pos: pos, SQLPos: pos}
}

// TestPlannerRoutesLikeMod checks the route the benchmarks time: id MOD 2
// picks the unit of ds_<id%2>.
func TestPlannerRoutesLikeMod(t *testing.T) {
	b := builder(t)
	p, err := b.Build(query(pointSelect))
	require.NoError(t, err)
	for _, id := range []int32{0, 1, 2, 7, 10000} {
		units, err := b.Units(p, []runtime.Value{runtime.Int(id)})
		require.NoError(t, err)
		require.Len(t, units, 1)
		u := p.Route.Units[units[0]]
		require.Equal(t, "ds_"+string(rune('0'+id%2)), p.Route.DataSources[u.DataSource])
	}
}

var sinkUnits []int

// BenchmarkProxyPlanner: plan-miss is the planning of the sysbench point
// select from its text (parse, resolve, route analysis, rewrite of every
// unit), which the proxy does once per distinct statement text; route-hit is
// the run-time route of the cached plan for one id (Builder.Units), which the
// proxy does on every execution: 0 allocs/op (one value of the one sharding
// column takes runtime.ShardingTable.PreciseColumn and a shared unit list). Generated code does neither: its route is
// shardrt.Mod and an array index, timed by examples/orders
// BenchmarkRouteGetOrder/route.
func BenchmarkProxyPlanner(b *testing.B) {
	bl := builder(b)
	b.Run("plan-miss", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := bl.Build(query(pointSelect)); err != nil {
				b.Fatal(err)
			}
		}
	})
	p, err := bl.Build(query(pointSelect))
	require.NoError(b, err)
	params := []runtime.Value{runtime.Int(0)}
	b.Run("route-hit", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			params[0] = runtime.Int(int32(i & 0xffff))
			u, err := bl.Units(p, params)
			if err != nil {
				b.Fatal(err)
			}
			sinkUnits = u
		}
	})
}

// TestUnitsIntegerKindsAllocate: an Integer parameter of an integer sharding
// column (routed as a Long, plan.asLong) costs Builder.Units no more
// allocations than a Long one: the conversion is done in place.
func TestUnitsIntegerKindsAllocate(t *testing.T) {
	b := builder(t)
	p, err := b.Build(query(pointSelect))
	require.NoError(t, err)
	allocs := func(v runtime.Value) float64 {
		return testing.AllocsPerRun(200, func() {
			if _, err := b.Units(p, []runtime.Value{v}); err != nil {
				t.Fatal(err)
			}
		})
	}
	require.Equal(t, allocs(runtime.Long(-7)), allocs(runtime.Int(-7)))
}

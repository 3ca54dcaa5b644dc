package runtime_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

// BenchmarkQueryRowOverhead runs the same one-row query on ds_0 directly on
// its *sql.DB and through the executor, so allocs/op and ns/op of the wrapper
// can be compared in one run (the round trip to MariaDB dominates ns/op).
func BenchmarkQueryRowOverhead(b *testing.B) {
	db, src := openTestSources(b, "")
	_, observed := openTestSources(b, "", shardrt.WithObserver(shardrt.Observer(nopObserver{})))
	pool, ok := db.Pool("ds_0")
	require.True(b, ok)
	ctx := context.Background()
	const query = "SELECT ?"
	unit := shardrt.RouteUnit{DataSource: 0, SQL: query}
	var key int64 = 1 << 40

	b.Run("sql.DB", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v int64
			if err := pool.QueryRowContext(ctx, query, key).Scan(&v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Sources", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v int64
			if err := src.QueryRow(ctx, &testStmt, unit, key).Scan(&v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Sources/observer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v int64
			if err := observed.QueryRow(ctx, &testStmt, unit, key).Scan(&v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("QueryUnits/1", func(b *testing.B) {
		b.ReportAllocs()
		units := []shardrt.RouteUnit{unit}
		args := []any{key}
		for b.Loop() {
			if _, err := shardrt.QueryUnits(ctx, src, &testStmt, units, args, scanInt64); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("QueryUnits/4", func(b *testing.B) {
		b.ReportAllocs()
		units := []shardrt.RouteUnit{unit, {DataSource: 1, SQL: query}, {DataSource: 2, SQL: query}, {DataSource: 3, SQL: query}}
		args := []any{key}
		for b.Loop() {
			if _, err := shardrt.QueryUnits(ctx, src, &testStmt, units, args, scanInt64); err != nil {
				b.Fatal(err)
			}
		}
	})
}

type nopObserver struct{}

func (nopObserver) Observe(context.Context, shardrt.Event) {}

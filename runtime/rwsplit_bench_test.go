package runtime_test

import (
	"context"
	"testing"

	shardrt "github.com/shardgen/shardgen/runtime"
)

// BenchmarkReadHeavy measures a read-heavy workload (9 reads : 1 write,
// parallel) on read/write group rw_0: reads on the replica vs every
// statement on the primary (the Primary view). Compare ns/op of the two.
func BenchmarkReadHeavy(b *testing.B) {
	ctx := context.Background()
	db := openRW(b, shardrt.TxReadDynamic)
	src, err := db.Sources([]string{"rw_0"})
	if err != nil {
		b.Fatal(err)
	}
	p, _ := db.Pool("ds_0")
	if _, err := p.Exec("CREATE TABLE IF NOT EXISTS rw_bench (id BIGINT PRIMARY KEY, v BIGINT)"); err != nil {
		b.Fatal(err)
	}
	read := shardrt.RouteUnit{DataSource: 0, SQL: "SELECT SQL_NO_CACHE COUNT(*), SUM(v) FROM rw_bench"}
	write := shardrt.RouteUnit{DataSource: 0, SQL: "REPLACE INTO rw_bench VALUES (?, ?)"}
	for _, mode := range []struct {
		name string
		src  *shardrt.Sources
	}{{"primary-only", src.Primary()}, {"with-replica", src}} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				var i int64
				for pb.Next() {
					i++
					if i%10 == 0 {
						if _, err := mode.src.Exec(ctx, nil, write, i%1000, i); err != nil {
							b.Error(err)
							return
						}
						continue
					}
					var n, s any
					if err := mode.src.QueryRow(ctx, nil, read).Scan(&n, &s); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// blackholeSources opens ds_0 (a test server) and ds_1 at addr, a data
// source that never answers, with the YAML body keys of ds_1 after its
// url (e.g. "?connectTimeout=1000"), and returns both as Sources.
func blackholeSources(t *testing.T, addr, params, keys string) *shardrt.Sources {
	t.Helper()
	body := "    url: jdbc:mysql://" + addr + "/ds_1" + params + "\n    username: u\n    maxPoolSize: 4\n" + keys
	cfg, err := shardrt.LoadConfig(writeTestYAML(t, "", "ds_blackhole", body))
	require.NoError(t, err)
	db, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	src, err := db.Sources([]string{"ds_0", "ds_blackhole"})
	require.NoError(t, err)
	return src
}

// boundedError runs fn and checks its error text and that it came within
// max: a bound on a hang (or on a wait repeated), generous enough for a
// loaded machine, not a performance assertion.
func boundedError(t *testing.T, what, want string, max time.Duration, fn func(ctx context.Context) error) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	err := fn(ctx)
	took := time.Since(start)
	require.EqualError(t, err, want, what)
	require.Less(t, took, max, what)
	t.Logf("%s: %v", what, took)
	return took
}

// TestBlackholedDataSourceConnect: a data source that never answers
// (accepts and stays silent, or never completes the TCP handshake) fails
// each kind of statement of generated code once, within about its
// connectTimeout (1 s here; the bound is 1.8 s where the wait used to be
// repeated), with an error naming the data source and the key: a
// statement with arguments (the prepared-statement cache used to wait a
// second time running it unprepared), the first statement of a
// single-shard and of a distributed transaction (whose wait for a pool
// connection used to end as "no connection available in the data
// source's pool" when it equals the connect timeout), and a reserved
// session's.
func TestBlackholedDataSourceConnect(t *testing.T) {
	const want = "data source ds_blackhole timed out: no connection within its connectTimeout of 1000 ms"
	for _, hole := range []struct{ name, addr string }{
		{"silent", testdb.SilentListener(t)},
		{"never accepts", testdb.FullListener(t)},
	} {
		for _, keys := range []string{"", "    connectionTimeoutMilliseconds: 1000\n"} {
			t.Run(hole.name+"/"+keys, func(t *testing.T) {
				src := blackholeSources(t, hole.addr, "?connectTimeout=1000&socketTimeout=1000", keys)
				u := shardrt.RouteUnit{DataSource: 1, SQL: "INSERT INTO t_x (id) VALUES (?)"}
				for _, q := range []struct {
					what string
					run  func(ctx context.Context) error
				}{
					{"exec with arguments", func(ctx context.Context) error {
						_, err := src.Exec(ctx, nil, u, 1)
						return err
					}},
					{"single-shard transaction", func(ctx context.Context) error {
						tx := src.BeginTx(ctx, nil)
						defer func() { _ = tx.Rollback() }()
						_, err := tx.Exec(ctx, nil, u, 1)
						return err
					}},
					{"distributed transaction", func(ctx context.Context) error {
						tx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxLocal})
						require.NoError(t, err)
						defer func() { _ = tx.Rollback() }()
						_, err = tx.Exec(ctx, nil, u, 1)
						return err
					}},
					{"reserved", func(ctx context.Context) error {
						res := src.Reserve()
						defer func() { _ = res.Close() }()
						_, err := res.Exec(ctx, nil, u, 1)
						return err
					}},
				} {
					boundedError(t, q.what, want, 1800*time.Millisecond, q.run)
				}
			})
		}
	}
}

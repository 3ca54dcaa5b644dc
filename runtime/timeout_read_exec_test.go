package runtime_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// TestSocketTimeoutNamesIt: a statement of generated code whose answer
// does not come within the data source's socket timeout fails with the
// data source's *TimeoutError ("... no answer within its socketTimeout of
// 300 ms"), not go-sql-driver's "invalid connection": before the first
// packet of the answer, with and without arguments (prepared), inside a
// transaction, and while the rows arrive (a row of 100 kB, which the
// server sends before it sleeps on the next). The URL's socketTimeout and
// the DSN's readTimeout are named as configured. The next statement on the
// data source runs. go-sql-driver's own lines about the broken connection
// go to slog at level Debug, naming the data source, not to stderr.
func TestSocketTimeoutNamesIt(t *testing.T) {
	var logged bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })
	cfg := testdb.Config("ds_0")
	for _, ds := range []struct{ body, key string }{
		{"    url: jdbc:mysql://" + cfg.Addr + "/" + cfg.DBName + "?socketTimeout=300\n    username: " + cfg.User + "\n    password: " + cfg.Passwd + "\n", "socketTimeout"},
		{"    dsn: " + cfg.User + ":" + cfg.Passwd + "@tcp(" + cfg.Addr + ")/" + cfg.DBName + "?readTimeout=300ms\n", "readTimeout"},
	} {
		t.Run(ds.key, func(t *testing.T) {
			want := "data source ds_slow timed out: no answer within its " + ds.key + " of 300 ms"
			c, err := shardrt.LoadConfig(writeTestYAML(t, "", "ds_slow", ds.body))
			require.NoError(t, err)
			db, err := shardrt.Open(c)
			require.NoError(t, err)
			t.Cleanup(func() { _ = db.Close() })
			src, err := db.Sources([]string{"ds_slow"})
			require.NoError(t, err)
			ctx := context.Background()
			check := func(what string, err error) {
				t.Helper()
				require.EqualError(t, err, want, what)
				var te *shardrt.TimeoutError
				require.ErrorAs(t, err, &te, what)
				require.Equal(t, 300*time.Millisecond, te.Limit, what)
			}

			_, err = src.Exec(ctx, nil, shardrt.RouteUnit{SQL: "DO SLEEP(2)"})
			check("exec", err)
			_, err = src.Exec(ctx, nil, shardrt.RouteUnit{SQL: "DO SLEEP(?)"}, 2)
			check("exec with an argument", err)
			var n int
			check("query row", src.QueryRow(ctx, nil, shardrt.RouteUnit{SQL: "SELECT SLEEP(?)"}, 2).Scan(&n))
			check("transaction", src.WithTx(ctx, nil, func(tx *shardrt.Tx) error {
				_, err := tx.Exec(ctx, nil, shardrt.RouteUnit{SQL: "DO SLEEP(2)"})
				return err
			}))

			rows, err := src.Query(ctx, nil, shardrt.RouteUnit{SQL: "SELECT seq, IF(seq = 2, SLEEP(2), REPEAT('x', 100000)) FROM seq_1_to_2"})
			require.NoError(t, err)
			require.True(t, rows.Next(), "the first row came before the sleep")
			var seq int
			var s string
			require.NoError(t, rows.Scan(&seq, &s))
			require.Equal(t, strings.Repeat("x", 100000), s)
			require.False(t, rows.Next())
			check("rows", rows.Err())
			require.NoError(t, rows.Close())

			require.NoError(t, src.QueryRow(ctx, nil, shardrt.RouteUnit{SQL: "SELECT 7"}).Scan(&n))
			require.Equal(t, 7, n)
		})
	}
	require.Contains(t, logged.String(), "level=DEBUG msg=go-sql-driver data_source=ds_slow")
	require.Contains(t, logged.String(), "i/o timeout")
}

package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// TestDataSourceTimeoutNamesIt: a data source that accepts connections
// and never answers fails a statement of generated code (runtime.Sources)
// after its connect timeout, or after its socketTimeout when that is
// shorter (go-sql-driver bounds the handshake's reads by it), with an
// error naming it, and does not wait twice.
func TestDataSourceTimeoutNamesIt(t *testing.T) {
	addr := testdb.SilentListener(t)
	for _, tc := range []struct {
		body  string
		want  string
		limit time.Duration
	}{
		{"    url: jdbc:mysql://" + addr + "/ds_0\n    username: u\n    connectionTimeoutMilliseconds: 400\n",
			"data source ds_silent timed out: no connection within its connectionTimeoutMilliseconds of 400 ms", 400 * time.Millisecond},
		{"    url: jdbc:mysql://" + addr + "/ds_0?connectTimeout=300\n    username: u\n",
			"data source ds_silent timed out: no connection within its connectTimeout of 300 ms", 300 * time.Millisecond},
		{"    url: jdbc:mysql://" + addr + "/ds_0?socketTimeout=200\n    username: u\n    connectionTimeoutMilliseconds: 3000\n",
			"data source ds_silent timed out: no answer within its socketTimeout of 200 ms", 200 * time.Millisecond},
		{"    dsn: u@tcp(" + addr + ")/ds_0?timeout=300ms\n",
			"data source ds_silent timed out: no connection within its timeout of 300 ms", 300 * time.Millisecond},
	} {
		cfg, err := shardrt.LoadConfig(writeTestYAML(t, "", "ds_silent", tc.body))
		require.NoError(t, err)
		db, err := shardrt.Open(cfg)
		require.NoError(t, err)
		src, err := db.Sources([]string{"ds_silent"})
		require.NoError(t, err)
		start := time.Now()
		_, err = src.Exec(context.Background(), nil, shardrt.RouteUnit{DataSource: 0, SQL: "DO 1"})
		took := time.Since(start)
		require.EqualError(t, err, tc.want)
		var te *shardrt.TimeoutError
		require.ErrorAs(t, err, &te)
		require.Equal(t, "ds_silent", te.DataSource)
		require.GreaterOrEqual(t, took, tc.limit-20*time.Millisecond)
		require.Less(t, took, tc.limit+500*time.Millisecond)
		require.NoError(t, db.Close())
	}
}

package proxy

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/schema"
)

// TestCheckAutoIncZero: an INSERT giving an AUTO_INCREMENT sharding column
// 0 or NULL is refused, from a literal or from a client parameter; the
// statement is parsed once per plan, not per execution.
func TestCheckAutoIncZero(t *testing.T) {
	cfg, err := ParseConfig("ai.yaml", []byte(cfgHead))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("ai.sql", []byte("CREATE TABLE t_order (secret INT INVISIBLE, order_id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT);"))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	s, err := NewServer(cfg, Options{Insecure: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.db.Close() })
	const msg = "INSERT of 0 or NULL into the AUTO_INCREMENT sharding column order_id of t_order: the back end would assign an id of another shard; omit the column with a keyGenerateStrategy, or give explicit ids (sysbench: --auto_inc=off)"
	for _, tc := range []struct {
		sql    string
		client []any
		err    bool
	}{
		{"INSERT INTO t_order (order_id, v) VALUES (0, 1)", nil, true},
		{"INSERT INTO t_order (order_id, v) VALUES (7, 1)", nil, false},
		{"INSERT INTO t_order (v, order_id) VALUES (?, ?)", []any{int64(0), int64(0)}, true},
		{"INSERT INTO t_order (v, order_id) VALUES (?, ?)", []any{int64(0), int64(5)}, false},
		{"INSERT INTO t_order (v, order_id) VALUES (?, ?)", []any{int64(0), nil}, true},
		{"INSERT INTO t_order (v, order_id) VALUES (?, ?), (?, ?)", []any{int64(1), int64(2), int64(3), "00"}, true},
		{"INSERT INTO t_order (v, order_id) VALUES (?, ?), (?, ?)", []any{int64(1), int64(2), int64(3), uint64(4)}, false},
		// Without a column list the values go to the visible columns.
		{"INSERT INTO t_order VALUES (0, 1)", nil, true},
		{"INSERT INTO t_order VALUES (?, ?)", []any{nil, int64(1)}, true},
		{"INSERT INTO t_order VALUES (?, ?)", []any{int64(8), int64(0)}, false},
	} {
		p, err := s.plan(context.Background(), tc.sql)
		require.NoError(t, err, tc.sql)
		for range 2 { // the second call uses the cached check
			err = s.checkAutoIncZero(p, tc.client)
			if tc.err {
				require.EqualError(t, err, msg+" (errno 1235) (sqlstate 42000)", tc.sql)
			} else {
				require.NoError(t, err, tc.sql)
			}
		}
	}
}

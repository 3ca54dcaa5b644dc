package proxy

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/collations"

	"github.com/shardgen/shardgen/runtime"
)

// fpConnCharset is fpConn with the handshake's collation id coll, and the
// SET statements setup run first (on the reference database too).
func fpConnCharset(t *testing.T, srv *Server, coll uint32, setup ...string) *mysql.Conn {
	t.Helper()
	p := fpParams(srv)
	p.Charset = collations.ID(coll)
	nc, err := mysql.Connect(context.Background(), &p)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	for _, q := range setup {
		_, err := nc.ExecuteFetch(q, 0, false)
		require.NoError(t, err, q)
	}
	return nc
}

// TestFastPathSettings: sessions whose settings differ from the pools'
// (a latin1 or utf8mb3 handshake, SET time_zone) take the fast path on
// the packet pools of their settings key (the pass-through metric counts
// them) and answer as the database/sql path and the reference database do:
// latin1 text and literals, CJK text through utf8mb3, times in the
// session's time zone. Sessions with different settings never see each
// other's: interleaved, each answers with its own time zone, on a keyed
// pool of its own.
func TestFastPathSettings(t *testing.T) {
	fast, slow := fpEnv(t)
	type conn struct {
		coll  uint32
		setup []string
	}
	tz5 := "SET time_zone = '+05:00'"
	tzm3 := "SET time_zone = '-03:00'"
	cases := []struct {
		name    string
		c       conn
		queries []string
	}{
		{"latin1", conn{8, nil}, []string{
			"SELECT id, l1, name, '\xe9t\xe9' AS x FROM fp_item WHERE id = 3",
			"SELECT * FROM fp_item WHERE id = 1",
			"SELECT @@character_set_client, @@character_set_results, 'caf\xe9'",
		}},
		{"utf8mb3", conn{33, nil}, []string{
			"SELECT id, name, l1, '中文' AS x FROM fp_item WHERE id = 3",
			"SELECT @@character_set_results",
		}},
		{"time_zone", conn{collationUTF8MB4, []string{tz5}}, []string{
			"SELECT id, created, UNIX_TIMESTAMP(created), FROM_UNIXTIME(0) FROM fp_item WHERE id = 1",
			"SELECT @@time_zone, FROM_UNIXTIME(86400)",
		}},
	}
	for _, tc := range cases {
		fc := fpConnCharset(t, fast, tc.c.coll, tc.c.setup...)
		sc := fpConnCharset(t, slow, tc.c.coll, tc.c.setup...)
		rc := fpConnCharset(t, nil, tc.c.coll, tc.c.setup...)
		exchange(t, fc, "SELECT 1") // applies the handshake's character set
		for _, q := range tc.queries {
			exchange(t, fc, q) // learned on the database/sql path
			before := passThroughCount(t, fast)
			got := exchange(t, fc, q)
			requirePassThrough(t, fast, before+1, tc.name+": "+q)
			want, ref := exchange(t, sc, q), exchange(t, rc, q)
			require.Equal(t, want.other, got.other, "%s: %s", tc.name, q)
			// The rows as the reference database sends them (the end
			// packet carries the proxy's status flags).
			require.Equal(t, ref.other[:len(ref.other)-1], got.other[:len(got.other)-1], "%s: %s", tc.name, q)
			require.Len(t, got.cols, len(ref.cols))
			for i := range got.cols {
				g, grest, _ := columnFields(got.cols[i])
				r, rrest, _ := columnFields(ref.cols[i])
				w, _, _ := columnFields(want.cols[i])
				// The name as the database/sql path gives it (which
				// differs from the reference's for a non-ASCII latin1
				// literal as the name: not the fast path's doing).
				require.Equal(t, string(w[4]), string(g[4]), "%s: %s column %d name", tc.name, q, i)
				if strings.IndexFunc(string(r[4]), func(r rune) bool { return r >= 0x80 }) < 0 {
					require.Equal(t, string(r[4]), string(g[4]), "%s: %s column %d name", tc.name, q, i)
				}
				require.Equal(t, rrest, grest, "%s: %s column %d charset, type, flags", tc.name, q, i)
			}
		}
	}

	// Two time zones and the default, interleaved on the fast path.
	q := "SELECT UNIX_TIMESTAMP(created), @@time_zone FROM fp_item WHERE id = 1"
	conns := []*mysql.Conn{
		fpConnCharset(t, fast, collationUTF8MB4, tz5),
		fpConnCharset(t, fast, collationUTF8MB4, tzm3),
		fpConnCharset(t, fast, collationUTF8MB4),
	}
	refs := []*mysql.Conn{
		fpConnCharset(t, nil, collationUTF8MB4, tz5),
		fpConnCharset(t, nil, collationUTF8MB4, tzm3),
		fpConnCharset(t, nil, collationUTF8MB4),
	}
	for _, c := range conns {
		exchange(t, c, "SELECT 1")
		exchange(t, c, q)
	}
	for round := 0; round < 3; round++ {
		for i, c := range conns {
			before := passThroughCount(t, fast)
			got, want := exchange(t, c, q), exchange(t, refs[i], q)
			requirePassThrough(t, fast, before+1, "session "+strconv.Itoa(i))
			require.Equal(t, want.other[:len(want.other)-1], got.other[:len(got.other)-1], "session %d round %d", i, round)
		}
	}
	keys := fast.keyedStats(1) // id 1 routes to ds_1
	var tzKeys []string
	for k := range keys {
		if strings.Contains(k, "time_zone") {
			tzKeys = append(tzKeys, k)
		}
	}
	require.Len(t, tzKeys, 2, "one keyed packet pool per time zone: %v", keys)
}

// TestFastPathSettingsKeysBounded: sessions with ever new settings keep
// at most runtime.MaxSettingsPools keyed packet pools, the least recently
// used key closed first, and each answers in its own time zone as the
// reference database does.
func TestFastPathSettingsKeysBounded(t *testing.T) {
	fast, _ := fpEnv(t)
	q := "SELECT UNIX_TIMESTAMP(created), @@time_zone FROM fp_item WHERE id = 1"
	tz := func(i int) string { return fmt.Sprintf("SET time_zone = '+%02d:00'", i) }
	n := runtime.MaxSettingsPools + 2
	for i := 0; i < n; i++ {
		c := fpConnCharset(t, fast, collationUTF8MB4, tz(i))
		ref := fpConnCharset(t, nil, collationUTF8MB4, tz(i))
		exchange(t, c, "SELECT 1")
		exchange(t, c, q)
		before := passThroughCount(t, fast)
		got, want := exchange(t, c, q), exchange(t, ref, q)
		requirePassThrough(t, fast, before+1, tz(i))
		require.Equal(t, want.other[:len(want.other)-1], got.other[:len(got.other)-1], tz(i))
		c.Close() // its settings pools stay open, unused
		ref.Close()
	}
	keys := fast.keyedStats(1)
	require.Len(t, keys, runtime.MaxSettingsPools, "%v", keys)
	for i := 0; i < n; i++ {
		_, open := keys[tz(i)]
		require.Equal(t, i >= n-runtime.MaxSettingsPools, open, "%s: %v", tz(i), keys)
	}
}

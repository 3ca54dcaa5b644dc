package runtime

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// serverCollations returns every collation of the test server with its
// character set, as SHOW COLLATION lists it (MariaDB 10.10+'s
// charset-less uca1400 entries are skipped: each is listed again with its
// character set prefix).
func serverCollations(t *testing.T, db *sql.DB) [][2]string {
	rs, err := db.Query("SELECT COLLATION_NAME, CHARACTER_SET_NAME FROM information_schema.COLLATIONS WHERE CHARACTER_SET_NAME IS NOT NULL ORDER BY 1")
	require.NoError(t, err)
	defer rs.Close()
	var out [][2]string
	for rs.Next() {
		var c [2]string
		require.NoError(t, rs.Scan(&c[0], &c[1]))
		out = append(out, c)
	}
	require.NoError(t, rs.Err())
	require.Greater(t, len(out), 100)
	return out
}

// TestMultiLevel checks WeightCollationError's multi-level rule against the server for every
// collation: a collation has several levels exactly when the weight string
// of "ab" is not the weights of "a" followed by those of "b".
func TestMultiLevel(t *testing.T) {
	db := testdb.Open(t, "ds_0")
	for _, c := range serverCollations(t, db) {
		w := func(s string) string {
			return fmt.Sprintf("HEX(WEIGHT_STRING(CONVERT('%s' USING %s) COLLATE `%s`))", s, c[1], c[0])
		}
		var ab, a, b string
		require.NoError(t, db.QueryRow("SELECT "+w("ab")+", "+w("a")+", "+w("b")).Scan(&ab, &a, &b), c[0])
		err := WeightCollationError(c[0])
		multi := err != nil && strings.Contains(err.Error(), "levels")
		require.Equal(t, ab != a+b, multi, "%s: WEIGHT_STRING('ab') = %s, 'a' %s, 'b' %s", c[0], ab, a, b)
	}
}

// TestWeightStringsMatchServer checks the merge engine's comparison of
// server sort keys (compareWeights, appendWeightKey, fed with the two
// columns the planner adds) against the server's STRCMP for every
// single-level collation the test server has: every pair of the strings of
// collationCorpus (and some CJK and Cyrillic), converted to the
// collation's character set, must compare as STRCMP says, with equal GROUP
// BY keys exactly for STRCMP 0 — except for the collations
// WeightCollationError refuses, each of which must disagree somewhere.
func TestWeightStringsMatchServer(t *testing.T) {
	ctx := context.Background()
	db := testdb.Open(t, "ds_0")
	collations := serverCollations(t, db) // before Conn: the test pool may hold one connection
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "CREATE TEMPORARY TABLE t_weight_corpus (id INT PRIMARY KEY, s VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)")
	require.NoError(t, err)
	corpus := append(slices.Clone(collationCorpus), "中文", "日本語", "한국어", "Ёлка", "a  b", "a\tb", "a \t")
	for i, s := range corpus {
		_, err := conn.ExecContext(ctx, "INSERT INTO t_weight_corpus VALUES (?, ?)", i, s)
		require.NoError(t, err)
	}
	checked := 0
	for _, c := range collations {
		werr := WeightCollationError(c[0])
		if werr != nil && strings.Contains(werr.Error(), "levels") {
			continue
		}
		x := fmt.Sprintf("CONVERT(s USING %s) COLLATE `%s`", c[1], c[0])
		type keyed struct{ w, pad []byte }
		keys := make([]keyed, len(corpus))
		rs, err := conn.QueryContext(ctx, fmt.Sprintf(`SELECT id, WEIGHT_STRING(x), IF(LEFT(x,0) = ' ', WEIGHT_STRING(CONCAT(LEFT(x,0), ' ')), '')
			FROM (SELECT id, %s AS x FROM t_weight_corpus) d`, x))
		require.NoError(t, err, c[0])
		for rs.Next() {
			var id int
			var k keyed
			require.NoError(t, rs.Scan(&id, &k.w, &k.pad))
			keys[id] = k
		}
		require.NoError(t, rs.Err())
		require.NoError(t, rs.Close())
		rs, err = conn.QueryContext(ctx, fmt.Sprintf("SELECT a.id, b.id, STRCMP(%s, %s) FROM t_weight_corpus a, t_weight_corpus b",
			strings.ReplaceAll(x, "(s ", "(a.s "), strings.ReplaceAll(x, "(s ", "(b.s ")))
		require.NoError(t, err, c[0])
		n, bad := 0, ""
		for rs.Next() {
			var i, j, want int
			require.NoError(t, rs.Scan(&i, &j, &want))
			a, b := keys[i], keys[j]
			ka, kb := appendWeightKey(nil, a.w, a.pad), appendWeightKey(nil, b.w, b.pad)
			if got := compareWeights(a.w, b.w, a.pad); (got != want || (want == 0) != (string(ka) == string(kb))) && bad == "" {
				bad = fmt.Sprintf("%q vs %q: STRCMP %d, weights %x %x (pad %x) compare %d", corpus[i], corpus[j], want, a.w, b.w, a.pad, got)
			}
			n++
		}
		require.NoError(t, rs.Err())
		require.NoError(t, rs.Close())
		if werr == nil {
			require.Empty(t, bad, c[0])
		} else {
			require.NotEmpty(t, bad, "%s is refused, but its weights agree with STRCMP", c[0])
		}
		require.Equal(t, len(corpus)*len(corpus), n)
		checked++
	}
	t.Logf("%d single-level collations agree with the server on every pair of %d strings", checked, len(corpus))
}

// BenchmarkOrderByText measures the ORDER BY merge of text over 4 data
// nodes (2,000 rows each, read from MariaDB once, merged from memory):
// in process by utf8mb4_general_ci, and by the server's WEIGHT_STRING
// under utf8mb4_general_ci and utf8mb4_unicode_ci. It reports merged rows
// per second and the bytes per row the nodes send for the key (value,
// sort key and pad weight).
func BenchmarkOrderByText(b *testing.B) {
	ctx := context.Background()
	texts := []string{"alpha", "Beta", "élan", "Zulu", "中文", "日本語", "한국어", "Ёлка", "😀", "straße", "a  ", "", "Ångström", "naïve", "Œuvre"}
	rng := rand.New(rand.NewPCG(3, 4))
	const perNode = 2000
	nodes := make([][][]Cell, 4)
	for _, tc := range []struct {
		name, coll string
		weight     bool
	}{
		{"general_ci/in-process", "utf8mb4_general_ci", false},
		{"general_ci/weight_string", "utf8mb4_general_ci", true},
		{"unicode_ci/weight_string", "utf8mb4_unicode_ci", true},
	} {
		kinds := []ColumnKind{{Type: ColumnString, Collation: CollationUTF8MB4GeneralCI}}
		sel := "s"
		if tc.weight {
			kinds = []ColumnKind{{Type: ColumnString, Weight: 1}, {Type: ColumnBytes}, {Type: ColumnBytes}}
			sel = "s, WEIGHT_STRING(s), IF(LEFT(s,0) = ' ', WEIGHT_STRING(CONCAT(LEFT(s,0), ' ')), '')"
		}
		spec := &MergeSpec{Columns: len(kinds), Visible: 1, Kinds: kinds, OrderBy: []SortKey{{Column: 0}}, Count: NoLimit}
		var bytesSent int
		for i := range nodes {
			db := testdb.Open(b, "ds_"+strconv.Itoa(i))
			_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS t_bench_text")
			require.NoError(b, err)
			_, err = db.ExecContext(ctx, "CREATE TABLE t_bench_text (id INT PRIMARY KEY, s VARCHAR(40) CHARACTER SET utf8mb4 COLLATE "+tc.coll+")")
			require.NoError(b, err)
			var q strings.Builder
			q.WriteString("INSERT INTO t_bench_text VALUES ")
			args := make([]any, 0, 2*perNode)
			for id := range perNode {
				if id > 0 {
					q.WriteString(",")
				}
				q.WriteString("(?, ?)")
				args = append(args, id, texts[rng.IntN(len(texts))]+texts[rng.IntN(len(texts))])
			}
			_, err = db.ExecContext(ctx, q.String(), args...)
			require.NoError(b, err)
			rs, err := db.QueryContext(ctx, "SELECT "+sel+" FROM t_bench_text ORDER BY s")
			require.NoError(b, err)
			nodes[i], err = ReadAll(NewSQLRows(rs, kinds))
			require.NoError(b, err)
			for _, r := range nodes[i] {
				for _, c := range r {
					bytesSent += len(c.Bytes())
				}
			}
			_, err = db.ExecContext(ctx, "DROP TABLE t_bench_text")
			require.NoError(b, err)
		}
		b.Run(tc.name, func(b *testing.B) {
			rows := 0
			for b.Loop() {
				srcs := make([]RowSource, len(nodes))
				for i := range nodes {
					srcs[i] = NewBufferedRows(nodes[i])
				}
				m, err := Merge(spec, nil, srcs)
				require.NoError(b, err)
				n, err := ReadAll(m)
				require.NoError(b, err)
				rows += len(n)
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(bytesSent)/float64(4*perNode), "key-bytes/row")
		})
	}
}

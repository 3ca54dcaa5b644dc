package runtime

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// This file checks the merge engine against MariaDB (the local servers of
// `make db-up`): what go-sql-driver really returns, the collation tables,
// and merged results against one unsharded reference table.

// TestSQLRowsDecode reads every column type through NewSQLRows over the
// text protocol and the binary (prepared) protocol, with parseTime off and
// on, and checks the decoded cells.
func TestSQLRowsDecode(t *testing.T) {
	ctx := context.Background()
	db := testdb.Open(t, "ds_0")
	const table = "t_merge_decode"
	_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+table)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `CREATE TABLE `+table+` (id INT PRIMARY KEY, i BIGINT, u BIGINT UNSIGNED, ui INT UNSIGNED,
		d DECIMAL(10,2), f FLOAT, g DOUBLE, s VARCHAR(20) COLLATE utf8mb4_general_ci, b VARBINARY(4),
		dt DATE, ts DATETIME(6), tm TIME(1), y YEAR) DEFAULT CHARSET utf8mb4`)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+table) })
	_, err = db.ExecContext(ctx, `INSERT INTO `+table+` VALUES
		(1, -9223372036854775808, 18446744073709551615, 4294967295, -12.50, 3.3, 1.5, 'Straße', x'00ff', '2024-02-29', '2024-02-29 13:04:05.123456', '-838:59:59.0', 2024),
		(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '0000-00-00', NULL, NULL, NULL)`)
	require.NoError(t, err)

	kinds := []ColumnKind{kInt, kInt, kUint, kInt, kDec, kFloat, kFloat, kGeneral, kBytes, kTime, kTime, {Type: ColumnDuration}, kInt}
	want := [][]string{
		{"1", "-9223372036854775808", "18446744073709551615", "4294967295", "-12.50", "3.3", "1.5", "Straße", "\x00\xff", "2024-02-29", "2024-02-29 13:04:05", "-838:59:59.0", "2024"},
		{"2", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "0001-01-01", "NULL", "NULL", "NULL"},
	}
	for _, parseTime := range []bool{false, true} {
		pool := db
		if parseTime {
			pool = testdb.OpenWith(t, "ds_0", map[string]string{"parseTime": "true"})
		}
		for _, binary := range []bool{false, true} {
			q, args := "SELECT * FROM "+table+" ORDER BY id", []any(nil)
			if binary {
				q, args = "SELECT * FROM "+table+" WHERE id > ? ORDER BY id", []any{0}
			}
			rs, err := pool.QueryContext(ctx, q, args...)
			require.NoError(t, err)
			src := NewSQLRows(rs, kinds)
			got, err := ReadAll(src)
			require.NoError(t, err, "parseTime %v binary %v", parseTime, binary)
			require.NoError(t, src.Close())
			text := make([][]string, len(got))
			for i, r := range got {
				for _, c := range r {
					text[i] = append(text[i], cellText(c))
				}
			}
			require.Equal(t, want, text, "parseTime %v binary %v", parseTime, binary)
			require.Equal(t, float32(3.3), got[0][5].Value(), "FLOAT stays a float32")
			require.Equal(t, uint64(math.MaxUint64), got[0][2].Value())
			require.Equal(t, time.Date(2024, 2, 29, 13, 4, 5, 123456000, time.UTC), got[0][10].Time())
			_, err = src.Next()
			require.Equal(t, io.EOF, err, "EOF again after the end")
		}
	}

	// Errors: the wrong number of kinds, and a value the kind refuses.
	rs, err := db.QueryContext(ctx, "SELECT id, s FROM "+table)
	require.NoError(t, err)
	_, err = NewSQLRows(rs, kinds).Next()
	require.EqualError(t, err, "runtime.SQLRows: the result has 2 columns, the merge spec 13")
	rs, err = db.QueryContext(ctx, "SELECT id, s FROM "+table+" ORDER BY id")
	require.NoError(t, err)
	src := NewSQLRows(rs, []ColumnKind{kInt, kInt})
	_, err = src.Next()
	require.EqualError(t, err, `column index 1: runtime.DecodeCell: Int column got text "Straße", not an int64`)
	_, again := src.Next()
	require.Equal(t, err, again)
}

// TestGeneralCIMatchesServer compares generalWeight with MariaDB's
// WEIGHT_STRING(... COLLATE utf8mb4_general_ci) for every BMP code point.
func TestGeneralCIMatchesServer(t *testing.T) {
	db := testdb.OpenWith(t, "ds_0", map[string]string{"max_recursive_iterations": "100000"})
	rs, err := db.Query(`WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n+1 FROM s WHERE n < 65535)
		SELECT n, HEX(WEIGHT_STRING(CONVERT(CHAR(n USING ucs2) USING utf8mb4) COLLATE utf8mb4_general_ci))
		FROM s WHERE n < 0xD800 OR n > 0xDFFF`)
	require.NoError(t, err)
	defer rs.Close()
	checked := 0
	for rs.Next() {
		var n int
		var w string
		require.NoError(t, rs.Scan(&n, &w))
		want, err := strconv.ParseUint(w, 16, 32)
		require.NoError(t, err)
		require.Equal(t, uint32(want), generalWeight(rune(n)), "U+%04X", n)
		checked++
	}
	require.NoError(t, rs.Err())
	require.Equal(t, 0x10000-0x800, checked)
}

// TestCollationsMatchServer compares Collation.Compare with STRCMP on
// MariaDB for every pair of collationCorpus, for every collation the
// merge engine compares in process: they must agree on every pair.
func TestCollationsMatchServer(t *testing.T) {
	ctx := context.Background()
	db := testdb.Open(t, "ds_0")
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "CREATE TEMPORARY TABLE t_merge_corpus (id INT PRIMARY KEY, s VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)")
	require.NoError(t, err)
	for i, s := range collationCorpus {
		_, err := conn.ExecContext(ctx, "INSERT INTO t_merge_corpus VALUES (?, ?)", i, s)
		require.NoError(t, err)
	}
	for c := CollationBinary; int(c) < len(collationInfo); c++ {
		expr := "a.s COLLATE " + c.String()
		other := "b.s COLLATE " + c.String()
		if c == CollationBinary {
			expr, other = "CAST(a.s AS BINARY)", "CAST(b.s AS BINARY)"
		}
		rs, err := conn.QueryContext(ctx, "SELECT a.id, b.id, STRCMP("+expr+", "+other+") FROM t_merge_corpus a, t_merge_corpus b")
		require.NoError(t, err)
		var results [][3]int
		for rs.Next() {
			var r [3]int
			if err := rs.Scan(&r[0], &r[1], &r[2]); err != nil {
				rs.Close()
				require.NoError(t, err)
			}
			results = append(results, r)
		}
		require.NoError(t, rs.Err())
		require.NoError(t, rs.Close())
		require.Len(t, results, len(collationCorpus)*len(collationCorpus))
		for _, r := range results {
			i, j, want := r[0], r[1], r[2]
			a, b := collationCorpus[i], collationCorpus[j]
			require.Equal(t, want, c.Compare([]byte(a), []byte(b)), "%s: %q vs %q", c, a, b)
		}
	}
}

// TestMergeMatchesUnsharded spreads random rows over 4 data nodes (ds_0 …
// ds_3, id % 4, on both servers) and one unsharded reference table, runs
// each query on the reference and, rewritten as ShardingSphere rewrites
// it (§10), on every node, merges the nodes' results with Merge and
// compares: the definition of correct is the unsharded answer. The
// rewritten SQL and specs are written by hand here, as the planner would
// produce them.
func TestMergeMatchesUnsharded(t *testing.T) {
	ctx := context.Background()
	const table, ref = "t_merge_diff", "t_merge_diff_ref"
	ddl := func(name string) string {
		return "CREATE TABLE " + name + ` (id BIGINT PRIMARY KEY, g INT NULL,
			s VARCHAR(20) COLLATE utf8mb4_general_ci NULL, su VARCHAR(20) COLLATE utf8mb4_unicode_ci NULL,
			d DECIMAL(10,2) NULL, u BIGINT UNSIGNED NOT NULL, dt DATETIME NULL) DEFAULT CHARSET utf8mb4`
	}
	nodes := make([]*sql.DB, 4)
	for i := range nodes {
		nodes[i] = testdb.Open(t, "ds_"+strconv.Itoa(i))
	}
	refDB := nodes[0]
	for _, target := range []struct {
		db   *sql.DB
		name string
	}{{nodes[0], table}, {nodes[1], table}, {nodes[2], table}, {nodes[3], table}, {refDB, ref}} {
		_, err := target.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+target.name)
		require.NoError(t, err)
		_, err = target.db.ExecContext(ctx, ddl(target.name))
		require.NoError(t, err)
		t.Cleanup(func() { _, _ = target.db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+target.name) })
	}
	strs := []any{"abc", "ABC", "Abc ", "abd", "À", "a", "A", "ß", "ss", "s", "Straße", "strasse", "", " ", nil, "zz", "Zz", "æ", "ae", "Œuvre", "oeuvre",
		"中文", "日本語", "한국어", "Ёлка", "елка", "€", "–", "a\t", "a\t ", "😀", "😁"}
	rng := rand.New(rand.NewPCG(4, 2))
	pick := func(vals []any) any { return vals[rng.IntN(len(vals))] }
	for id := 1; id <= 400; id++ {
		var g, d, dt any
		if rng.IntN(8) > 0 {
			g = rng.IntN(12) - 3
		}
		if rng.IntN(6) > 0 {
			d = fmt.Sprintf("%d.%02d", rng.IntN(2000)-500, rng.IntN(100))
		}
		if rng.IntN(5) > 0 {
			dt = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(1000)) * time.Hour).Format("2006-01-02 15:04:05")
		}
		u := uint64(math.MaxUint64 - uint64(rng.IntN(1000)))
		args := []any{id, g, pick(strs), pick(strs), d, u, dt}
		for _, target := range []struct {
			db   *sql.DB
			name string
		}{{nodes[id%4], table}, {refDB, ref}} {
			_, err := target.db.ExecContext(ctx, "INSERT INTO "+target.name+" VALUES (?, ?, ?, ?, ?, ?, ?)", args...)
			require.NoError(t, err)
		}
	}

	kSU := ColumnKind{Type: ColumnString, Weight: 2} // by the server's WEIGHT_STRING
	for _, tc := range []struct {
		name    string
		query   string // on the reference; {t} is the table
		node    string // per node
		args    []any
		spec    MergeSpec
		ordered bool         // the row order is the answer (else compared as a multiset)
		result  []ColumnKind // the reference's column kinds, when not the spec's visible ones
	}{
		{
			name:  "order by collation, then id, LIMIT o, n",
			query: "SELECT id, s, d FROM {t} ORDER BY s, id LIMIT 30, 40",
			node:  "SELECT id, s, d FROM {t} ORDER BY s, id LIMIT 0, 70",
			spec: MergeSpec{Columns: 3, Visible: 3, Kinds: []ColumnKind{kInt, kGeneral, kDec},
				OrderBy: []SortKey{{Column: 1}, {Column: 0}}, Offset: LimitValue{Value: 30}, Count: LimitValue{Value: 40}},
			ordered: true,
		},
		{
			name:  "NULLs last in DESC, LIMIT ?, ?",
			query: "SELECT id, g, dt FROM {t} ORDER BY g DESC, dt, id LIMIT ?, ?",
			node:  "SELECT id, g, dt FROM {t} ORDER BY g DESC, dt, id LIMIT 0, ?",
			args:  []any{350, 100},
			spec: MergeSpec{Columns: 3, Visible: 3, Kinds: []ColumnKind{kInt, kInt, kTime},
				OrderBy: []SortKey{{Column: 1, Desc: true}, {Column: 2}, {Column: 0}},
				Offset:  LimitValue{Value: 0, Param: true}, Count: LimitValue{Value: 1, Param: true}},
			ordered: true,
		},
		{
			name:  "unicode_ci order by WEIGHT_STRING",
			query: "SELECT id, su FROM {t} ORDER BY su DESC, id",
			node:  "SELECT id, su, WEIGHT_STRING(su), IF(LEFT(su,0) = ' ', WEIGHT_STRING(CONCAT(LEFT(su,0), ' ')), '') FROM {t} ORDER BY su DESC, id",
			spec: MergeSpec{Columns: 4, Visible: 2, Kinds: []ColumnKind{kInt, kSU, kBytes, kBytes},
				OrderBy: []SortKey{{Column: 1, Desc: true}, {Column: 0}}, Count: NoLimit},
			ordered: true,
		},
		{
			name:  "stream group-by with every aggregate",
			query: "SELECT s, COUNT(*), SUM(d), MIN(d), MAX(id), AVG(d), MIN(dt) FROM {t} GROUP BY s ORDER BY s",
			node:  "SELECT s, COUNT(*), SUM(d), MIN(d), MAX(id), AVG(d), MIN(dt), COUNT(d), SUM(d) FROM {t} GROUP BY s ORDER BY s",
			spec: MergeSpec{Columns: 9, Visible: 7, Kinds: []ColumnKind{kGeneral, kInt, kDec, kDec, kInt, kDec, kTime, kInt, kDec},
				OrderBy: []SortKey{{Column: 0}}, GroupBy: []int{0}, StreamGroup: true,
				Aggregates: []AggregateSpec{{Column: 1, Func: AggCount}, {Column: 2, Func: AggSum}, {Column: 3, Func: AggMin},
					{Column: 4, Func: AggMax}, {Column: 5, Func: AggAvg, SumColumn: 8, CountColumn: 7, Scale: 6}, {Column: 6, Func: AggMin}},
				Count: NoLimit},
			ordered: true,
		},
		{
			name:  "memory group-by ordered by an aggregate, LIMIT",
			query: "SELECT g, COUNT(*) c, SUM(u) FROM {t} GROUP BY g ORDER BY c DESC, g LIMIT 5",
			node:  "SELECT g, COUNT(*) c, SUM(u) FROM {t} GROUP BY g",
			spec: MergeSpec{Columns: 3, Visible: 3, Kinds: []ColumnKind{kInt, kInt, kDec},
				GroupBy: []int{0}, Aggregates: []AggregateSpec{{Column: 1, Func: AggCount}, {Column: 2, Func: AggSum}},
				OrderBy: []SortKey{{Column: 1, Desc: true}, {Column: 0}}, Count: LimitValue{Value: 5}},
			ordered: true,
		},
		{
			name:  "memory group-by on a unicode_ci column, ORDER BY AVG",
			query: "SELECT su, AVG(g), COUNT(DISTINCT g) FROM {t} GROUP BY su ORDER BY AVG(g), su",
			node:  "SELECT su, AVG(g), g, COUNT(g), SUM(g), WEIGHT_STRING(su), IF(LEFT(su,0) = ' ', WEIGHT_STRING(CONCAT(LEFT(su,0), ' ')), '') FROM {t} GROUP BY su, g",
			spec: MergeSpec{Columns: 7, Visible: 3, Kinds: []ColumnKind{{Type: ColumnString, Weight: 5}, kDec, kInt, kInt, kDec, kBytes, kBytes},
				GroupBy: []int{0}, Aggregates: []AggregateSpec{{Column: 1, Func: AggAvg, SumColumn: 4, CountColumn: 3, Scale: 4},
					{Column: 2, Func: AggCountDistinct}},
				OrderBy: []SortKey{{Column: 1}, {Column: 0}}, Count: NoLimit},
			ordered: true,
		},
		{
			name:  "DISTINCT",
			query: "SELECT DISTINCT s FROM {t} ORDER BY s",
			node:  "SELECT DISTINCT s FROM {t}",
			spec: MergeSpec{Columns: 1, Visible: 1, Kinds: []ColumnKind{kGeneral}, Distinct: true,
				OrderBy: []SortKey{{Column: 0}}, Count: NoLimit},
			ordered: true,
		},
		{
			name:  "DISTINCT over two columns, streamed",
			query: "SELECT DISTINCT g, s FROM {t} ORDER BY g DESC, s",
			node:  "SELECT DISTINCT g, s FROM {t} ORDER BY g DESC, s",
			spec: MergeSpec{Columns: 2, Visible: 2, Kinds: []ColumnKind{kInt, kGeneral}, Distinct: true,
				OrderBy: []SortKey{{Column: 0, Desc: true}, {Column: 1}}, StreamGroup: true, Count: NoLimit},
			ordered: true,
		},
		{
			name:  "scalar aggregates with DISTINCT",
			query: "SELECT COUNT(DISTINCT g), SUM(DISTINCT g), AVG(DISTINCT g), COUNT(*), AVG(g), MIN(s), MAX(dt), SUM(d) FROM {t}",
			node:  "SELECT g, g, g, COUNT(*), AVG(g), MIN(s), MAX(dt), SUM(d), COUNT(g), SUM(g) FROM {t} GROUP BY g",
			spec: MergeSpec{Columns: 10, Visible: 8, Kinds: []ColumnKind{kInt, kInt, kInt, kInt, kDec, kGeneral, kTime, kDec, kInt, kDec},
				Aggregates: []AggregateSpec{{Column: 0, Func: AggCountDistinct}, {Column: 1, Func: AggSumDistinct},
					{Column: 2, Func: AggAvgDistinct, Scale: 4}, {Column: 3, Func: AggCount},
					{Column: 4, Func: AggAvg, SumColumn: 9, CountColumn: 8, Scale: 4}, {Column: 5, Func: AggMin},
					{Column: 6, Func: AggMax}, {Column: 7, Func: AggSum}},
				Count: NoLimit},
			ordered: true,
			// The nodes return g for the DISTINCT aggregates; their results are
			// BIGINT and DECIMAL.
			result: []ColumnKind{kInt, kDec, kDec, kInt, kDec, kGeneral, kTime, kDec},
		},
		{
			name:  "stream group-by with MIN, MAX and COUNT(DISTINCT) of a unicode_ci column",
			query: "SELECT g, MIN(su), MAX(su), COUNT(DISTINCT su) FROM {t} GROUP BY g ORDER BY g",
			node: `SELECT g, MIN(su), MAX(su), su, WEIGHT_STRING(MIN(su)), IF(LEFT(MIN(su),0) = ' ', WEIGHT_STRING(CONCAT(LEFT(MIN(su),0), ' ')), ''),
				WEIGHT_STRING(MAX(su)), IF(LEFT(MAX(su),0) = ' ', WEIGHT_STRING(CONCAT(LEFT(MAX(su),0), ' ')), ''),
				WEIGHT_STRING(su), IF(LEFT(su,0) = ' ', WEIGHT_STRING(CONCAT(LEFT(su,0), ' ')), '') FROM {t} GROUP BY g, su ORDER BY g`,
			spec: MergeSpec{Columns: 10, Visible: 4, Kinds: []ColumnKind{kInt, {Type: ColumnString, Weight: 4}, {Type: ColumnString, Weight: 6},
				{Type: ColumnString, Weight: 8}, kBytes, kBytes, kBytes, kBytes, kBytes, kBytes},
				GroupBy: []int{0}, Aggregates: []AggregateSpec{{Column: 1, Func: AggMin}, {Column: 2, Func: AggMax}, {Column: 3, Func: AggCountDistinct}},
				OrderBy: []SortKey{{Column: 0}}, Count: NoLimit},
			ordered: true,
			result:  []ColumnKind{kInt, kBytes, kBytes, kInt},
		},
		{
			name:  "scalar aggregates over no rows",
			query: "SELECT COUNT(*), SUM(d), AVG(d), MAX(s) FROM {t} WHERE id < 0",
			node:  "SELECT COUNT(*), SUM(d), AVG(d), MAX(s), COUNT(d), SUM(d) FROM {t} WHERE id < 0",
			spec: MergeSpec{Columns: 6, Visible: 4, Kinds: []ColumnKind{kInt, kDec, kDec, kGeneral, kInt, kDec},
				Aggregates: []AggregateSpec{{Column: 0, Func: AggCount}, {Column: 1, Func: AggSum},
					{Column: 2, Func: AggAvg, SumColumn: 5, CountColumn: 4, Scale: 6}, {Column: 3, Func: AggMax}},
				Count: NoLimit},
			ordered: true,
		},
		{
			name:  "iterator, no order",
			query: "SELECT id, u FROM {t} WHERE g = 3",
			node:  "SELECT id, u FROM {t} WHERE g = 3",
			spec:  MergeSpec{Columns: 2, Visible: 2, Kinds: []ColumnKind{kInt, kUint}, Count: NoLimit},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			result := tc.result
			if result == nil {
				result = tc.spec.Kinds[:tc.spec.Visible]
			}
			want := queryCells(t, refDB, strings.ReplaceAll(tc.query, "{t}", ref), tc.args, result)
			var nodeArgs []any
			if len(tc.args) == 2 {
				nodeArgs = []any{tc.args[0].(int) + tc.args[1].(int)} // LIMIT 0, o+n
			}
			sources := make([]RowSource, len(nodes))
			for i, n := range nodes {
				rs, err := n.QueryContext(ctx, strings.ReplaceAll(tc.node, "{t}", table), nodeArgs...)
				require.NoError(t, err)
				src := NewSQLRows(rs, tc.spec.Kinds)
				t.Cleanup(func() { src.Close() })
				sources[i] = src
			}
			m, err := Merge(&tc.spec, tc.args, sources)
			require.NoError(t, err)
			got, err := ReadAll(m)
			require.NoError(t, err)
			require.NotEmpty(t, want)
			kinds := result
			if !tc.ordered {
				sortRows(want, kinds)
				sortRows(got, kinds)
			}
			require.Equal(t, rowsText(want), rowsText(got))
			for i := range want {
				for j, k := range kinds {
					// Strings of one group may differ in case or accents (MySQL
					// shows any member); the collation must call them equal.
					if (k.Type == ColumnBytes || k.Weight > 0) && want[i][j].Kind() == CellBytes { // text compared by the server
						var same bool
						require.NoError(t, refDB.QueryRow("SELECT CAST(? AS CHAR) COLLATE utf8mb4_unicode_ci = ?", want[i][j].Bytes(), got[i][j].Bytes()).Scan(&same))
						require.True(t, same, "row %d column %d: %v vs %v", i, j, want[i][j], got[i][j])
						continue
					}
					require.Zero(t, k.Compare(want[i][j], got[i][j]), "row %d column %d: %v vs %v", i, j, want[i][j], got[i][j])
					if k.Type != ColumnString {
						require.Equal(t, cellText(want[i][j]), cellText(got[i][j]), "row %d column %d", i, j)
					}
				}
			}
		})
	}
}

// queryCells runs q and decodes its rows.
func queryCells(t *testing.T, db *sql.DB, q string, args []any, kinds []ColumnKind) [][]Cell {
	t.Helper()
	rs, err := db.Query(q, args...)
	require.NoError(t, err)
	out, err := ReadAll(NewSQLRows(rs, kinds))
	require.NoError(t, err)
	return out
}

// sortRows sorts rows by every column, for comparing unordered results.
func sortRows(rows [][]Cell, kinds []ColumnKind) {
	slices.SortFunc(rows, func(a, b []Cell) int {
		for i, k := range kinds {
			if c := k.Compare(a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	})
}

// rowsText renders rows as text, strings as "~": strings of one group may
// differ (MySQL shows any member of the group) and are compared by their
// collation instead.
func rowsText(rows [][]Cell) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		for _, c := range r {
			s := cellText(c)
			if c.Kind() == CellBytes {
				s = "~"
			}
			out[i] = append(out[i], s)
		}
	}
	return out
}

package difftest

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

var (
	mergeCorpusSize = flag.Int("merge-corpus", 600, "number of generated queries of the merged-group corpus (HAVING, expressions over aggregates, GROUP_CONCAT)")
	mergeCorpusSeed = flag.Uint64("merge-seed", 0, "seed of the merged-group corpus (0: a new one, printed)")
)

// mergeExprs are select-list expressions over aggregates that groups
// spanning data nodes evaluate after the merge.
var mergeExprs = []string{
	"SUM(k) / COUNT(*)", "SUM(amount) / COUNT(amount)", "AVG(k) * 2", "AVG(amount) + 1", "COUNT(*) - COUNT(k)",
	"MAX(k) - MIN(k)", "SUM(k) * SUM(k)", "SUM(score) / COUNT(*)", "COALESCE(SUM(k), 0)", "ROUND(AVG(amount), 1)",
	"CAST(AVG(k) AS DECIMAL(10,2))", "SUM(k) DIV 3", "SUM(k) % 5", "COUNT(DISTINCT k) * 10 / COUNT(*)",
	"AVG(k) / 3 * 3", "SUM(amount) / 7", "1 / COUNT(k)", "MAX(amount) - AVG(amount)", "IFNULL(MIN(name), 'none')",
	"COUNT(*) > 3", "-SUM(k)", "AVG(score) * 2", "SUM(amount) * 1.5 / 4",
	"GROUP_CONCAT(name ORDER BY id)", "GROUP_CONCAT(k ORDER BY k DESC, id SEPARATOR '-')",
	"GROUP_CONCAT(DISTINCT k ORDER BY k)", "GROUP_CONCAT(DISTINCT amount ORDER BY amount DESC SEPARATOR '')",
	"GROUP_CONCAT(name, '=', k ORDER BY created, id SEPARATOR '; ')", "GROUP_CONCAT(id ORDER BY score, id)",
	"GROUP_CONCAT(DISTINCT k ORDER BY k DESC SEPARATOR ' 中 ')", "GROUP_CONCAT(grp ORDER BY id DESC)",
}

// mergeHavings are HAVING atoms over merged groups.
var mergeHavings = []string{
	"COUNT(*) > %d", "SUM(k) < %d", "AVG(amount) >= %d.25", "MIN(k) IS NULL", "MAX(k) IS NOT NULL",
	"MAX(name) = 'b'", "MIN(name) < 'b'", "COUNT(DISTINCT k) BETWEEN 2 AND %d", "SUM(k) IN (1, 2, 3, %d)",
	"AVG(k) > 0.3333", "SUM(k) / COUNT(*) > 1", "COUNT(k) <> COUNT(*)", "MAX(amount) - MIN(amount) > %d",
	"AVG(k) / 3 * 3 >= 1", "COUNT(*) %% 2 = 0", "SUM(score) > %d", "NOT COUNT(*) = 1", "COALESCE(MIN(k), -99) < 0",
}

// genMergeQuery draws a SELECT whose groups span data nodes: GROUP BY
// non-sharding columns (or a scalar aggregate), expressions over the
// aggregates, a HAVING over the merged groups, ORDER BY and LIMIT.
func genMergeQuery(r *rand.Rand) corpusQuery {
	groupings := [][]string{nil, {"k"}, {"name"}, {"k", "name"}, {"grp"}}
	g := groupings[r.IntN(len(groupings))]
	q := corpusQuery{}
	var sel []string
	for _, c := range g {
		sel = append(sel, c)
		if c == "grp" {
			q.fold = append(q.fold, len(sel)-1)
		}
	}
	for range 1 + r.IntN(3) {
		if r.IntN(3) == 0 {
			sel = append(sel, aggregates[r.IntN(len(aggregates))])
		} else {
			sel = append(sel, mergeExprs[r.IntN(len(mergeExprs))])
		}
		if strings.Contains(sel[len(sel)-1], "grp") {
			q.fold = append(q.fold, len(sel)-1)
		}
	}
	for i := len(g); i < len(sel); i++ {
		sel[i] += fmt.Sprintf(" AS e%d", i)
	}
	q.sql = "SELECT " + strings.Join(sel, ", ") + " FROM dt_item"
	if f := genFilter(r, 1); f != "" && r.IntN(2) == 0 {
		q.sql += " WHERE " + f
	}
	if len(g) > 0 {
		q.sql += " GROUP BY " + strings.Join(g, ", ")
	}
	if r.IntN(4) != 0 {
		var hs []string
		for range 1 + r.IntN(2) {
			h := mergeHavings[r.IntN(len(mergeHavings))]
			if strings.Contains(h, "%d") {
				h = fmt.Sprintf(h, r.IntN(12)-2)
			} else {
				h = strings.ReplaceAll(h, "%%", "%")
			}
			hs = append(hs, h)
		}
		if len(g) > 0 && g[0] == "k" && r.IntN(3) == 0 {
			hs = append(hs, fmt.Sprintf("k > %d", r.IntN(10)-5))
		}
		q.sql += " HAVING " + strings.Join(hs, []string{" AND ", " OR "}[r.IntN(2)])
	}
	if len(g) > 0 && g[0] != "grp" && r.IntN(2) == 0 {
		// ORDER BY an expression column, then the group keys: a total order.
		// ORDER BY a GROUP_CONCAT over several data nodes is refused.
		e := len(g) + r.IntN(len(sel)-len(g))
		var keys []string
		if !strings.Contains(sel[e], "GROUP_CONCAT") {
			keys = []string{fmt.Sprintf("e%d%s", e, []string{"", " DESC"}[r.IntN(2)])}
			q.ordered = []int{e}
		}
		for i, c := range g {
			keys = append(keys, c+[]string{"", " DESC"}[r.IntN(2)])
			q.ordered = append(q.ordered, i)
		}
		q.sql += " ORDER BY " + strings.Join(keys, ", ")
		if r.IntN(2) == 0 {
			q.sql += fmt.Sprintf(" LIMIT %d, %d", r.IntN(4), 1+r.IntN(8))
		}
	}
	return q
}

// TestMergeCorpus runs the merged-group corpus (-merge-corpus N, 600 by
// default; -merge-seed S repeats a run) against the unsharded reference.
func TestMergeCorpus(t *testing.T) {
	e := newEnv(t, corpusRules, corpusDDL)
	seedCorpus(t, e)
	e.adHoc = true // planned as the proxy plans: result types from the data nodes
	seed := *mergeCorpusSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("merged-group corpus: seed %d (repeat with -merge-seed %d)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 16))
	mismatches := 0
	for i := 0; i < *mergeCorpusSize; i++ {
		q := genMergeQuery(r)
		if msg := e.query(q.sql, q.ordered, q.fold, q.foldOrder); msg != "" {
			mismatches++
			if mismatches <= 10 {
				t.Errorf("seed %d query %d: %s\n  %s", seed, i, q.sql, msg)
			}
		}
	}
	require.Zero(t, mismatches, "%d of %d queries differ from the unsharded reference (seed %d)", mismatches, *mergeCorpusSize, seed)
	t.Logf("%d queries, 0 mismatches (seed %d)", *mergeCorpusSize, seed)
}

// The GROUP_CONCAT cut table: utf8mb4 text with CJK and emoji, latin1 text
// with accents, NULLs and duplicates, sharded by id over 4 data sources.
const concatRules = `rules:
- !SHARDING
  tables:
    gc_text:
      actualDataNodes: ds_${0..3}.gc_text
      databaseStrategy:
        standard: {shardingColumn: id, shardingAlgorithmName: db_mod}
  shardingAlgorithms:
    db_mod: {type: MOD, props: {sharding-count: 4}}
`

const concatDDL = `CREATE TABLE gc_text (
  id BIGINT NOT NULL PRIMARY KEY,
  g INT NOT NULL,
  u VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  l VARCHAR(32) CHARACTER SET latin1 COLLATE latin1_bin NULL
)`

// TestGroupConcatCut: GROUP_CONCAT over groups that span data nodes is
// cut at the session's group_concat_max_len as MariaDB cuts it (at that
// many bytes of the value's character set, back to a whole character),
// for utf8mb4 text with CJK and emoji and latin1 text received as UTF-8,
// with separators of several bytes. The servers' global
// group_concat_max_len is lowered for the test (the pools and the
// reference connect after it) and restored.
func TestGroupConcatCut(t *testing.T) {
	for _, db := range []string{testdb.DataSources()[0], testdb.DataSources()[1]} {
		conn := testdb.Open(t, db)
		_, err := conn.Exec("SET GLOBAL group_concat_max_len = 17")
		require.NoError(t, err)
		t.Cleanup(func() { conn.Exec("SET GLOBAL group_concat_max_len = 1048576") })
	}
	e := newEnv(t, concatRules, concatDDL)
	e.adHoc = true
	us := []any{"中文", "😀x", "abc", "é", nil, "ab😀", "字"}
	ls := []any{"é", "àb", "x", nil, "ÿÿÿ", "a"}
	for id := int64(1); id <= 40; id++ {
		e.exec("INSERT INTO gc_text (id, g, u, l) VALUES (?, ?, ?, ?)", id, id%3, us[id%int64(len(us))], ls[id%int64(len(ls))])
	}
	for _, q := range []string{
		"SELECT g, GROUP_CONCAT(u ORDER BY id) FROM gc_text GROUP BY g",
		"SELECT g, GROUP_CONCAT(u ORDER BY id DESC SEPARATOR ' 中 ') FROM gc_text GROUP BY g",
		"SELECT g, GROUP_CONCAT(l ORDER BY id SEPARATOR '') FROM gc_text GROUP BY g",
		"SELECT g, GROUP_CONCAT(DISTINCT l ORDER BY l DESC) FROM gc_text GROUP BY g",
		"SELECT g, GROUP_CONCAT(DISTINCT u ORDER BY u SEPARATOR '😀') FROM gc_text GROUP BY g",
		"SELECT GROUP_CONCAT(id ORDER BY u, id) FROM gc_text",
		"SELECT g, GROUP_CONCAT(u, '/', id ORDER BY l, id), COUNT(*) FROM gc_text GROUP BY g HAVING COUNT(u) > 1",
	} {
		require.Empty(t, e.query(q, nil, nil, nil), q)
	}
}

// TestMergeCorpusCharsets runs the merged-group corpus (-merge-corpus N /
// 4 queries per variant, -merge-seed S) through a running proxy and on
// the reference in latin1 and utf8mb3 sessions (every pooled connection:
// the DSN's charset parameter), statements sent in the session's
// character set, with grp ('élan') of utf8mb4_unicode_ci (merged by the
// data nodes' sort keys in any session) and of utf8mb4_general_ci (merged
// in process, by WEIGHT_STRING in these sessions). Every answer equals the reference's; the proxy refuses
// (ERROR 1235) ORDER BY text computed from the merged groups, which it
// compares by the data nodes' sort keys in these sessions (at most a
// tenth of the queries).
func TestMergeCorpusCharsets(t *testing.T) {
	seed := *mergeCorpusSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	n := *mergeCorpusSize / 4
	for _, grp := range []string{"utf8mb4_unicode_ci", "utf8mb4_general_ci"} {
		ddl := strings.Replace(corpusDDL, "grp VARCHAR(16) NOT NULL", "grp VARCHAR(16) COLLATE "+grp+" NOT NULL", 1)
		e := newEnv(t, corpusRules, ddl)
		seedCorpus(t, e)
		srv := startProxy(t, corpusRules, ddl)
		for _, cs := range []string{"latin1", "utf8mb3"} {
			mergeCorpusSession(t, e, srv.Addr(), cs, grp, seed, n)
		}
	}
}

// mergeCorpusSession is TestMergeCorpusCharsets's n queries of seed
// through the proxy at addr in sessions of character set cs (grp: the
// collation of grp, for the subtest's name).
func mergeCorpusSession(t *testing.T, e *env, addr, cs, grp string, seed uint64, n int) {
	t.Run(cs+"/"+grp, func(t *testing.T) {
		params := map[string]string{"charset": cs}
		mc := gomysql.NewConfig()
		mc.User, mc.Net, mc.Addr, mc.DBName, mc.Params = "any", "tcp", addr, "difftest", params
		px, err := sql.Open("mysql", mc.FormatDSN())
		require.NoError(t, err)
		t.Cleanup(func() { px.Close() })
		ref := testdb.OpenWith(t, testdb.Reference, params)
		rows := func(db *sql.DB, q string) ([][]string, error) {
			rs, err := db.Query(encodeCharset(cs, q))
			if err != nil {
				return nil, err
			}
			out, err := scanRows(rs)
			for _, row := range out {
				for c := range row {
					if cs == "latin1" {
						row[c] = latin1ToUTF8([]byte(row[c]))
					}
				}
			}
			return out, err
		}
		r := rand.New(rand.NewPCG(seed, 16))
		mismatches, refused := 0, 0
		for i := 0; i < n; i++ {
			q := genMergeQuery(r)
			got, gerr := rows(px, q.sql)
			want, werr := rows(ref, q.sql)
			msg := ""
			var ge, we *gomysql.MySQLError
			switch {
			case gerr == nil && werr == nil:
				msg = e.compare(got, want, q.ordered, q.fold, q.foldOrder)
			case errors.As(gerr, &ge) && ge.Number == 1235:
				// ORDER BY text computed from merged groups, weighed in
				// these sessions (TestCrossNodeRegressions).
				refused++
			case errors.As(gerr, &ge) && errors.As(werr, &we) && ge.Number == we.Number:
			default:
				msg = fmt.Sprintf("errors differ\n  sharded:   %v\n  reference: %v", gerr, werr)
			}
			if msg != "" {
				mismatches++
				if mismatches <= 10 {
					t.Errorf("seed %d query %d: %s\n  %s", seed, i, q.sql, msg)
				}
			}
		}
		require.Zero(t, mismatches, "%d of %d queries differ from the unsharded reference in a %s session (-merge-seed %d)", mismatches, n, cs, seed)
		require.LessOrEqual(t, refused, n/10, "refused %d of %d queries in a %s session (-merge-seed %d)", refused, n, cs, seed)
		t.Logf("%d queries in a %s session, 0 mismatches, %d refused (-merge-seed %d)", n, cs, refused, seed)
	})
}

package difftest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// The collation corpus: one table of text in the collations shardgen must
// merge exactly as the server compares them, sharded over 4 data sources
// and 2 tables each like the main corpus. The planner's DDL names no
// character set for the table and none for column und; the actual and
// reference tables are created with DEFAULT CHARSET=latin1, so und is
// latin1_swedish_ci as on a server whose default is latin1, which the
// planner cannot know (it asks the data nodes for WEIGHT_STRING).
const collationRules = `rules:
- !SHARDING
  tables:
    dt_text:
      actualDataNodes: ds_${0..3}.dt_text_${0..1}
      databaseStrategy:
        standard: {shardingColumn: id, shardingAlgorithmName: db_mod}
      tableStrategy:
        standard: {shardingColumn: id, shardingAlgorithmName: t_hash}
  shardingAlgorithms:
    db_mod: {type: MOD, props: {sharding-count: 4}}
    t_hash: {type: HASH_MOD, props: {sharding-count: 2}}
`

const collationDDL = `CREATE TABLE dt_text (
  id BIGINT NOT NULL PRIMARY KEY,
  lat VARCHAR(16) CHARACTER SET latin1 COLLATE latin1_swedish_ci NULL,
  uni VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL,
  uca VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci NULL,
  bin VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  und VARCHAR(16) NULL
)`

// textColumns are dt_text's text columns; latin1Columns hold only text
// latin1 can store.
var (
	textColumns   = []string{"lat", "uni", "uca", "bin", "und"}
	latin1Columns = map[string]bool{"lat": true, "und": true}
)

// latin1Texts mix case, accents (Swedish letters sort after Z under
// latin1_swedish_ci, 'ü' = 'y'), cp1252 symbols, trailing spaces, tabs and
// the empty string; unicodeTexts add Chinese, Japanese, Korean, Cyrillic,
// symbols and emoji.
var (
	latin1Texts = []string{"", " ", "a", "A", "a ", "a  ", "a\t", "ab", "Ab", "AB ", "b", "z", "Z", "å", "Å", "ä", "Ä", "ö", "Ö",
		"ü", "y", "Y", "é", "e", "E", "è", "æ", "ae", "ß", "ss", "ø", "o", "€", "–", "_", "-", "0", "9", "Ñ", "n", "ç", "c"}
	unicodeTexts = append(append([]string(nil), latin1Texts...),
		"中文", "中", "文", "日本語", "にほん", "ニホン", "한국어", "한", "Ёлка", "ёлка", "Елка", "елка", "Я", "я", "α", "Α",
		"😀", "😁", "🍣", "ﾃｽﾄ", "テスト", "Ⅻ", "½", "①", "ǅ", "ǆ")
)

// seedCollations inserts the same 300 rows on both sides.
func seedCollations(e *env) {
	r := rand.New(rand.NewPCG(12, 1))
	for id := int64(1); id <= 300; id++ {
		vals := []any{id}
		for _, c := range textColumns {
			texts := unicodeTexts
			if latin1Columns[c] {
				texts = latin1Texts
			}
			var v any
			if r.IntN(8) != 0 {
				v = texts[r.IntN(len(texts))]
			}
			vals = append(vals, v)
		}
		e.exec("INSERT INTO dt_text (id, lat, uni, uca, bin, und) VALUES (?, ?, ?, ?, ?, ?)", vals...)
	}
}

// collationClasses maps each column's values to a representative of its
// equivalence class under the column's collation, as the reference server
// decides it (=): the least one in utf8mb4_bin order.
func collationClasses(t testing.TB, e *env) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, c := range textColumns {
		rows, err := e.ref.QueryContext(context.Background(), fmt.Sprintf(
			`SELECT DISTINCT CONVERT(y.%[1]s USING utf8mb4) COLLATE utf8mb4_nopad_bin, (SELECT MIN(CONVERT(x.%[1]s USING utf8mb4) COLLATE utf8mb4_nopad_bin)
			 FROM dt_text x WHERE x.%[1]s = y.%[1]s) FROM dt_text y WHERE y.%[1]s IS NOT NULL`, c))
		require.NoError(t, err)
		m := map[string]string{}
		for rows.Next() {
			var v, rep string
			require.NoError(t, rows.Scan(&v, &rep))
			m[v] = rep
		}
		require.NoError(t, rows.Err())
		require.NoError(t, rows.Close())
		require.NotEmpty(t, m)
		out[c] = m
	}
	return out
}

// collationQuery is one generated SELECT of the collation corpus: a
// corpusQuery plus the table column whose collation each folded result
// column compares by.
type collationQuery struct {
	corpusQuery
	foldBy map[int]string
}

// genCollationQuery draws an ORDER BY, GROUP BY, DISTINCT or MIN/MAX query
// over one text column, with a filter on the sharding column or none.
func genCollationQuery(r *rand.Rand) collationQuery {
	c := textColumns[r.IntN(len(textColumns))]
	c2 := textColumns[r.IntN(len(textColumns))]
	desc := []string{"", " DESC"}[r.IntN(2)]
	where := []string{"", "", " WHERE id > 40", fmt.Sprintf(" WHERE id IN (%d, %d, %d, %d, %d)", 1+r.IntN(300), 1+r.IntN(300), 1+r.IntN(300), 1+r.IntN(300), 1+r.IntN(300)),
		fmt.Sprintf(" WHERE id BETWEEN %d AND %d", 1+r.IntN(150), 150+r.IntN(150))}[r.IntN(5)]
	limit := ""
	if r.IntN(3) == 0 {
		limit = fmt.Sprintf(" LIMIT %d, %d", r.IntN(20), 1+r.IntN(40))
	}
	q := collationQuery{foldBy: map[int]string{}}
	fold := func(col int, by string) {
		q.fold = append(q.fold, col)
		q.foldBy[col] = by
	}
	switch r.IntN(6) {
	case 0: // a total order: every row exact
		q.sql = "SELECT " + c + ", id FROM dt_text" + where + " ORDER BY " + c + desc + ", id" + []string{"", " DESC"}[r.IntN(2)] + limit
		q.ordered = []int{0, 1}
	case 1: // ties in any order, and any members of a tied class on a LIMIT page
		q.sql = "SELECT " + c + " FROM dt_text" + where + " ORDER BY " + c + desc + limit
		q.ordered = []int{0}
		fold(0, c)
	case 2: // GROUP BY, ordered by the group key
		q.sql = "SELECT " + c + ", COUNT(*), MIN(" + c2 + "), MAX(" + c2 + "), COUNT(DISTINCT " + c2 + ") FROM dt_text" + where +
			" GROUP BY " + c + " ORDER BY " + c + desc + limit
		q.ordered = []int{0}
		fold(0, c)
		fold(2, c2)
		fold(3, c2)
	case 3: // GROUP BY in memory, ordered by an aggregate then the key
		q.sql = "SELECT " + c + ", COUNT(*) FROM dt_text" + where + " GROUP BY " + c + " ORDER BY COUNT(*)" + desc + ", " + c + limit
		q.ordered = []int{1, 0}
		fold(0, c)
	case 4: // DISTINCT, streamed when ordered
		q.sql = "SELECT DISTINCT " + c + " FROM dt_text" + where
		if r.IntN(2) == 0 {
			q.sql += " ORDER BY " + c + desc + limit
			q.ordered = []int{0}
		}
		fold(0, c)
	default: // scalar MIN/MAX/COUNT(DISTINCT)
		q.sql = "SELECT MIN(" + c + "), MAX(" + c + "), COUNT(DISTINCT " + c + ") FROM dt_text" + where
		fold(0, c)
		fold(1, c)
	}
	return q
}

// collationQueries is the number of queries TestCollationCorpus runs:
// SHARDGEN_DIFF_COLLATION_QUERIES, 1200 by default (make test).
func collationQueries(t testing.TB) int {
	s := os.Getenv("SHARDGEN_DIFF_COLLATION_QUERIES")
	if s == "" {
		return 1200
	}
	n, err := strconv.Atoi(s)
	require.NoError(t, err, "SHARDGEN_DIFF_COLLATION_QUERIES")
	return n
}

// TestCollationCorpus runs generated ORDER BY, GROUP BY, DISTINCT and
// MIN/MAX queries over text in latin1_swedish_ci, utf8mb4_unicode_ci,
// utf8mb4_uca1400_ai_ci, utf8mb4_bin and a column whose collation only the
// server knows (latin1_swedish_ci from the table's latin1 default),
// through the planner and the proxy's interpreter, against the unsharded
// reference. Result values the server may pick from a class of equal
// strings (a group's key, MIN/MAX, members of a tie) are compared by class.
func TestCollationCorpus(t *testing.T) {
	e := newEnvPhysical(t, collationRules, collationDDL, collationDDL+" DEFAULT CHARSET=latin1", len(testdb.DataSources()))
	runCollationCorpus(t, e, collationQueries(t), 12)
}

// TestCollationCorpusLatin1Database runs a third as many queries of the
// collation corpus on databases whose default character set is latin1
// (testdb.Latin1DataSources, testdb.Latin1Reference), with the tables
// created from the planner's own DDL: und is latin1_swedish_ci because the
// database says so.
func TestCollationCorpusLatin1Database(t *testing.T) {
	rules := strings.NewReplacer("ds_${0..3}", "ds_${0..1}", "sharding-count: 4", "sharding-count: 2").Replace(collationRules)
	e := newEnvOn(t, rules, collationDDL, collationDDL, testdb.Latin1DataSources(), testdb.Latin1Reference)
	var coll string
	require.NoError(t, e.ref.QueryRow("SELECT COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'dt_text' AND COLUMN_NAME = 'und'").Scan(&coll))
	require.Equal(t, "latin1_swedish_ci", coll)
	runCollationCorpus(t, e, collationQueries(t)/3, 13)
}

// runCollationCorpus seeds e and runs n generated queries (seed picks them).
func runCollationCorpus(t *testing.T, e *env, n int, seed uint64) {
	seedCollations(e)
	classes := collationClasses(t, e)
	var q collationQuery
	e.fold = func(col int, v string) string {
		if rep, ok := classes[q.foldBy[col]][v]; ok {
			return rep
		}
		return v // NULL, or a value folded already
	}
	r := rand.New(rand.NewPCG(2026, seed))
	mismatches := 0
	for i := 0; i < n; i++ {
		q = genCollationQuery(r)
		if msg := e.query(q.sql, q.ordered, q.fold, nil); msg != "" {
			mismatches++
			if mismatches <= 10 {
				t.Errorf("query %d: %s\n  %s", i, q.sql, msg)
			}
		}
	}
	require.Zero(t, mismatches, "%d of %d queries differ from the unsharded reference", mismatches, n)
	t.Logf("%d queries over %s, 0 mismatches", n, strings.Join(textColumns, ", "))
}

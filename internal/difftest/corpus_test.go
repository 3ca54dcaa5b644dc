package difftest

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var corpusSize = flag.Int("corpus", 400, "number of generated queries the differential corpus runs")

// The corpus table: sharded by id over 4 data sources (MOD) and 2 tables
// per data source (HASH_MOD), so ds_0 and ds_2 leave one table empty.
const corpusRules = `rules:
- !SHARDING
  tables:
    dt_item:
      actualDataNodes: ds_${0..3}.dt_item_${0..1}
      databaseStrategy:
        standard: {shardingColumn: id, shardingAlgorithmName: db_mod}
      tableStrategy:
        standard: {shardingColumn: id, shardingAlgorithmName: t_hash}
  shardingAlgorithms:
    db_mod: {type: MOD, props: {sharding-count: 4}}
    t_hash: {type: HASH_MOD, props: {sharding-count: 2}}
`

const corpusDDL = `CREATE TABLE dt_item (
  id BIGINT NOT NULL PRIMARY KEY,
  grp VARCHAR(16) NOT NULL,
  k INT NULL,
  amount DECIMAL(10,2) NULL,
  score DOUBLE NULL,
  name VARCHAR(32) COLLATE utf8mb4_bin NULL,
  created DATETIME NULL
)`

var groups = []string{"alpha", "Alpha", "ALPHA", "beta", "Beta", "gamma", "delta", "élan", "Zulu", "zulu"}

// seedCorpus inserts the same 240 rows on both sides: NULLs, negative and
// duplicate numbers, mixed-case and accented strings.
func seedCorpus(t testing.TB, e *env) {
	r := rand.New(rand.NewPCG(7, 11))
	for id := int64(1); id <= 240; id++ {
		var k, amount, score, name, created any
		if r.IntN(6) != 0 {
			k = int64(r.IntN(21) - 10)
		}
		if r.IntN(5) != 0 {
			amount = fmt.Sprintf("%d.%02d", r.IntN(2000)-500, r.IntN(100))
		}
		if r.IntN(5) != 0 {
			score = float64(r.IntN(1000)) / 8
		}
		if r.IntN(4) != 0 {
			name = []string{"a", "B", "b", "A", "c ", "c", "ab", "Ab"}[r.IntN(8)]
		}
		if r.IntN(4) != 0 {
			created = fmt.Sprintf("2026-%02d-%02d 12:%02d:00", 1+r.IntN(12), 1+r.IntN(28), r.IntN(60))
		}
		e.exec("INSERT INTO dt_item (id, grp, k, amount, score, name, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
			id, groups[r.IntN(len(groups))], k, amount, score, name, created)
	}
}

// corpusQuery is one generated SELECT: the columns whose order is checked
// (the ORDER BY projection) and the columns compared case-insensitively (a
// group's key under a _ci collation may be any member: MySQL returns an
// arbitrary one).
type corpusQuery struct {
	sql     string
	ordered []int
	fold    []int
	// foldOrder are ordered columns under a _ci collation: rows that tie
	// on them ('alpha', 'ALPHA') may come in any order.
	foldOrder []int
}

// genQuery draws a SELECT from the grammar: a filter over =, IN, BETWEEN,
// comparisons, IS NULL and OR/AND on sharding and other columns.
func genQuery(r *rand.Rand) corpusQuery {
	switch r.IntN(4) {
	case 0:
		return genOrdered(r)
	case 1:
		return genGrouped(r)
	case 2:
		return genDistinct(r)
	}
	return genFiltered(r)
}

// sortable columns and their direction-free ORDER BY spelling.
var sortCols = []string{"grp", "k", "amount", "score", "name", "created"}

// genOrdered draws ORDER BY on mixed columns (NULLs, collations) with an
// optional LIMIT; with LIMIT the order ends in id so the page is exact.
func genOrdered(r *rand.Rand) corpusQuery {
	n := 1 + r.IntN(3)
	perm := r.Perm(len(sortCols))[:n]
	var keys, sel []string
	for _, i := range perm {
		dir := []string{"", " ASC", " DESC"}[r.IntN(3)]
		keys = append(keys, sortCols[i]+dir)
		sel = append(sel, sortCols[i])
	}
	q := corpusQuery{}
	limit := r.IntN(2) == 0
	if limit {
		keys = append(keys, "id"+[]string{"", " DESC"}[r.IntN(2)])
		sel = append(sel, "id")
	}
	for i := range sel {
		q.ordered = append(q.ordered, i)
		if sel[i] == "grp" {
			q.foldOrder = append(q.foldOrder, i)
		}
	}
	if r.IntN(3) == 0 {
		sel = append(sel, "id AS ident") // a column not in ORDER BY
	}
	q.sql = "SELECT " + strings.Join(sel, ", ") + " FROM dt_item"
	if f := genFilter(r, 1); f != "" {
		q.sql += " WHERE " + f
	}
	q.sql += " ORDER BY " + strings.Join(keys, ", ")
	if limit {
		switch r.IntN(3) {
		case 0:
			q.sql += fmt.Sprintf(" LIMIT %d", r.IntN(30))
		case 1:
			q.sql += fmt.Sprintf(" LIMIT %d, %d", r.IntN(50), r.IntN(30))
		default:
			q.sql += fmt.Sprintf(" LIMIT %d OFFSET %d", r.IntN(30), r.IntN(250))
		}
	}
	return q
}

var aggregates = []string{"COUNT(*)", "COUNT(k)", "COUNT(amount)", "SUM(k)", "SUM(amount)", "SUM(score)", "MIN(k)", "MAX(amount)",
	"MIN(name)", "MAX(grp)", "MIN(created)", "AVG(k)", "AVG(amount)", "AVG(score)", "COUNT(DISTINCT k)", "SUM(DISTINCT k)",
	"AVG(DISTINCT amount)", "COUNT(DISTINCT grp)"}

// genGrouped draws GROUP BY with aggregates (or a scalar aggregate),
// ORDER BY on the groups or an aggregate, and LIMIT.
func genGrouped(r *rand.Rand) corpusQuery {
	groupings := [][]string{nil, {"grp"}, {"k"}, {"name"}, {"grp", "k"}}
	g := groupings[r.IntN(len(groupings))]
	var sel []string
	q := corpusQuery{}
	for i, c := range g {
		if r.IntN(4) != 0 { // sometimes a GROUP BY column is not selected
			sel = append(sel, c)
			if c == "grp" {
				q.fold = append(q.fold, len(sel)-1)
			}
		}
		_ = i
	}
	nAgg := 1 + r.IntN(3)
	for _, i := range r.Perm(len(aggregates))[:nAgg] {
		sel = append(sel, aggregates[i])
		if aggregates[i] == "MAX(grp)" { // ties under _ci: any member
			q.fold = append(q.fold, len(sel)-1)
		}
	}
	q.sql = "SELECT " + strings.Join(sel, ", ") + " FROM dt_item"
	if f := genFilter(r, 1); f != "" {
		q.sql += " WHERE " + f
	}
	if len(g) > 0 {
		q.sql += " GROUP BY " + strings.Join(g, ", ")
		if r.IntN(2) == 0 && len(sel) > 0 && sel[0] == g[0] && len(g) == 1 {
			// ORDER BY the group key (unique per group): the order and any
			// LIMIT page are exact.
			q.sql += " ORDER BY " + g[0] + []string{"", " DESC"}[r.IntN(2)]
			q.ordered = []int{0}
			if r.IntN(2) == 0 {
				q.sql += fmt.Sprintf(" LIMIT %d, %d", r.IntN(5), 1+r.IntN(6))
			}
		}
	}
	return q
}

// genDistinct draws SELECT DISTINCT over one or two columns.
func genDistinct(r *rand.Rand) corpusQuery {
	cols := [][]string{{"k"}, {"grp"}, {"name"}, {"k", "name"}, {"amount"}}
	c := cols[r.IntN(len(cols))]
	q := corpusQuery{sql: "SELECT DISTINCT " + strings.Join(c, ", ") + " FROM dt_item"}
	for i, x := range c {
		if x == "grp" {
			q.fold = append(q.fold, i)
		}
	}
	if f := genFilter(r, 1); f != "" {
		q.sql += " WHERE " + f
	}
	if r.IntN(2) == 0 {
		// Ordered by every selected column, in a random order and
		// direction: the merge drops duplicates as the sorted streams
		// merge (StreamGroup), and a LIMIT page is exact.
		var keys []string
		for _, i := range r.Perm(len(c)) {
			keys = append(keys, c[i]+[]string{"", " DESC"}[r.IntN(2)])
		}
		q.sql += " ORDER BY " + strings.Join(keys, ", ")
		for i, x := range c {
			q.ordered = append(q.ordered, i)
			if x == "grp" {
				q.foldOrder = append(q.foldOrder, i)
			}
		}
		if r.IntN(3) == 0 {
			q.sql += " LIMIT " + strconv.Itoa(r.IntN(3)) + ", " + strconv.Itoa(1+r.IntN(6))
		}
	}
	return q
}

// genFiltered draws a plain filtered SELECT (rows concatenated).
func genFiltered(r *rand.Rand) corpusQuery {
	cols := []string{"id", "grp", "k", "amount", "score", "name", "created"}
	n := 1 + r.IntN(4)
	perm := r.Perm(len(cols))[:n]
	var sel []string
	for _, i := range perm {
		sel = append(sel, cols[i])
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM dt_item"
	if f := genFilter(r, 2); f != "" {
		q += " WHERE " + f
	}
	return corpusQuery{sql: q}
}

func genFilter(r *rand.Rand, depth int) string {
	if depth > 0 && r.IntN(3) == 0 {
		op := []string{" AND ", " OR "}[r.IntN(2)]
		rest := genFilter(r, depth-1)
		if rest == "" {
			rest = genAtom(r)
		}
		return "(" + genAtom(r) + op + rest + ")"
	}
	if r.IntN(10) == 0 {
		return "" // no WHERE: a full route
	}
	return genAtom(r)
}

func genAtom(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return fmt.Sprintf("id = %d OR k = %d", 1+r.IntN(250), r.IntN(21)-10)
	case 1:
		return fmt.Sprintf("id = %d", 1+r.IntN(250))
	case 2:
		return fmt.Sprintf("id IN (%d, %d, %d)", 1+r.IntN(250), 1+r.IntN(250), 1+r.IntN(250))
	case 3:
		a := 1 + r.IntN(240)
		return fmt.Sprintf("id BETWEEN %d AND %d", a, a+r.IntN(20))
	case 4:
		return fmt.Sprintf("k %s %d", []string{"=", "<", ">=", "<>"}[r.IntN(4)], r.IntN(21)-10)
	case 5:
		return []string{"k IS NULL", "amount IS NOT NULL", "name IS NULL"}[r.IntN(3)]
	case 6:
		return fmt.Sprintf("grp = '%s'", groups[r.IntN(len(groups))])
	case 7:
		return fmt.Sprintf("amount > %d", r.IntN(1000)-500)
	case 8:
		return fmt.Sprintf("name = '%s'", []string{"a", "A", "c", "ab"}[r.IntN(4)])
	default:
		return fmt.Sprintf("id > %d AND id < %d", r.IntN(200), 50+r.IntN(200))
	}
}

// TestCorpus runs the generated corpus (-corpus N; 400 by default) and
// reports each mismatch as a reproduction. The corpus is deterministic.
func TestCorpus(t *testing.T) {
	e := newEnv(t, corpusRules, corpusDDL)
	seedCorpus(t, e)
	r := rand.New(rand.NewPCG(2026, 11))
	mismatches := 0
	for i := 0; i < *corpusSize; i++ {
		q := genQuery(r)
		if msg := e.query(q.sql, q.ordered, q.fold, q.foldOrder); msg != "" {
			mismatches++
			if mismatches <= 10 {
				t.Errorf("query %d: %s\n  %s", i, q.sql, msg)
			}
		}
	}
	require.Zero(t, mismatches, "%d of %d queries differ from the unsharded reference", mismatches, *corpusSize)
	t.Logf("%d queries, 0 mismatches", *corpusSize)
}

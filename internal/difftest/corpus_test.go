package difftest

import (
	"flag"
	"fmt"
	"math/rand/v2"
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

// query is one generated SELECT with the columns whose order is checked.
type corpusQuery struct {
	sql     string
	ordered []int
}

// genQuery draws a SELECT from the grammar: a filter over =, IN, BETWEEN,
// comparisons, IS NULL and OR/AND on sharding and other columns.
func genQuery(r *rand.Rand) corpusQuery {
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
		if msg := e.query(q.sql, q.ordered); msg != "" {
			mismatches++
			if mismatches <= 10 {
				t.Errorf("query %d: %s\n  %s", i, q.sql, msg)
			}
		}
	}
	require.Zero(t, mismatches, "%d of %d queries differ from the unsharded reference", mismatches, *corpusSize)
	t.Logf("%d queries, 0 mismatches", *corpusSize)
}

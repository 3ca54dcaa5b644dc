package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
)

// TestMergeDerived: a derived table that picks columns and filters rows is
// merged into the statement with the outer references replaced and the
// WHERE clauses ANDed, its parameters first; every form whose meaning a
// merge could change is left as written ("").
func TestMergeDerived(t *testing.T) {
	for _, tt := range []struct{ sql, merged string }{
		{"SELECT * FROM (SELECT id, name FROM t WHERE a = 1) AS d WHERE d.id > 2",
			"select t.id, t.`name` from t where a = 1 and t.id > 2"},
		{"SELECT d.x FROM (SELECT t.id AS x FROM t) d",
			"select t.id as x from t"},
		{"SELECT d.x AS y, COUNT(*) AS n FROM (SELECT id AS x FROM t) d GROUP BY d.x ORDER BY n DESC, y",
			"select t.id as y, count(*) as n from t group by t.id order by n desc, y asc"},
		{"SELECT ID FROM (SELECT id FROM t) d",
			"select t.id as ID from t"},
		{"SELECT * FROM (SELECT id FROM t WHERE a = ?) d WHERE d.id = ? ORDER BY id LIMIT ?",
			"select t.id from t where a = :v1 and t.id = :v2 order by t.id asc limit :v3"},
		{"SELECT * FROM (SELECT * FROM (SELECT id FROM t WHERE a = 1) x WHERE x.id > 1) y",
			"select t.id from t where a = 1 and t.id > 1"},
		{"SELECT d.id FROM (SELECT * FROM t AS tt WHERE tt.a IN (SELECT b FROM u)) AS d",
			"select tt.id from t as tt where tt.a in (select b from u)"},
		{"SELECT d.n, 1 + 2 FROM (SELECT o.id AS n FROM t o JOIN u ON o.id = u.id) d",
			"select o.id as n, 1 + 2 from t as o join u on o.id = u.id"},
		// Not merged:
		{"SELECT * FROM (SELECT DISTINCT id FROM t) d", ""},
		{"SELECT * FROM (SELECT id FROM t GROUP BY id) d", ""},
		{"SELECT * FROM (SELECT id FROM t ORDER BY id LIMIT 3) d", ""},
		{"SELECT * FROM (SELECT id, COUNT(*) FROM t) d", ""},
		{"SELECT * FROM (SELECT id FROM t) d WHERE d.id IN (SELECT id FROM u)", ""},
		{"SELECT d.id + 1 FROM (SELECT id FROM t) d", ""},                         // its name is its text
		{"SELECT d.id AS name FROM (SELECT id, name FROM t) d ORDER BY name", ""}, // the alias, not the column
		{"SELECT d.id AS k, COUNT(*) FROM (SELECT id FROM t) d GROUP BY k", ""},   // GROUP BY reads FROM first
		{"SELECT * FROM (SELECT id FROM t JOIN u ON t.a = u.a) d", ""},            // whose id?
		{"SELECT * FROM (SELECT id, id FROM t) d", ""},                            // a duplicate column
		{"SELECT d.other FROM (SELECT id FROM t) d", ""},                          // no such column
		{"SELECT * FROM (SELECT id FROM t) d (x)", ""},                            // a column list
		{"SELECT * FROM (SELECT id FROM t) d JOIN u ON d.id = u.id", ""},          // not the only FROM
		{"SELECT * FROM (SELECT id FROM t UNION SELECT id FROM u) d", ""},         // a UNION
		{"SELECT * FROM (SELECT id FROM t FOR UPDATE) d", ""},                     // locking
		{"SELECT x.id FROM (SELECT id FROM t) d", ""},                             // another qualifier
	} {
		t.Run(tt.sql, func(t *testing.T) {
			got, merged, err := plan.MergeDerivedSQL(tt.sql)
			require.NoError(t, err)
			if tt.merged == "" {
				require.False(t, merged, got)
				return
			}
			require.True(t, merged)
			require.Equal(t, tt.merged, got)
		})
	}
}

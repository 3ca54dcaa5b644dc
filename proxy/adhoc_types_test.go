package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// TestProxyUntypedColumns: a result column or parameter whose Go type the
// planner cannot infer works through the proxy as on MySQL (the back end
// types the column, the client the value); the planner asked for a CAST.
// A merge that must compare such values is refused in SQL terms.
func TestProxyUntypedColumns(t *testing.T) {
	e := newEncEnv(t, encRules)
	db := e.client(t)
	for _, q := range []string{"INSERT INTO e9_user (id, name) VALUES (1, 'one')", "INSERT INTO e9_user (id, name) VALUES (2, 'second')",
		"INSERT INTO e9_user (id, name) VALUES (3, 'three')"} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	ref := testdb.Open(t, "reference")
	tests := []struct{ q, ref string }{
		{"SELECT LENGTH(name) FROM e9_user WHERE id = 1", "SELECT LENGTH('one')"},
		{"SELECT UPPER(name) AS n, id FROM e9_user WHERE id IN (1, 2) ORDER BY id", "SELECT 'ONE' AS n, 1 UNION ALL SELECT 'SECOND', 2"},
		{"SELECT LENGTH(name) AS n FROM e9_user ORDER BY n DESC", "SELECT 6 UNION ALL SELECT 5 UNION ALL SELECT 3"},
		{"SELECT CONCAT(name, '!') FROM e9_user WHERE id = 3", "SELECT CONCAT('three', '!')"},
	}
	for _, tt := range tests {
		require.Equal(t, rowsOf(t, ref, tt.ref), rowsOf(t, db, tt.q), tt.q)
	}
	// The back end's column metadata, as MySQL gives it for the logic table.
	for _, q := range []string{"SELECT LENGTH(id) FROM e9_user WHERE id = 1", "SELECT id * 2 AS twice, id + 0.5 FROM e9_user WHERE id = 1"} {
		require.Equal(t, typesOf(t, e.ref, q), typesOf(t, db, q), q)
	}
	// Prepared: the binary protocol's parameter needs no type either.
	st, err := db.Prepare("SELECT ? + 1, name FROM e9_user WHERE id = ?")
	require.NoError(t, err)
	defer st.Close()
	var n int64
	var name string
	require.NoError(t, st.QueryRow(41, 2).Scan(&n, &name))
	require.Equal(t, int64(42), n)
	require.Equal(t, "second", name)
	// UPPER keeps the column's collation; a function of unknown type,
	// which the merge cannot compare, runs over temporary tables.
	require.Equal(t, []string{"string:ONE", "string:SECOND", "string:THREE"}, rowsOf(t, db, "SELECT DISTINCT UPPER(name) AS u FROM e9_user ORDER BY u"))
	require.Equal(t, []string{"string:on", "string:s", "string:thr"}, rowsOf(t, db, "SELECT DISTINCT SUBSTRING_INDEX(name, 'e', 1) AS s FROM e9_user ORDER BY s"))
}

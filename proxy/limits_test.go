package proxy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPreparedManyPlaceholders: a prepared statement of 65,535
// placeholders (the protocol's limit; go-sql-driver's TestPreparedManyCols)
// is planned, executed with NULLs and with empty strings, and answers one
// row of 65,535 columns. Planning it was quadratic in the number of
// placeholders (naming them) and spun for more than ten minutes.
func TestPreparedManyPlaceholders(t *testing.T) {
	e := newPxEnv(t)
	db := e.client(t, "root", "secret", nil)
	const n = 65535
	stmt, err := db.Prepare("SELECT ?" + strings.Repeat(",?", n-1))
	require.NoError(t, err)
	defer stmt.Close()
	params := make([]any, n)
	for round := 0; round < 2; round++ {
		rows, err := stmt.Query(params...)
		require.NoError(t, err)
		cols, err := rows.Columns()
		require.NoError(t, err)
		require.Len(t, cols, n)
		require.True(t, rows.Next())
		require.NoError(t, rows.Close())
		for i := range params {
			params[i] = ""
		}
	}
}

// TestStatementSizeLimits: a statement above MaxStatementSize is refused
// with ERROR 1153 naming both sizes, in the text and the binary protocol;
// one whose plan-cache key (the text with its literals normalized, see
// normalize.go) is above MaxCachedStatementSize runs but leaves no plan in
// the cache, and one that is long only by its literals is cached under its
// short normalized text.
func TestStatementSizeLimits(t *testing.T) {
	e := newPxEnv(t)
	db := e.client(t, "root", "secret", nil)
	db.SetMaxOpenConns(1)
	long := "SELECT id FROM px_item WHERE id = 1 AND name <> '" + strings.Repeat("x", 200) + "'"
	e.srv.opts.MaxStatementSize = 100
	_, err := db.Exec(long)
	require.EqualError(t, err, "Error 1153 (08S01): Got a packet bigger than 'max_allowed_packet' bytes: the statement has "+
		"250 bytes, the proxy's limit (MaxStatementSize) is 100")
	_, err = db.Prepare(long)
	require.ErrorContains(t, err, "Error 1153 (08S01)")
	e.srv.opts.MaxStatementSize = DefaultMaxStatementSize
	e.srv.opts.MaxCachedStatementSize = 100
	before := e.srv.cache.len()
	longKey := "SELECT id, '" + strings.Repeat("x", 200) + "' AS x FROM px_item WHERE id = 1" // a select-list literal stays
	rows, err := db.Query(longKey)
	require.NoError(t, err)
	require.NoError(t, rows.Close())
	require.Equal(t, before, e.srv.cache.len())
	rows, err = db.Query("SELECT id FROM px_item WHERE id = 1")
	require.NoError(t, err)
	require.NoError(t, rows.Close())
	require.Equal(t, before+1, e.srv.cache.len())
	rows, err = db.Query(long) // SELECT id FROM px_item WHERE id = ? AND name <> ?
	require.NoError(t, err)
	require.NoError(t, rows.Close())
	require.Equal(t, before+2, e.srv.cache.len())
}

package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProxyUnknownNameCodes: an unknown column or table gets the MySQL
// codes a client expects (1054 / 42S22, 1146 / 42S02) with the planner's
// reason, in both protocols; an unsupported statement keeps 1235.
func TestProxyUnknownNameCodes(t *testing.T) {
	e := newPxEnv(t)
	for _, mode := range []map[string]string{{"interpolateParams": "true"}, nil} {
		db := e.client(t, "root", "secret", mode)
		_, err := db.Exec("SELECT nosuch FROM px_item WHERE id = ?", 1)
		require.EqualError(t, err, `Error 1054 (42S22): unknown column "nosuch" in table "px_item"`)
		_, err = db.Exec("SELECT x.id FROM px_item WHERE id = ?", 1)
		require.ErrorContains(t, err, "Error 1054 (42S22): unknown table or alias")
		_, err = db.Exec("SELECT * FROM px_nosuch WHERE id = ?", 1)
		require.EqualError(t, err, `Error 1146 (42S02): Table 'px_nosuch' doesn't exist`)
		_, err = db.Exec("SELECT id FROM px_item WHERE name = ? INTO @x", "x")
		require.ErrorContains(t, err, "Error 1235 (42000)")
	}
}

package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/schema"
)

// TestSetTableDDL checks the proxy's metadata refresh after DDL: a new
// column becomes plannable, a DDL without the sharding column is refused
// and leaves the planner as it was, and a forgotten table is unknown.
func TestSetTableDDL(t *testing.T) {
	b := newBuilder(t)
	ddl := func(sql string) *schema.Table {
		ts, err := schema.ParseDDL("SHOW CREATE TABLE", []byte(sql))
		require.NoError(t, err)
		require.Len(t, ts, 1)
		return ts[0]
	}
	_, err := build(t, b, ":many", "SELECT note FROM t_user WHERE user_id = ?")
	require.ErrorContains(t, err, `unknown column "note"`)

	require.NoError(t, b.SetTableDDL("T_USER", ddl("CREATE TABLE `t_user` (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) NOT NULL, note TEXT)")))
	p, err := build(t, b, ":many", "SELECT note FROM t_user WHERE user_id = ?")
	require.NoError(t, err)
	require.Equal(t, "note", p.Columns[0].Name)
	require.Equal(t, "note", b.Table("t_user").Columns[2].Name)

	err = b.SetTableDDL("t_user", ddl("CREATE TABLE t_user (id BIGINT NOT NULL PRIMARY KEY, note TEXT)"))
	require.ErrorContains(t, err, "user_id")
	_, err = build(t, b, ":many", "SELECT note FROM t_user WHERE user_id = ?")
	require.NoError(t, err, "a refused DDL leaves the planner unchanged")

	require.NoError(t, b.SetTableDDL("t_dict", nil))
	require.Nil(t, b.Table("t_dict"))
	_, err = build(t, b, ":many", "SELECT label FROM t_dict")
	require.ErrorContains(t, err, `unknown table "t_dict"`)

	// With t_dict gone (its broadcast rule now lacks DDL), other tables
	// still refresh: only problems the new DDL brings count.
	require.NoError(t, b.SetTableDDL("t_config", ddl("CREATE TABLE t_config (k VARCHAR(16) NOT NULL PRIMARY KEY, v VARCHAR(64), w INT)")))
	require.NoError(t, b.SetTableDDL("t_dict", ddl("CREATE TABLE t_dict (code VARCHAR(16) NOT NULL PRIMARY KEY, label VARCHAR(64))")))
	_, err = build(t, b, ":many", "SELECT label FROM t_dict")
	require.NoError(t, err)
}

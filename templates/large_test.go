package templates

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLarge generates a package for a rule of 4 data sources × 1024 tables
// (4096 data nodes) and reports the size of each file; without -short it
// also builds the package.
func TestLarge(t *testing.T) {
	yaml := `dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:3306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:3306/ds_1"}
  ds_2: {url: "jdbc:mysql://127.0.0.1:3306/ds_2"}
  ds_3: {url: "jdbc:mysql://127.0.0.1:3306/ds_3"}
rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..3}.t_order_${0..1023}
      databaseStrategy:
        standard: {shardingColumn: user_id, shardingAlgorithmName: db_mod}
      tableStrategy:
        standard: {shardingColumn: order_id, shardingAlgorithmName: t_mod}
  shardingAlgorithms:
    db_mod: {type: MOD, props: {sharding-count: 4}}
    t_mod: {type: MOD, props: {sharding-count: 1024}}
`
	ddl := `CREATE TABLE t_order (order_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, status VARCHAR(20) NOT NULL);`
	queries := `-- name: GetOrder :one
SELECT * FROM t_order WHERE user_id = ? AND order_id = ?;

-- name: UserOrders :many
SELECT order_id, status FROM t_order WHERE user_id IN (?, ?);
`
	in := planCase(t, []byte(yaml), []byte(ddl), map[string][]byte{"queries/orders.sql": []byte(queries)})
	out, err := Generate(in)
	require.NoError(t, err)
	total := 0
	for _, name := range []string{"db.go", "models.go", "orders.sql.go"} {
		require.Contains(t, out, name)
		t.Logf("%-14s %8d bytes", name, len(out[name]))
		total += len(out[name])
	}
	t.Logf("%-14s %8d bytes (2 queries over 4096 data nodes)", "total", total)
	require.Contains(t, string(out["orders.sql.go"]), "getOrderUnits[ds*1024+t]")
	if !testing.Short() {
		goCmd(t, writeModule(t, out), nil, "vet", "./...")
	}
}

// TestLargeTables covers the multi-line forms of the look-up tables: an
// INLINE suffix that reaches past the actual tables (a JavaRem table of 99
// entries) over interleaved data nodes (a layout table of 40 per row).
func TestLargeTables(t *testing.T) {
	var nodes []string
	for i := 0; i < 40; i++ {
		nodes = append(nodes, fmt.Sprintf("ds_0.t_%d,ds_1.t_%d", i, i))
	}
	yaml := `dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:3306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:3306/ds_1"}
rules:
- !SHARDING
  tables:
    t:
      actualDataNodes: ` + strings.Join(nodes, ",") + `
      databaseStrategy:
        standard: {shardingColumn: k, shardingAlgorithmName: db_mod}
      tableStrategy:
        standard: {shardingColumn: id, shardingAlgorithmName: t_inline}
  shardingAlgorithms:
    db_mod: {type: MOD, props: {sharding-count: 2}}
    t_inline: {type: INLINE, props: {algorithm-expression: "t_${id % 50}"}}
`
	ddl := `CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, k BIGINT NOT NULL);`
	in := planCase(t, []byte(yaml), []byte(ddl), map[string][]byte{"queries/t.sql": []byte("-- name: GetT :one\nSELECT * FROM t WHERE k = ? AND id = ?;\n")})
	out, err := Generate(in)
	require.NoError(t, err)
	db := string(out["db.go"])
	require.Contains(t, db, "var tTableIndex = [...]int32{\n\t-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,\n")
	require.Contains(t, db, "var tLayout = [][]int{\n\t{\n\t\t0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,\n")
	require.Contains(t, string(out["t.sql.go"]), "getTUnits[tLayout[ds][t]]")
	if !testing.Short() {
		goCmd(t, writeModule(t, out), nil, "vet", "./...")
	}
}

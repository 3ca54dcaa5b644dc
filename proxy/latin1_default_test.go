package proxy

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// l1Rules shards l1_customers by customer_id % 2 over ds_0 and ds_1.
const l1Rules = `      l1_customers:
        actualDataNodes: ds_${0..1}.l1_customers
        databaseStrategy:
          standard:
            shardingColumn: customer_id
            shardingAlgorithmName: l1_mod
    shardingAlgorithms:
      l1_mod:
        type: INLINE
        props:
          algorithm-expression: ds_${customer_id % 2}
`

// l1DDL names only the table's character set (DEFAULT CHARSET=latin1),
// whose default collation, latin1_swedish_ci, sorts Å, Ä and Ö after Z.
const l1DDL = `CREATE TABLE l1_customers (
  customer_id BIGINT NOT NULL,
  city VARCHAR(32) NOT NULL,
  name VARCHAR(32) NOT NULL,
  PRIMARY KEY (customer_id)
) DEFAULT CHARSET=latin1`

var l1Rows = []string{
	"INSERT INTO l1_customers VALUES (1, 'Lund', 'cafe'), (2, 'Lund', 'dag'), (3, 'Umeå', 'Åke'), (4, 'Umeå', 'bo')",
	"INSERT INTO l1_customers VALUES (5, 'Ängelholm', 'cafe'), (6, 'Ängelholm', 'Örjan'), (7, 'Malmö', 'eva'), (8, 'Malmö', 'cafe')",
	"INSERT INTO l1_customers VALUES (9, 'Örebro', 'Ärla'), (10, 'Örebro', 'zoe'), (11, 'Arvika', 'anna'), (12, 'Arvika', 'Anna')",
}

// TestLatin1DefaultCharsetTable: a table whose DDL names DEFAULT
// CHARSET=latin1 and no collation compares its text in latin1_swedish_ci
// (latin1's default), so HAVING, ORDER BY and GROUP BY over text across
// the data nodes run and match the unsharded reference instead of being
// refused as comparing in an unknown collation.
func TestLatin1DefaultCharsetTable(t *testing.T) {
	// The table is created on the data nodes, not through the proxy, so
	// the proxy knows it from its DDL alone (as from --ddl), not from the
	// data nodes' SHOW CREATE TABLE, which names the collation.
	y := strings.Replace(pxYAML(), "    shardingAlgorithms:\n", l1Rules, 1)
	e := newPxEnvDDL(t, y, l1DDL)
	px := e.client(t, "root", "secret", nil)
	for _, db := range []*sql.DB{testdb.Open(t, "ds_0"), testdb.Open(t, "ds_1"), e.ref} {
		execAll(t, db, "DROP TABLE IF EXISTS l1_customers", l1DDL)
		t.Cleanup(func() { execAll(t, db, "DROP TABLE IF EXISTS l1_customers") })
	}
	execAll(t, px, l1Rows...)
	execAll(t, e.ref, l1Rows...)
	for _, q := range []string{
		"SELECT city, MIN(name) FROM l1_customers GROUP BY city HAVING MIN(name) = 'cafe' ORDER BY city",
		"SELECT city, COUNT(*) FROM l1_customers GROUP BY city HAVING city > 'M' ORDER BY city",
		"SELECT city, MIN(name), MAX(name) FROM l1_customers WHERE city <> 'Arvika' GROUP BY city HAVING MIN(name) < 'c' ORDER BY city",
		"SELECT customer_id, name FROM l1_customers ORDER BY name, customer_id",
		"SELECT city, COUNT(*) FROM l1_customers GROUP BY city ORDER BY city DESC",
		"SELECT city, MAX(name) FROM l1_customers WHERE city <> 'Arvika' GROUP BY city ORDER BY MAX(name), city",
	} {
		sameRows(t, px, e.ref, q)
		// Merged from the data nodes, not over temporary tables.
		for _, r := range rowsOf(t, px, "PREVIEW "+q) {
			require.NotContains(t, r, "shardgen_federation", q)
		}
	}
}

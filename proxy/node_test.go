package proxy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// nodeSmoke is run by node with the proxy's host, port: text queries,
// a prepared execute with parameters, a transaction, a multi-statement
// query (one result set per statement) and an error.
const nodeSmoke = `
const mysql = require('mysql2/promise');
(async () => {
  const [host, port] = process.argv.slice(2);
  const c = await mysql.createConnection({host, port: Number(port), user: 'root', password: 'secret', database: 'px_db', multipleStatements: true});
  await c.query("INSERT INTO px_item (id, name, price, score) VALUES (1, 'a', 1.50, 15000000000), (2, 'b', NULL, 0.5)");
  const [rows] = await c.query('SELECT id, name, price, score FROM px_item ORDER BY id');
  console.log(JSON.stringify(rows));
  const [one] = await c.execute('SELECT id, name FROM px_item WHERE id = ?', [2]);
  console.log(JSON.stringify(one));
  await c.execute('BEGIN');
  await c.execute('INSERT INTO px_item (id, name) VALUES (?, ?)', [3, 'c']);
  await c.execute('COMMIT');
  const [cnt] = await c.query('SELECT COUNT(*) AS n FROM px_item');
  console.log(JSON.stringify(cnt));
  const [multi] = await c.query('SELECT COUNT(*) AS n FROM px_item WHERE id IN (1, 2); SELECT name FROM px_item WHERE id = 3');
  console.log(JSON.stringify(multi));
  try { await c.query('SELECT * FROM px_item WHERE'); } catch (e) { console.log(e.errno + ' ' + e.sqlState); }
  await c.end();
})().catch(e => { console.error(e); process.exit(1); });
`

// TestProxyNodeMySQL2 installs mysql2 from npm into a temporary directory
// and runs a smoke script through the proxy. Without node and npm it
// fails, naming what to install.
func TestProxyNodeMySQL2(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is not installed (apt-get install nodejs npm): the mysql2 smoke test needs it")
	npm, err := exec.LookPath("npm")
	require.NoError(t, err, "npm is not installed (apt-get install npm): the mysql2 smoke test needs it")
	dir := t.TempDir()
	out, err := exec.Command(npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--silent", "mysql2@3").CombinedOutput()
	require.NoError(t, err, "npm install mysql2: %s", out)
	script := filepath.Join(dir, "smoke.js")
	require.NoError(t, os.WriteFile(script, []byte(nodeSmoke), 0o644))
	e := newPxEnv(t)
	host, port, _ := strings.Cut(e.srv.Addr(), ":")
	cmd := exec.Command(node, script, host, port)
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, `[{"id":1,"name":"a","price":"1.50","score":15000000000},{"id":2,"name":"b","price":null,"score":0.5}]
[{"id":2,"name":"b"}]
[{"n":3}]
[[{"n":2}],[{"name":"c"}]]
1064 42000
`, string(out))
}

func TestValueOfDouble(t *testing.T) {
	long := plan.GoType{Name: "int64", Kind: runtime.KindLong}
	dec := plan.GoType{Name: "string", Kind: runtime.KindDecimal}
	tests := []struct {
		t    plan.GoType
		v    float64
		want runtime.Value
	}{
		{long, 2, runtime.Long(2)},
		{long, -7, runtime.Long(-7)},
		{long, 2.5, runtime.Decimal("2.5e+00")}, // a double: matches no row of an integer column
		{long, 1e300, runtime.Decimal("1e+300")},
		{long, 1 << 53, runtime.Decimal("9.007199254740992e+15")}, // routes to every data node
		{dec, 2, runtime.Decimal("2")},
	}
	for _, tt := range tests {
		got, err := ValueOf(tt.t, tt.v)
		require.NoError(t, err)
		require.Equal(t, tt.want, got, "%v", tt.v)
	}
}

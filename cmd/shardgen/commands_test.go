package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/runtime"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

const example = "../../examples/orders"

func TestGenerateCheckExample(t *testing.T) {
	code, _, stderr := runCLI("generate", "--check", "-f", example+"/shardgen.yaml")
	require.Equal(t, 0, code, stderr)
}

// TestGenerateWritesAndCleans copies the example project, generates it,
// then removes a query file: the stale generated file goes away and
// --check agrees with the result.
func TestGenerateWritesAndCleans(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"shardgen.yaml", "sharding.yaml", "schema.sql", "queries/orders.sql", "queries/dict.sql", "queries/items.sql"} {
		b, err := os.ReadFile(filepath.Join(example, f))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	code, stdout, stderr := runCLI("generate", "-f", filepath.Join(dir, "shardgen.yaml"))
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "15 queries in 3 files")
	for _, f := range []string{"db.go", "models.go", "orders.sql.go", "dict.sql.go", "items.sql.go"} {
		b, err := os.ReadFile(filepath.Join(dir, "db", f))
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(b, []byte(generatedHeader)), f)
		want, err := os.ReadFile(filepath.Join(example, "db", f))
		require.NoError(t, err)
		require.Equal(t, string(want), string(b), "%s differs from the committed example", f)
	}
	require.NoError(t, os.Remove(filepath.Join(dir, "queries/dict.sql")))
	code, _, stderr = runCLI("generate", "--check", "-f", filepath.Join(dir, "shardgen.yaml"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "dict.sql.go is no longer generated")
	code, _, stderr = runCLI("generate", "-f", filepath.Join(dir, "shardgen.yaml"))
	require.Equal(t, 0, code, stderr)
	_, err := os.Stat(filepath.Join(dir, "db", "dict.sql.go"))
	require.True(t, os.IsNotExist(err))
}

func TestGenerateReportsEveryError(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	rules, err := os.ReadFile(filepath.Join(example, "sharding.yaml"))
	require.NoError(t, err)
	write("sharding.yaml", string(rules))
	ddl, err := os.ReadFile(filepath.Join(example, "schema.sql"))
	require.NoError(t, err)
	write("schema.sql", string(ddl))
	write("shardgen.yaml", "version: \"1\"\nrules: sharding.yaml\nddl: [schema.sql]\nqueries: [q.sql]\nout: db\n")
	write("q.sql", `-- name: A :one
SELECT * FROM t_nope WHERE id = ?;

-- name: B :one
SELECT nope FROM t_order WHERE user_id = ? AND order_id = ?;

-- name: A :one
SELECT * FROM t_dict WHERE code = ?;

-- name: C :many
SELECT * FORM t_order;
`)
	code, _, stderr := runCLI("generate", "-f", filepath.Join(dir, "shardgen.yaml"))
	require.Equal(t, 1, code)
	q := filepath.Join(dir, "q.sql")
	require.Equal(t, q+`:2:15: query "A": unknown table "t_nope": no CREATE TABLE for it in the DDL
`+q+`:5:8: query "B": unknown column "nope" in table "t_order"
`+q+`:7:1: duplicate query name "A" (first defined at `+q+`:1:1)
`+q+`:11:10: query "C": syntax error: at position 14 near 'FORM'
`, stderr)
}

// TestGenerateDDLSyntaxError: a CREATE TABLE that does not parse is
// reported alone, not followed by its consequences (the rules' table
// "has no CREATE TABLE", the queries' "unknown table").
func TestGenerateDDLSyntaxError(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"shardgen.yaml", "sharding.yaml", "schema.sql", "queries/orders.sql", "queries/dict.sql", "queries/items.sql"} {
		b, err := os.ReadFile(filepath.Join(example, f))
		require.NoError(t, err)
		if f == "schema.sql" {
			b = bytes.Replace(b, []byte("status     VARCHAR(32) NOT NULL,"), []byte("status     VARCHAR(32) NOT NULL DEFALT 'new',"), 1)
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	code, _, stderr := runCLI("generate", "-f", filepath.Join(dir, "shardgen.yaml"))
	require.Equal(t, 1, code)
	require.Equal(t, filepath.Join(dir, "schema.sql")+":6:35: syntax error near 'DEFALT'\n", stderr)
}

func TestExplainExample(t *testing.T) {
	code, stdout, stderr := runCLI("explain", "-f", example+"/shardgen.yaml")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "GetOrder :one (queries/orders.sql:7)\n  route: SingleNode on t_order\n  database: standard user_id MOD (database_mod), inlined as Mod(v, 2)\n")
	code, stdout, stderr = runCLI("explain", "--format", "json", "-f", example+"/shardgen.yaml")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, `"kind": "SingleNode"`)
	code, _, stderr = runCLI("explain", "--format", "xml", "-f", example+"/shardgen.yaml")
	require.Equal(t, 2, code)
	require.Equal(t, "shardgen explain: --format must be text or json, got \"xml\"\n", stderr)
}

func TestPreview(t *testing.T) {
	base := []string{"preview", "-c", example + "/sharding.yaml", "--ddl", example + "/schema.sql"}
	code, stdout, stderr := runCLI(append(base, "--param", "7", "--param", "12345", "SELECT * FROM t_order WHERE user_id = ? AND order_id = ?")...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, `{"data_source":"ds_1","sql":"SELECT * FROM t_order_1 WHERE user_id = ? AND order_id = ?","params":["7","12345"]}`+"\n", stdout)

	code, stdout, stderr = runCLI(append(base, "UPDATE t_dict SET label = 'x' WHERE code = 'y'")...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, `{"data_source":"ds_0","sql":"UPDATE t_dict SET label = 'x' WHERE code = 'y'","params":[]}
{"data_source":"ds_1","sql":"UPDATE t_dict SET label = 'x' WHERE code = 'y'","params":[]}
`, stdout)

	// A multi-row INSERT: each data node gets only its rows.
	code, stdout, stderr = runCLI(append(base, "--param", "1", "--param", "10", "--param", "2", "--param", "11",
		"INSERT INTO t_order_item (order_item_id, order_id, user_id, sku, quantity, price) VALUES (5, ?, ?, 'a', 1, 1.0), (6, ?, ?, 'b', 1, 1.0)")...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, `{"data_source":"ds_0","sql":"INSERT INTO t_order_item_1 (order_item_id, order_id, user_id, sku, quantity, price) VALUES (5, ?, ?, 'a', 1, 1.0)","params":["1","10"]}
{"data_source":"ds_1","sql":"INSERT INTO t_order_item_2 (order_item_id, order_id, user_id, sku, quantity, price) VALUES (6, ?, ?, 'b', 1, 1.0)","params":["2","11"]}
`, stdout)

	code, _, stderr = runCLI(append(base, "--param", "1", "SELECT * FROM t_order WHERE user_id = ? AND order_id = ?")...)
	require.Equal(t, 2, code)
	require.Equal(t, "shardgen preview: the statement has 2 placeholders but 1 --param values were given\n", stderr)

	// 1.0 and 1e0 are the integer 1 to an integer column, as in MySQL.
	code, one, stderr := runCLI(append(base, "--param", "1", "--param", "1", "SELECT * FROM t_order WHERE user_id = ? AND order_id = ?")...)
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr = runCLI(append(base, "--param", "1.0", "--param", "1e0", "SELECT * FROM t_order WHERE user_id = ? AND order_id = ?")...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, strings.ReplaceAll(strings.Replace(one, `"1"`, `"1.0"`, 1), `,"1"]`, `,"1e0"]`), stdout)

	code, _, stderr = runCLI(append(base, "--param", "abc", "--param", "1", "SELECT * FROM t_order WHERE user_id = ? AND order_id = ?")...)
	require.Equal(t, 2, code)
	require.Equal(t, "shardgen preview: --param 1: \"abc\" is not an integer\n", stderr)

	// A SELECT whose tables do not co-locate: each step's units in order,
	// the statement bound with the subquery's rows last.
	code, stdout, stderr = runCLI(append(base, "SELECT order_id FROM t_order WHERE user_id = 1 AND order_id IN (SELECT order_id FROM t_order_item WHERE user_id = 2)")...)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 5)
	require.Equal(t, `{"data_source":"ds_0","sql":"/* step 1: in subquery */ select order_id from t_order_item_0 where user_id = 2","params":[]}`, lines[0])
	require.Equal(t, `{"data_source":"(bound)","sql":"/* step 2: the statement with the rows of step 1 bound as values, routed by them */ SELECT order_id FROM t_order WHERE user_id = 1 AND order_id IN (SELECT order_id FROM t_order_item WHERE user_id = 2)","params":[]}`, lines[4])

	// An UPDATE … ORDER BY … LIMIT over several data nodes: the keys on
	// each data node, then the write of those rows.
	code, stdout, stderr = runCLI(append(base, "UPDATE t_order SET status = 'x' WHERE user_id = 1 ORDER BY order_id DESC LIMIT 2")...)
	require.Equal(t, 0, code, stderr)
	lines = strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 5)
	require.Equal(t, `{"data_source":"ds_1","sql":"/* step 1: in subquery */ select t_order_0.order_id from t_order_0 where user_id = 1 order by order_id desc limit 2","params":[]}`, lines[0])
	require.Equal(t, "{\"data_source\":\"(bound)\",\"sql\":\"/* step 2: the write of exactly the rows whose keys step 1 selected (their keys bound as the IN list), without ORDER BY and LIMIT, as one all-or-nothing write over their data nodes, routed by them */ update t_order set `status` = 'x' where user_id = 1 and t_order.order_id in (select t_order.order_id from t_order where user_id = 1 order by order_id desc limit 2)\",\"params\":[]}", lines[4])
	code, _, stderr = runCLI(append(base, "DELETE FROM t_order ORDER BY status LIMIT 2")...)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "the ORDER BY must include every column of the primary key")

	// DDL on a logic table: the statement over each actual table.
	code, stdout, stderr = runCLI(append(base, "CREATE INDEX idx_status ON t_order (status)")...)
	require.Equal(t, 0, code, stderr)
	lines = strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 8)
	require.Equal(t, `{"data_source":"ds_0","sql":"alter table t_order_0 add key idx_status (`+"`status`"+`)","params":[]}`, lines[0])
	code, stdout, stderr = runCLI(append(base, "DROP TABLE t_dict")...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, `{"data_source":"ds_0","sql":"drop table t_dict","params":[]}
{"data_source":"ds_1","sql":"drop table t_dict","params":[]}
`, stdout)
}

// TestPreviewEncrypted: preview shows what each placeholder is sent with —
// the encrypted value for cipher and assisted-query columns (spec §5
// vectors: "hello" with key 123456abc, MD5 salt 123456).
func TestPreviewEncrypted(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "r.yaml")
	ddl := filepath.Join(dir, "s.sql")
	require.NoError(t, os.WriteFile(rules, []byte(`dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
rules:
- !ENCRYPT
  tables:
    t_user:
      columns:
        email:
          cipher: {name: email_cipher, encryptorName: aes}
          assistedQuery: {name: email_md5, encryptorName: md5}
  encryptors:
    aes: {type: AES, props: {aes-key-value: 123456abc}}
    md5: {type: MD5, props: {salt: "123456"}}
`), 0o644))
	require.NoError(t, os.WriteFile(ddl, []byte("CREATE TABLE t_user (id BIGINT PRIMARY KEY, email_cipher VARCHAR(128), email_md5 VARCHAR(64));"), 0o644))
	code, stdout, stderr := runCLI("preview", "-c", rules, "--ddl", ddl, "--param", "7", "--param", "hello", "INSERT INTO t_user (id, email) VALUES (?, ?)")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, `{"data_source":"ds_0","sql":"insert into t_user(id, email_cipher, email_md5) values (?, ?, ?)","params":["7","CxlvIvN1rRziSGk+hcqy6w==","eeb9bad681184779aa6570e402d6ef6c"]}`+"\n", stdout)
}

// TestPreviewGeneratedKey: an INSERT that omits its keyGenerateStrategy
// column takes --param values for its own placeholders only; preview makes
// the key with the rule's generator, as ShardingSphere's PREVIEW does, and
// routes each row by it.
func TestPreviewGeneratedKey(t *testing.T) {
	base := []string{"preview", "-c", example + "/sharding.yaml", "--ddl", example + "/schema.sql"}
	hashMod, err := runtime.NewAlgorithm("HASH_MOD", runtime.Props{"sharding-count": "4"})
	require.NoError(t, err)
	tables := []string{"t_order_0", "t_order_1", "t_order_2", "t_order_3"}
	router, err := hashMod.(runtime.StandardAlgorithm).BindStandard("order_id", tables)
	require.NoError(t, err)
	code, stdout, stderr := runCLI(append(base, "--param", "7", "--param", "NEW", "--param", "9.90", "--param", "2026-11-01 12:00:00",
		"--param", "8", "--param", "PAID", "--param", "1.00", "--param", "2026-11-02 12:00:00",
		"INSERT INTO t_order (user_id, status, amount, created_at) VALUES (?, ?, ?, ?), (?, ?, ?, ?)")...)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 2)
	var keys []int64
	for i, line := range lines {
		var u struct {
			DataSource string   `json:"data_source"`
			SQL        string   `json:"sql"`
			Params     []string `json:"params"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &u))
		require.Len(t, u.Params, 5)
		key, err := strconv.ParseInt(u.Params[4], 10, 64)
		require.NoError(t, err, "the generated key")
		keys = append(keys, key)
		ti, err := router.Precise(runtime.Long(key))
		require.NoError(t, err)
		require.Equal(t, []string{"ds_1", "ds_0"}[i], u.DataSource) // user_id 7, 8 (MOD 2)
		require.Equal(t, "INSERT INTO "+tables[ti]+" (user_id, status, amount, created_at, order_id) VALUES (?, ?, ?, ?, ?)", u.SQL)
	}
	require.Less(t, keys[0], keys[1], "one key per row, in row order")

	code, _, stderr = runCLI(append(base, "--param", "7", "--param", "NEW", "--param", "9.90", "--param", "2026-11-01 12:00:00", "--param", "1",
		"INSERT INTO t_order (user_id, status, amount, created_at) VALUES (?, ?, ?, ?)")...)
	require.Equal(t, 2, code)
	require.Equal(t, "shardgen preview: the statement has 4 placeholders but 5 --param values were given\n", stderr)
}

// TestExplainPointerNulls: with emit_pointers_for_null_types, explain shows
// the *T types the generated methods take and return, not sql.NullString.
func TestExplainPointerNulls(t *testing.T) {
	dir := t.TempDir()
	rules, err := os.ReadFile(filepath.Join(example, "sharding.yaml"))
	require.NoError(t, err)
	head, _, ok := strings.Cut(string(rules), "\nrules:\n")
	require.True(t, ok)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sharding.yaml"), []byte(head+"\nrules:\n- !BROADCAST\n  tables: [t_dict]\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte("CREATE TABLE t_dict (code VARCHAR(32) NOT NULL PRIMARY KEY, note VARCHAR(10) NULL);\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "q.sql"), []byte("-- name: SetNote :exec\nUPDATE t_dict SET note = ? WHERE code = ?;\n"), 0o644))
	project := filepath.Join(dir, "shardgen.yaml")
	for _, pointers := range []bool{false, true} {
		src := "version: \"1\"\nrules: sharding.yaml\nddl: [schema.sql]\nqueries: [q.sql]\nout: db\n"
		want := "  params: note sql.NullString, code string\n"
		if pointers {
			src += "emit_pointers_for_null_types: true\n"
			want = "  params: note *string, code string\n"
		}
		require.NoError(t, os.WriteFile(project, []byte(src), 0o644))
		code, out, errOut := runCLI("explain", "-f", project)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, want)
		code, out, errOut = runCLI("explain", "-f", project, "--format", "json")
		require.Equal(t, 0, code, errOut)
		require.Equal(t, pointers, strings.Contains(out, `"*string"`), out)
	}
}

// TestPreviewShow: preview of SHOW and DESCRIBE statements shows where the
// proxy runs them and what it sends, as its PREVIEW does: a table's SHOW
// on its first actual table, SHOW VARIABLES on the first data source;
// SHOW TABLES (answered from the logic tables), a table the DDL lacks and
// another database are refused with the reason (issue 16).
func TestPreviewShow(t *testing.T) {
	base := []string{"preview", "-c", example + "/sharding.yaml", "--ddl", example + "/schema.sql"}
	for q, want := range map[string]string{
		"SHOW CREATE TABLE t_order":                  `{"data_source":"ds_0","sql":"SHOW CREATE TABLE ` + "`t_order_0`" + `","params":[]}`,
		"show full columns from t_order like 'st%';": `{"data_source":"ds_0","sql":"SHOW FULL COLUMNS FROM ` + "`t_order_0`" + ` like 'st%'","params":[]}`,
		"SHOW INDEX FROM t_order_item FROM shop":     `{"data_source":"ds_0","sql":"SHOW INDEX FROM ` + "`t_order_item_0`" + `","params":[]}`,
		"DESCRIBE t_order status":                    `{"data_source":"ds_0","sql":"DESCRIBE ` + "`t_order_0`" + ` status","params":[]}`,
		"EXPLAIN t_dict":                             `{"data_source":"ds_0","sql":"DESCRIBE ` + "`t_dict`" + `","params":[]}`,
		"SHOW SESSION VARIABLES LIKE 'time_zone'":    `{"data_source":"ds_0","sql":"show variables like 'time_zone'","params":[]}`,
	} {
		code, stdout, stderr := runCLI(append(base, q)...)
		require.Equal(t, 0, code, "%s: %s", q, stderr)
		require.Equal(t, want+"\n", stdout, q)
	}
	for q, want := range map[string]string{
		"SHOW TABLES":                      "shardgen preview: This version of the shardgen proxy doesn't yet support PREVIEW of SHOW TABLES: the proxy answers it from its logic tables, not by running it on a data node\n",
		"SHOW CREATE TABLE t_nope":         "shardgen preview: table \"t_nope\" is not defined: no CREATE TABLE for it in the DDL\n",
		"SHOW COLUMNS FROM t_order FROM x": "shardgen preview: database \"x\" is not the logic database \"shop\"\n",
	} {
		code, _, stderr := runCLI(append(base, q)...)
		require.Equal(t, 1, code, q)
		require.Equal(t, want, stderr, q)
	}
}

// TestExplainStepRoute: a step comparing a sharding column with a
// parameter shows the run-time narrowing of its route units.
func TestExplainStepRoute(t *testing.T) {
	code, stdout, stderr := runCLI("explain", "-f", "../../gen_test/cases/steps/shardgen.yaml")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "OrdersOfUserByID :many")
	require.Contains(t, stdout, "  step 1: the IN subquery\n    route units: by ? (g50_user.user_id), only the data nodes of their values\n")
}

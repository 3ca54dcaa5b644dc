package proxy

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/schema"
)

// sbDDL is sysbench 1.0.20's sbtest1 (oltp_common.lua, MySQL driver).
const sbDDL = `CREATE TABLE sbtest1 (
  id INT NOT NULL AUTO_INCREMENT,
  k INT NOT NULL DEFAULT 0,
  c CHAR(120) NOT NULL DEFAULT '',
  pad CHAR(60) NOT NULL DEFAULT '',
  PRIMARY KEY (id),
  KEY k_1 (k)
)`

// TestProxySysbench runs Debian's sysbench unmodified through the proxy
// (sbtest1 sharded by id MOD 2 over ds_0 and ds_1), with its default
// server-side prepared statements (BEGIN and COMMIT included): prepare,
// oltp_point_select, oltp_read_write and oltp_insert (--auto_inc=off), then
// cleanup. oltp_insert with auto_inc on inserts id 0, which the proxy
// refuses with the reason once id is AUTO_INCREMENT on the data sources.
func TestProxySysbench(t *testing.T) {
	cfg, err := ParseConfig("sb.yaml", []byte(sbYAML()))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("sb.sql", []byte(sbDDL))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	srv, run := startSysbenchProxy(t, cfg)
	out, err := run("oltp_read_write", "--auto_inc=off", "prepare")
	require.NoError(t, err, out)
	// oltp_read_write runs one thread: its transactions span both data
	// sources (LOCAL), and a deadlock across two servers is seen by
	// neither, so concurrent ones would wait for innodb_lock_wait_timeout.
	for _, test := range []struct{ name, threads string }{{"oltp_point_select", "4"}, {"oltp_read_write", "1"}, {"oltp_insert", "4"}} {
		out, err := run(test.name, "--threads="+test.threads, "--auto_inc=off", "--time=2", "--report-interval=0", "run")
		require.NoError(t, err, out)
		require.Regexp(t, `transactions:\s+[1-9]\d*\s`, out, test.name)
		require.Regexp(t, `ignored errors:\s+0\s`, out, test.name)
	}
	// Rows are on the data source their id routes to (PREVIEW: the
	// planner's route), negative ids of oltp_insert included.
	px, err := sql.Open("mysql", "sb:sb@tcp("+srv.Addr()+")/sbtest")
	require.NoError(t, err)
	defer px.Close()
	for _, ds := range []string{"ds_0", "ds_1"} {
		rows, err := testdb.Open(t, ds).Query("(SELECT id FROM sbtest1 ORDER BY id LIMIT 100) UNION (SELECT id FROM sbtest1 ORDER BY id DESC LIMIT 100)")
		require.NoError(t, err)
		var ids []int64
		for rows.Next() {
			var id int64
			require.NoError(t, rows.Scan(&id))
			ids = append(ids, id)
		}
		require.NoError(t, rows.Close())
		require.NotEmpty(t, ids)
		for _, id := range ids {
			var got, actual string
			require.NoError(t, px.QueryRow(fmt.Sprintf("PREVIEW SELECT c FROM sbtest1 WHERE id = %d", id)).Scan(&got, &actual))
			require.Equal(t, ds, got, "id %d", id)
		}
	}
	// prepare --auto_inc=off made id a plain column, so the planner
	// (following the actual tables since the CREATE TABLE) lets an id 0
	// through, as one server would. Once id is AUTO_INCREMENT, an id 0
	// is refused.
	_, err = px.Exec("ALTER TABLE sbtest1 MODIFY id INT NOT NULL AUTO_INCREMENT")
	require.NoError(t, err)
	out, err = run("oltp_insert", "--time=1", "--report-interval=0", "run")
	require.Error(t, err)
	require.Contains(t, out, "INSERT of 0 or NULL into the AUTO_INCREMENT sharding column id of sbtest1: the back end would assign an id of another shard")
	out, err = run("oltp_read_write", "cleanup")
	require.NoError(t, err, out)
	requireNoSbtest1(t)
}

// sbYAML is the proxy configuration of the sysbench tests: sbtest1 sharded
// by id MOD 2 over ds_0 and ds_1.
func sbYAML() string {
	var y strings.Builder
	y.WriteString("databaseName: sbtest\ndataSources:\n")
	for _, ds := range testdb.DataSources()[:2] {
		c := testdb.Config(ds)
		fmt.Fprintf(&y, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n    maxPoolSize: 8\n", ds, c.Addr, ds, c.User, c.Passwd)
	}
	y.WriteString(sbRulesYAML)
	return y.String()
}

// sbRulesYAML are the rules and users of sbYAML: sbtest1 sharded by id
// MOD 2 over ds_0 and ds_1, the user sb (password sb).
const sbRulesYAML = `rules:
  - !SHARDING
    tables:
      sbtest1:
        actualDataNodes: ds_${0..1}.sbtest1
        databaseStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: mod
    shardingAlgorithms:
      mod:
        type: MOD
        props:
          sharding-count: 2
authority:
  users:
    - user: sb@%
      password: sb
`

// startSysbenchProxy drops sbtest1 from ds_0 and ds_1, starts a proxy
// with cfg and returns it with a function that runs sysbench (one table of
// 500 rows) through it with more arguments, returning its output.
func startSysbenchProxy(t *testing.T, cfg *Config) (*Server, func(args ...string) (string, error)) {
	t.Helper()
	bin, err := exec.LookPath("sysbench")
	require.NoError(t, err, "sysbench is not installed (scripts/test-deps.sh)")
	for _, ds := range []string{"ds_0", "ds_1"} {
		_, err := testdb.Open(t, ds).Exec("DROP TABLE IF EXISTS sbtest1")
		require.NoError(t, err)
	}
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	host, port, _ := strings.Cut(srv.Addr(), ":")
	return srv, func(args ...string) (string, error) {
		all := append([]string{"--db-driver=mysql", "--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=sb",
			"--mysql-password=sb", "--mysql-db=sbtest", "--tables=1", "--table-size=500"}, args...)
		out, err := exec.Command(bin, all...).CombinedOutput()
		return string(out), err
	}
}

// requireNoSbtest1 checks that sbtest1 is gone from ds_0 and ds_1.
func requireNoSbtest1(t *testing.T) {
	t.Helper()
	for _, ds := range []string{"ds_0", "ds_1"} {
		var n int
		require.NoError(t, testdb.Open(t, ds).QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'sbtest1'").Scan(&n))
		require.Zero(t, n, ds)
	}
}

// TestProxySysbenchRulesAlone runs sysbench oltp_read_write's prepare, a
// short run and cleanup through a proxy started with the rules file alone
// (no DDL, as a ShardingSphere-Proxy user starts it): sbtest1 exists
// nowhere at the start, prepare's CREATE TABLE and CREATE INDEX through
// the proxy give the planner its definition, and cleanup's DROP TABLE
// forgets it again.
func TestProxySysbenchRulesAlone(t *testing.T) {
	path := t.TempDir() + "/sb.yaml"
	require.NoError(t, os.WriteFile(path, []byte(sbYAML()), 0o600))
	cfg, err := LoadConfig(path, nil)
	require.NoError(t, err)
	require.False(t, cfg.HasDDL)
	srv, run := startSysbenchProxy(t, cfg)
	out, err := run("oltp_read_write", "--auto_inc=off", "prepare")
	require.NoError(t, err, out)
	require.NotNil(t, srv.b.Table("sbtest1"))
	require.NotNil(t, srv.b.Table("sbtest1").Column("k"))
	out, err = run("oltp_read_write", "--threads=1", "--auto_inc=off", "--time=2", "--report-interval=0", "run")
	require.NoError(t, err, out)
	require.Regexp(t, `transactions:\s+[1-9]\d*\s`, out)
	require.Regexp(t, `ignored errors:\s+0\s`, out)
	out, err = run("oltp_read_write", "cleanup")
	require.NoError(t, err, out)
	require.Nil(t, srv.b.Table("sbtest1"))
	requireNoSbtest1(t)
}

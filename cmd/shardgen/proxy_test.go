package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// writeProxyConfig writes a proxy configuration over ds_0 (table
// cli_px_item, unsharded) with users, and its DDL; it returns both paths.
func writeProxyConfig(t *testing.T, users string) (string, string) {
	dir := t.TempDir()
	c := testdb.Config("ds_0")
	conf := fmt.Sprintf(`databaseName: cli_db
dataSources:
  ds_0:
    url: jdbc:mysql://%s/ds_0
    username: %s
    password: %s
rules:
  - !SINGLE
    tables:
      - "*.*"
%s`, c.Addr, c.User, c.Passwd, users)
	cp := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cp, []byte(conf), 0o600))
	dp := filepath.Join(dir, "schema.sql")
	require.NoError(t, os.WriteFile(dp, []byte("CREATE TABLE cli_px_item (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(10));\n"), 0o600))
	return cp, dp
}

func TestProxyCommand(t *testing.T) {
	conf, ddl := writeProxyConfig(t, "authority:\n  users:\n    - user: root@%\n      password: pw\n")
	ds0 := testdb.Open(t, "ds_0")
	for _, q := range []string{"DROP TABLE IF EXISTS cli_px_item", "CREATE TABLE cli_px_item (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(10))"} {
		_, err := ds0.Exec(q)
		require.NoError(t, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runProxyCtx(ctx, []string{"-c", conf, "--ddl", ddl, "--listen", "127.0.0.1:0"}, pw, &stderr)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan(), stderr.String())
	addr, ok := strings.CutPrefix(lines.Text(), "shardgen proxy: listening on ")
	require.True(t, ok, lines.Text())

	c := gomysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr, c.DBName = "root", "pw", "tcp", addr, "cli_db"
	db, err := sql.Open("mysql", c.FormatDSN())
	require.NoError(t, err)
	defer db.Close()
	var name string
	require.NoError(t, db.QueryRow("SELECT DATABASE()").Scan(&name))
	require.Equal(t, "cli_db", name)
	// The DDL file's table, besides ds_0's others ("*.*"), as the data
	// source has them.
	rows, err := db.Query("SHOW TABLES")
	require.NoError(t, err)
	var tables []string
	for rows.Next() {
		require.NoError(t, rows.Scan(&name))
		tables = append(tables, name)
	}
	require.NoError(t, rows.Err())
	require.Contains(t, tables, "cli_px_item")
	db.Close()

	cancel()
	require.True(t, lines.Scan())
	require.True(t, strings.HasPrefix(lines.Text(), "shardgen proxy: stopped"), lines.Text())
	require.Equal(t, 0, <-done, stderr.String())
}

func TestProxyCommandErrors(t *testing.T) {
	conf, ddl := writeProxyConfig(t, "")
	// Start errors carry one prefix (they had "shardgen proxy: proxy: "):
	// the configuration file's name for a problem of the file, else
	// "shardgen proxy: ".
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	addr := busy.Addr().String()
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, 2, "usage: shardgen proxy -c config.yaml [--ddl schema.sql...] [--listen 127.0.0.1:3307] [--insecure] [--shutdown-timeout 10s] [--metrics 127.0.0.1:9307] [--fast-path=false]\n"},
		{[]string{"-c", conf, "--ddl", ddl}, 1, conf + ": no users are configured (authority.users); add one or start with --insecure to accept any user\n"},
		{[]string{"-c", conf + ".missing"}, 1, "open " + conf + ".missing: no such file or directory\n"},
		{[]string{"-c", conf, "--ddl", ddl, "--insecure", "--listen", addr}, 1, "shardgen proxy: listen on " + addr + ": listen tcp " + addr + ": bind: address already in use\n"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := runProxyCtx(context.Background(), tt.args, &stdout, &stderr)
		require.Equal(t, tt.code, code, stderr.String())
		require.Equal(t, tt.stderr, stderr.String())
	}
}

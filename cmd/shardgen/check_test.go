package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// TestCheckBroadcast: `shardgen check broadcast` says the copies of a
// broadcast table agree, then, after a row is changed on one copy and the
// table dropped from another, lists the copies that differ and exits 1.
func TestCheckBroadcast(t *testing.T) {
	var y bytes.Buffer
	y.WriteString("databaseName: cli_db\ndataSources:\n")
	for _, ds := range []string{"ds_0", "ds_1", "ds_2"} {
		c := testdb.Config(ds)
		fmt.Fprintf(&y, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n", ds, c.Addr, ds, c.User, c.Passwd)
	}
	y.WriteString("rules:\n- !BROADCAST\n  tables:\n  - cli_bc_dict\n")
	conf := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(conf, y.Bytes(), 0o600))
	for _, ds := range []string{"ds_0", "ds_1", "ds_2"} {
		db := testdb.Open(t, ds)
		for _, q := range []string{
			"DROP TABLE IF EXISTS cli_bc_dict",
			"CREATE TABLE cli_bc_dict (id BIGINT PRIMARY KEY, v VARCHAR(20) NOT NULL)",
			"INSERT INTO cli_bc_dict VALUES (1, 'a'), (2, 'b')",
		} {
			_, err := db.Exec(q)
			require.NoError(t, err)
		}
		t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS cli_bc_dict") })
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"check", "broadcast", "-c", conf}, nil, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	require.Regexp(t, `^cli_bc_dict: 3 copies equal \(checksum \d+, 2 rows\)\n$`, stdout.String())

	_, err := testdb.Open(t, "ds_1").Exec("UPDATE cli_bc_dict SET v = 'changed' WHERE id = 2")
	require.NoError(t, err)
	_, err = testdb.Open(t, "ds_2").Exec("DROP TABLE cli_bc_dict")
	require.NoError(t, err)
	stdout.Reset()
	code = run([]string{"check", "broadcast", "-c", conf, "--table", "cli_bc_dict"}, nil, &stdout, &stderr)
	require.Equal(t, 1, code, stderr.String())
	out := regexp.MustCompile(`checksum \d+`).ReplaceAllString(stdout.String(), "checksum N")
	require.Equal(t, "cli_bc_dict: copies differ\n"+
		"  ds_0  checksum N  2 rows\n"+
		"! ds_1  checksum N  2 rows\n"+
		"! ds_2  missing\n", out)

	stderr.Reset()
	require.Equal(t, 1, run([]string{"check", "broadcast", "-c", conf, "--table", "t_nope"}, nil, &stdout, &stderr))
	require.Equal(t, fmt.Sprintf("shardgen check: %q is not a broadcast table of %s\n", "t_nope", conf), stderr.String())
	require.Equal(t, 2, run([]string{"check"}, nil, &stdout, &stderr))
}

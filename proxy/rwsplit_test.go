package proxy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// TestProxyReadWriteGroups: data nodes on a !READWRITE_SPLITTING group work
// through the proxy: writes go to the group's primary, reads to its replica
// (the real GTID replica of server 0), and broadcast-style fan-out never
// writes the replica directly. (Found by a fresh-user run: every statement
// on a group failed with "data source is not configured".)
func TestProxyReadWriteGroups(t *testing.T) {
	var b strings.Builder
	b.WriteString("databaseName: px_db\ndataSources:\n")
	for _, ds := range []string{"ds_0", "ds_1"} {
		c := testdb.Config(ds)
		fmt.Fprintf(&b, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n", ds, c.Addr, ds, c.User, c.Passwd)
	}
	rc := testdb.ReplicaConfig("ds_0")
	fmt.Fprintf(&b, "  ds_0_read:\n    url: jdbc:mysql://%s/ds_0\n    username: %s\n    password: %s\n", rc.Addr, rc.User, rc.Passwd)
	b.WriteString(strings.Replace(pxRules, "actualDataNodes: ds_${0..1}.px_item_${0..1}", "actualDataNodes: rw_${0..1}.px_item_${0..1}", 1))
	b.WriteString(`  - !READWRITE_SPLITTING
    dataSourceGroups:
      rw_0:
        writeDataSourceName: ds_0
        readDataSourceNames: [ds_0_read]
      rw_1:
        writeDataSourceName: ds_1
        readDataSourceNames: [ds_1]
`)
	y := strings.Replace(b.String(), "algorithm-expression: ds_${id % 2}", "algorithm-expression: rw_${id % 2}", 1)
	// The rules block of pxRules ends before authority:, keep that order.
	y = moveAuthorityLast(y)
	e := newPxEnvYAML(t, y)
	c := e.client(t, "root", "secret", map[string]string{"interpolateParams": "true"})
	for id := 1; id <= 6; id++ {
		_, err := c.Exec("INSERT INTO px_item (id, name) VALUES (?, ?)", id, fmt.Sprintf("n%d", id))
		require.NoError(t, err)
	}
	testdb.WaitReplicated(t, testdb.Open(t, "ds_0"), testdb.OpenReplica(t, "ds_0"), 10*time.Second)
	var want []string
	for id := 1; id <= 6; id++ {
		want = append(want, fmt.Sprintf("int64:%d | string:n%d", id, id))
	}
	require.Equal(t, want, rowsOf(t, c, "SELECT id, name FROM px_item ORDER BY id"))
}

// moveAuthorityLast moves the authority: block of a proxy YAML after the
// rules (it is a top-level key; order does not matter to YAML, but keeping
// the rules contiguous keeps the appended rule inside rules:).
func moveAuthorityLast(y string) string {
	i := strings.Index(y, "authority:")
	j := strings.Index(y, "  - !READWRITE_SPLITTING")
	if i < 0 || j < 0 || j < i {
		return y
	}
	return y[:i] + y[j:] + y[i:j]
}

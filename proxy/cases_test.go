package proxy

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/sharedcases"
	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/schema"
)

// TestSharedCasesThroughProxy runs every shared case through a running
// proxy with go-sql-driver, over each protocol the case names ("any": text
// with interpolateParams=true and binary prepared statements): seed, session
// statements, then the query, whose rows must equal the checked answer.
func TestSharedCasesThroughProxy(t *testing.T) {
	cases, err := sharedcases.Load()
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	for _, c := range cases {
		protocols := []string{"text", "binary"}
		if c.Protocol == "text" || c.Protocol == "binary" {
			protocols = []string{c.Protocol}
		}
		for _, proto := range protocols {
			t.Run(c.ID+"/"+proto, func(t *testing.T) { runCase(t, c, proto) })
		}
	}
}

func runCase(t *testing.T, c sharedcases.Case, proto string) {
	n := c.DataSources()
	var y strings.Builder
	y.WriteString("databaseName: cases\ndataSources:\n")
	for _, ds := range testdb.DataSources()[:n] {
		cfg := testdb.Config(ds)
		fmt.Fprintf(&y, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n", ds, cfg.Addr, ds, cfg.User, cfg.Passwd)
	}
	y.WriteString(c.RuleYAML)
	cfg, err := ParseConfig(c.ID+".yaml", []byte(y.String()))
	require.NoError(t, err)
	tables, err := schema.ParseDDL(c.ID+".sql", []byte(strings.Join(c.DDL, ";\n")))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	// Actual tables: every data node of a sharded table, other tables on
	// every data source.
	ctx := context.Background()
	for _, tbl := range tables {
		var create string
		for _, d := range c.DDL {
			if f := strings.Fields(d); len(f) > 2 && strings.EqualFold(f[2], tbl.Name) {
				create = d
			}
		}
		placed := false
		if cfg.Rules.Sharding != nil {
			for _, r := range cfg.Rules.Sharding.Tables {
				if strings.EqualFold(r.LogicTable, tbl.Name) {
					for _, dn := range r.DataNodes {
						db := testdb.Open(t, dn.DataSource)
						_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+dn.Table)
						require.NoError(t, err)
						_, err = db.ExecContext(ctx, strings.Replace(create, tbl.Name, dn.Table, 1))
						require.NoError(t, err)
					}
					placed = true
				}
			}
		}
		if !placed {
			for _, ds := range testdb.DataSources()[:n] {
				db := testdb.Open(t, ds)
				_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+tbl.Name)
				require.NoError(t, err)
				_, err = db.ExecContext(ctx, create)
				require.NoError(t, err)
			}
		}
	}
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", Insecure: true})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	defer srv.Close()
	mc := gomysql.NewConfig()
	mc.User, mc.Net, mc.Addr, mc.DBName = "any", "tcp", srv.Addr(), "cases"
	if proto == "text" {
		mc.InterpolateParams = true
	}
	db, err := sql.Open("mysql", mc.FormatDSN())
	require.NoError(t, err)
	defer db.Close()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	for _, s := range c.SeedSQL {
		_, err := conn.ExecContext(ctx, s)
		require.NoError(t, err, s)
	}
	for _, s := range c.SessionSQL {
		res, err := conn.ExecContext(ctx, s.SQL, s.Params...)
		require.NoError(t, err, s.SQL)
		if want, ok := strings.CutPrefix(s.Expect, "affected_rows="); ok {
			got, err := res.RowsAffected()
			require.NoError(t, err)
			require.Equal(t, want, strconv.FormatInt(got, 10), s.SQL)
		}
	}
	params := make([]any, len(c.Params))
	for i, v := range c.Params {
		if f, ok := v.(float64); ok && f == float64(int64(f)) {
			v = int64(f)
		}
		params[i] = v
	}
	rows, err := conn.QueryContext(ctx, c.Query, params...)
	require.NoError(t, err, c.Query)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var got, want [][]string
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		row := make([]string, len(cols))
		for i, v := range vals {
			if v == nil {
				row[i] = "NULL"
			} else {
				row[i] = string(v)
			}
		}
		got = append(got, row)
	}
	require.NoError(t, rows.Err())
	want = c.Want()
	if !c.OrderMatters {
		sortRows(want)
		sortRows(got)
	}
	require.Equal(t, want, got, "%s: %s", c.ID, c.Query)
}

func sortRows(rows [][]string) {
	sort.Slice(rows, func(i, j int) bool { return strings.Join(rows[i], "\x00") < strings.Join(rows[j], "\x00") })
}

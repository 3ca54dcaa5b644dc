package proxy

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/schema"
)

// typesDDL is a table with a column of every common MySQL type; its logic
// name is px_types (sharded by id % 2 over ds_0 and ds_1, one table each),
// and the reference database holds the same table and rows unsharded.
const typesDDL = `CREATE TABLE px_types (
  id BIGINT NOT NULL,
  ti TINYINT NULL, tiu TINYINT UNSIGNED NULL,
  si SMALLINT NULL, siu SMALLINT UNSIGNED NULL,
  mi MEDIUMINT NULL, miu MEDIUMINT UNSIGNED NULL,
  i INT NULL, iu INT UNSIGNED NOT NULL DEFAULT 0,
  bi BIGINT NULL, biu BIGINT UNSIGNED NULL,
  dc DECIMAL(20,6) NULL, dc0 DECIMAL(10,0) NULL,
  f FLOAT NULL, d DOUBLE NULL, d3 DOUBLE(12,3) NULL,
  dt DATE NULL, dtm DATETIME NULL, dtm6 DATETIME(6) NULL,
  ts TIMESTAMP NULL DEFAULT NULL, ts3 TIMESTAMP(3) NULL DEFAULT NULL,
  tm TIME NULL, tm6 TIME(6) NULL, yr YEAR NULL,
  c CHAR(10) NULL, vc VARCHAR(64) NULL, tx TEXT NULL,
  bn BINARY(4) NULL, vb VARBINARY(16) NULL, bl BLOB NULL,
  en ENUM('a','b','ü') NULL, st SET('x','y','z') NULL,
  js JSON NULL, bt BIT(10) NULL, bt1 BIT(1) NULL,
  PRIMARY KEY (id)
) DEFAULT CHARSET=utf8mb4`

// typesRows are the rows of px_types, as INSERT value lists: every type at
// ordinary values, at its extremes, all NULL, and MySQL's zero dates.
var typesRows = []string{
	`(1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, '12345.678901', '42', 1.5, 15000000000, 1.25,
	  '2026-11-05', '2026-11-05 12:34:56', '2026-11-05 12:34:56.123456', '2026-11-05 12:34:56', '2026-11-05 12:34:56.789',
	  '12:34:56', '-838:59:58.999999', 2026, 'ab', 'grüße ✓ 𝄞', 'text ✓', X'00FF', X'DEADBEEF', X'00010203', 'ü', 'x,z',
	  '{"a": [1, 2.5, "x"]}', b'1010101010', b'1')`,
	`(2, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295,
	  -9223372036854775808, 18446744073709551615, '-99999999999999.999999', '-9999999999', -3.40282e38, 1e-7, -123456789.125,
	  '1000-01-01', '9999-12-31 23:59:59', '1000-01-01 00:00:00.000001', '1970-01-02 00:00:01', '2038-01-19 03:14:07.999',
	  '838:59:59', '00:00:00.5', 1901, '', '', '', '', '', '', 'a', '', 'null', b'0', b'0')`,
	`(3, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0, '0.000001', '0', 3.40282e38, -1.7976931348623157e308, 0,
	  '2000-02-29', '2000-02-29 00:00:00', '2000-02-29 23:59:59.999999', '2000-02-29 00:00:00', '2000-02-29 00:00:00.001',
	  '-00:00:01', '00:00:00', 2155, 'Ωmega', 'it''s \\ "q"', REPEAT('long ', 100), X'61', X'', X'FF', 'b', 'x,y,z',
	  '[]', b'1111111111', b'1')`,
	`(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
	`(5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '0', '0', 0.1, 0.1, 0.1, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00.000000',
	  '0000-00-00 00:00:00', '0000-00-00 00:00:00', '00:00:00', '00:00:00', 0, 'z', 'z', 'z', X'7A', X'7A', X'7A', '', 'y', '{}', b'0', b'0')`,
	`(6, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, '-0.5', '-1', 123456.7, 1.2345678901234567e17, -0.001,
	  '2026-01-01', '2026-01-01 00:00:00', '2026-01-01 00:00:00.100000', '2026-01-01 00:00:00', '2026-01-01 00:00:00.100',
	  '-12:00:00.25', '23:59:59.000001', 1970, 'x ', 'trailing  ', 'é', X'20', X'20', X'20', 'ü', 'z', '"s"', b'1', b'1')`,
}

// typesYAML is the proxy configuration of px_types.
func typesYAML() string {
	var b strings.Builder
	b.WriteString("databaseName: px_db\ndataSources:\n")
	for _, ds := range testdb.DataSources()[:2] {
		c := testdb.Config(ds)
		fmt.Fprintf(&b, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n    maxPoolSize: 4\n", ds, c.Addr, ds, c.User, c.Passwd)
	}
	b.WriteString(`rules:
  - !SHARDING
    tables:
      px_types:
        actualDataNodes: ds_${0..1}.px_types
        databaseStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: db_inline
    shardingAlgorithms:
      db_inline:
        type: INLINE
        props:
          algorithm-expression: ds_${id % 2}
`)
	return b.String()
}

// TestProxyBytesEveryType compares what a client receives from the proxy
// and directly from MariaDB for a column of every common type: over the
// text protocol the raw bytes of every cell (sql.RawBytes), over the binary
// protocol the values go-sql-driver decodes (with their Go types), and in
// both the column metadata the driver exposes (name, DatabaseTypeName,
// Nullable, DecimalSize, ScanType). The proxy side reads one data node per
// row (WHERE id = ?) and both data nodes merged (ORDER BY id).
func TestProxyBytesEveryType(t *testing.T) {
	ctx := context.Background()
	cfg, err := ParseConfig("px.yaml", []byte(typesYAML()))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("px.sql", []byte(typesDDL))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	// Zero dates need a sql_mode without NO_ZERO_DATE / NO_ZERO_IN_DATE.
	lax := map[string]string{"sql_mode": "'NO_ENGINE_SUBSTITUTION'", "time_zone": "'+00:00'"}
	load := func(dbName string, ids func(int) bool) {
		db := testdb.OpenWith(t, dbName, lax)
		_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS px_types")
		require.NoError(t, err)
		_, err = db.ExecContext(ctx, typesDDL)
		require.NoError(t, err)
		for i, r := range typesRows {
			if ids(i + 1) {
				_, err = db.ExecContext(ctx, "INSERT INTO px_types VALUES "+r)
				require.NoError(t, err, r)
			}
		}
	}
	load("reference", func(int) bool { return true })
	load("ds_0", func(id int) bool { return id%2 == 0 })
	load("ds_1", func(id int) bool { return id%2 == 1 })

	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", Insecure: true, ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	open := func(addr, dbName string, params map[string]string) *sql.DB {
		c := gomysql.NewConfig()
		if addr == "" {
			c = testdb.Config(dbName)
		} else {
			c.User, c.Net, c.Addr, c.DBName = "root", "tcp", addr, dbName
		}
		c.Params = map[string]string{"time_zone": "'+00:00'"}
		for k, v := range params {
			c.Params[k] = v
		}
		db, err := sql.Open("mysql", c.FormatDSN())
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return db
	}
	var diffs []string
	for _, mode := range []string{"text", "binary"} {
		params := map[string]string{}
		if mode == "text" {
			params["interpolateParams"] = "true"
		}
		px := open(srv.Addr(), "px_db", params)
		ref := open("", "reference", params)
		check := func(q string, args ...any) {
			t.Helper()
			wantMeta, want := rawResult(t, ref, mode, q, args...)
			gotMeta, got := rawResult(t, px, mode, q, args...)
			require.Equal(t, wantMeta, gotMeta, "%s metadata of %s %v", mode, q, args)
			require.Equal(t, len(want), len(got), "%s rows of %s %v", mode, q, args)
			for i := range want {
				for j := range want[i] {
					if want[i][j] != got[i][j] {
						diffs = append(diffs, fmt.Sprintf("%s %s %v row %d column %s: MariaDB %s, proxy %s", mode, q, args, i, strings.Fields(wantMeta[j])[0], want[i][j], got[i][j]))
					}
				}
			}
		}
		for id := 1; id <= len(typesRows); id++ {
			check("SELECT * FROM px_types WHERE id = ?", int64(id))
		}
		check("SELECT * FROM px_types WHERE iu >= ? ORDER BY id", int64(0))
	}
	// No difference in either protocol: a binary-protocol client's
	// statement runs on the back end as a prepared statement (executeWire),
	// so a FLOAT and a DOUBLE(M,D) keep their stored IEEE value (123456.7,
	// -0.0010000000000000009) instead of the text protocol's rounding.
	require.Empty(t, diffs)
}

// rawResult runs q on db and returns one line of metadata per column and
// the rows: over the text protocol the cells' raw bytes as Go strings
// ("<NULL>" for NULL), over the binary protocol the decoded values printed
// with their Go types.
func rawResult(t *testing.T, db *sql.DB, mode, q string, args ...any) ([]string, [][]string) {
	t.Helper()
	rows, err := db.Query(q, args...)
	require.NoError(t, err, q)
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	require.NoError(t, err)
	meta := make([]string, len(cts))
	for i, ct := range cts {
		nullable, nok := ct.Nullable()
		p, s, dok := ct.DecimalSize()
		l, lok := ct.Length()
		meta[i] = fmt.Sprintf("%s %s nullable=%v/%v decimal=%d,%d/%v length=%d/%v scan=%v",
			ct.Name(), ct.DatabaseTypeName(), nullable, nok, p, s, dok, l, lok, ct.ScanType())
	}
	var out [][]string
	for rows.Next() {
		cells := make([]string, len(cts))
		if mode == "text" {
			raw := make([]sql.RawBytes, len(cts))
			ptrs := make([]any, len(cts))
			for i := range raw {
				ptrs[i] = &raw[i]
			}
			require.NoError(t, rows.Scan(ptrs...))
			for i, r := range raw {
				cells[i] = "<NULL>"
				if r != nil {
					cells[i] = string(r)
				}
			}
		} else {
			vals := make([]any, len(cts))
			ptrs := make([]any, len(cts))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			require.NoError(t, rows.Scan(ptrs...))
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					cells[i] = fmt.Sprintf("[]byte:%q", b)
				} else {
					cells[i] = fmt.Sprintf("%T:%v", v, v)
				}
			}
		}
		out = append(out, cells)
	}
	require.NoError(t, rows.Err())
	return meta, out
}

package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func ddlIntP(v int) *int       { return &v }
func ddlStrP(v string) *string { return &v }

// at is a position in the test file "t.sql".
func ddlAt(line, col int) Pos { return Pos{File: "t.sql", Line: line, Col: col} }

// ddlCases are the accepted inputs of ParseDDL; FuzzParseDDL starts from them.
var ddlCases = []struct {
	name string
	sql  string
	want []*Table
}{
	{
		name: "types",
		sql: `CREATE TABLE t_order (
  order_id BIGINT UNSIGNED NOT NULL,
  amount DECIMAL(12,2) DEFAULT '0.00',
  created DATETIME(6),
  name VARCHAR(50) COLLATE utf8mb4_bin,
  status ENUM('new','it''s', 'a\\b') NOT NULL DEFAULT 'new',
  tags SET('x','y'),
  note TEXT CHARACTER SET latin1 COLLATE latin1_german1_ci,
  PRIMARY KEY (order_id)
);`,
		want: []*Table{{
			Name: "t_order", Pos: ddlAt(1, 1), PrimaryKey: []string{"order_id"},
			Columns: []*Column{
				{Name: "order_id", Type: "bigint", Unsigned: true, Pos: ddlAt(2, 3)},
				{Name: "amount", Type: "decimal", Length: ddlIntP(12), Scale: ddlIntP(2), Nullable: true, Default: ddlStrP("'0.00'"), Pos: ddlAt(3, 3)},
				{Name: "created", Type: "datetime", Length: ddlIntP(6), Nullable: true, Pos: ddlAt(4, 3)},
				{Name: "name", Type: "varchar", Length: ddlIntP(50), Nullable: true, Collation: "utf8mb4_bin", Pos: ddlAt(5, 3)},
				{Name: "status", Type: "enum", EnumValues: []string{"new", "it's", `a\b`}, Default: ddlStrP("'new'"), Pos: ddlAt(6, 3)},
				{Name: "tags", Type: "set", EnumValues: []string{"x", "y"}, Nullable: true, Pos: ddlAt(7, 3)},
				{Name: "note", Type: "text", Nullable: true, Charset: "latin1", Collation: "latin1_german1_ci", Pos: ddlAt(8, 3)},
			},
		}},
	},
	{
		name: "synonyms, zerofill, binary, generated",
		sql: "create table `T` (flag BOOL, n INTEGER, r REAL, num NUMERIC(5), f FLOAT(30), f2 FLOAT(7,3), f3 float(10),\n" +
			"  z INT(4) ZEROFILL, b VARCHAR(3) BINARY, g INT AS (n + 1) STORED) CHARSET latin1",
		want: []*Table{{
			Name: "T", Pos: ddlAt(1, 1), Charset: "latin1",
			Columns: []*Column{
				{Name: "flag", Type: "tinyint", Length: ddlIntP(1), Nullable: true, Pos: ddlAt(1, 19)},
				{Name: "n", Type: "int", Nullable: true, Pos: ddlAt(1, 30)},
				{Name: "r", Type: "double", Nullable: true, Pos: ddlAt(1, 41)},
				{Name: "num", Type: "decimal", Length: ddlIntP(5), Nullable: true, Pos: ddlAt(1, 49)},
				{Name: "f", Type: "double", Nullable: true, Pos: ddlAt(1, 65)},
				{Name: "f2", Type: "float", Length: ddlIntP(7), Scale: ddlIntP(3), Nullable: true, Pos: ddlAt(1, 78)},
				{Name: "f3", Type: "float", Nullable: true, Pos: ddlAt(1, 93)},
				{Name: "z", Type: "int", Length: ddlIntP(4), Unsigned: true, Zerofill: true, Nullable: true, Pos: ddlAt(2, 3)},
				{Name: "b", Type: "varchar", Length: ddlIntP(3), Nullable: true, Binary: true, Collation: "latin1_bin", Pos: ddlAt(2, 22)},
				{Name: "g", Type: "int", Nullable: true, Generated: true, Pos: ddlAt(2, 43)},
			},
		}},
	},
	{
		name: "defaults",
		sql: `CREATE TABLE d (
  a INT DEFAULT NULL,
  b TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  c INT DEFAULT (1 + 2),
  e INT DEFAULT -1,
  f VARBINARY(4) DEFAULT 0x01,
  g BOOLEAN DEFAULT TRUE,
  h VARCHAR(8) DEFAULT "dq"
)`,
		want: []*Table{{
			Name: "d", Pos: ddlAt(1, 1),
			Columns: []*Column{
				{Name: "a", Type: "int", Nullable: true, Default: ddlStrP("null"), Pos: ddlAt(2, 3)},
				{Name: "b", Type: "timestamp", Default: ddlStrP("current_timestamp()"), Pos: ddlAt(3, 3)},
				{Name: "c", Type: "int", Nullable: true, Default: ddlStrP("(1 + 2)"), Pos: ddlAt(4, 3)},
				{Name: "e", Type: "int", Nullable: true, Default: ddlStrP("-1"), Pos: ddlAt(5, 3)},
				{Name: "f", Type: "varbinary", Length: ddlIntP(4), Nullable: true, Default: ddlStrP("0x01"), Pos: ddlAt(6, 3)},
				{Name: "g", Type: "tinyint", Length: ddlIntP(1), Nullable: true, Default: ddlStrP("true"), Pos: ddlAt(7, 3)},
				{Name: "h", Type: "varchar", Length: ddlIntP(8), Nullable: true, Default: ddlStrP("'dq'"), Pos: ddlAt(8, 3)},
			},
		}},
	},
	{
		name: "keys",
		sql: `CREATE TABLE IF NOT EXISTS shop.t_item (
  order_id BIGINT NULL,
  item_id BIGINT,
  ` + "`key`" + ` INT UNIQUE,
  sku CHAR(8) UNIQUE KEY,
  doc TEXT, geo GEOMETRY NOT NULL,
  PRIMARY KEY (order_id, item_id),
  KEY (item_id), INDEX (item_id),
  UNIQUE KEY uk (sku, ` + "`key`" + `),
  FULLTEXT ft (doc), SPATIAL KEY (geo),
  KEY fn ((item_id + 1)),
  CONSTRAINT fk FOREIGN KEY (item_id) REFERENCES other (id),
  CHECK (item_id > 0)
) ENGINE=InnoDB DEFAULT CHARACTER SET = UTF8MB4 COLLATE = UTF8MB4_BIN`,
		want: []*Table{{
			Name: "t_item", Pos: ddlAt(1, 1), PrimaryKey: []string{"order_id", "item_id"},
			Charset: "utf8mb4", Collation: "utf8mb4_bin",
			Columns: []*Column{
				{Name: "order_id", Type: "bigint", Pos: ddlAt(2, 3)},
				{Name: "item_id", Type: "bigint", Pos: ddlAt(3, 3)},
				{Name: "key", Type: "int", Nullable: true, Pos: ddlAt(4, 3)},
				{Name: "sku", Type: "char", Length: ddlIntP(8), Nullable: true, Pos: ddlAt(5, 3)},
				{Name: "doc", Type: "text", Nullable: true, Pos: ddlAt(6, 3)},
				{Name: "geo", Type: "geometry", Pos: ddlAt(6, 13)},
			},
			Keys: []*Key{
				{Name: "key", Kind: "unique", Columns: []string{"key"}},
				{Name: "sku", Kind: "unique", Columns: []string{"sku"}},
				{Name: "item_id", Kind: "index", Columns: []string{"item_id"}},
				{Name: "item_id_2", Kind: "index", Columns: []string{"item_id"}},
				{Name: "uk", Kind: "unique", Columns: []string{"sku", "key"}},
				{Name: "ft", Kind: "fulltext", Columns: []string{"doc"}},
				{Name: "geo", Kind: "spatial", Columns: []string{"geo"}},
				{Name: "fn", Kind: "index", Columns: []string{"(item_id + 1)"}},
			},
		}},
	},
	{
		name: "inline primary key and KEY attribute",
		sql:  "create table a (id int primary key, x int);\ncreate table b (id int key auto_increment);\n",
		want: []*Table{
			{
				Name: "a", Pos: ddlAt(1, 1), PrimaryKey: []string{"id"},
				Columns: []*Column{
					{Name: "id", Type: "int", Pos: ddlAt(1, 17)},
					{Name: "x", Type: "int", Nullable: true, Pos: ddlAt(1, 37)},
				},
			},
			{
				Name: "b", Pos: ddlAt(2, 1), PrimaryKey: []string{"id"},
				Columns: []*Column{{Name: "id", Type: "int", AutoIncrement: true, Pos: ddlAt(2, 17)}},
			},
		},
	},
	{
		name: "skipped statements, LIKE, ALTER TABLE, CREATE INDEX",
		sql: `-- a schema file
SET NAMES utf8mb4;
USE shop;
CREATE DATABASE IF NOT EXISTS shop;
DROP TABLE IF EXISTS t;
/* a comment */ ;
;
CREATE TABLE t (id BIGINT NOT NULL, PRIMARY KEY (id));
ALTER TABLE t ADD COLUMN user_id BIGINT NOT NULL AFTER id, ADD COLUMN first_col INT FIRST, ADD INDEX idx_user (user_id);
ALTER TABLE t ADD COLUMN (last_a INT, last_b INT), ADD CONSTRAINT fk FOREIGN KEY (user_id) REFERENCES u (id);
CREATE UNIQUE INDEX uk_last ON t (last_a, last_b);
CREATE TABLE t_copy LIKE t;
/*!40000 ALTER TABLE t DISABLE KEYS */;
/*!50001 DROP VIEW IF EXISTS ` + "`v`" + `*/;
/*!50001 CREATE ALGORITHM=UNDEFINED */
/*!50013 DEFINER=` + "`root`@`localhost`" + ` SQL SECURITY DEFINER */
/*!50001 VIEW ` + "`v`" + ` AS select 1 AS ` + "`id`" + ` */;
`,
		want: []*Table{
			{
				Name: "t", Pos: ddlAt(8, 1), PrimaryKey: []string{"id"},
				Columns: []*Column{
					{Name: "first_col", Type: "int", Nullable: true, Pos: ddlAt(9, 71)},
					{Name: "id", Type: "bigint", Pos: ddlAt(8, 17)},
					{Name: "user_id", Type: "bigint", Pos: ddlAt(9, 26)},
					{Name: "last_a", Type: "int", Nullable: true, Pos: ddlAt(10, 27)},
					{Name: "last_b", Type: "int", Nullable: true, Pos: ddlAt(10, 39)},
				},
				Keys: []*Key{
					{Name: "idx_user", Kind: "index", Columns: []string{"user_id"}},
					{Name: "uk_last", Kind: "unique", Columns: []string{"last_a", "last_b"}},
				},
			},
			{
				Name: "t_copy", Pos: ddlAt(12, 1), PrimaryKey: []string{"id"},
				Columns: []*Column{
					{Name: "first_col", Type: "int", Nullable: true, Pos: ddlAt(9, 71)},
					{Name: "id", Type: "bigint", Pos: ddlAt(8, 17)},
					{Name: "user_id", Type: "bigint", Pos: ddlAt(9, 26)},
					{Name: "last_a", Type: "int", Nullable: true, Pos: ddlAt(10, 27)},
					{Name: "last_b", Type: "int", Nullable: true, Pos: ddlAt(10, 39)},
				},
				Keys: []*Key{
					{Name: "idx_user", Kind: "index", Columns: []string{"user_id"}},
					{Name: "uk_last", Kind: "unique", Columns: []string{"last_a", "last_b"}},
				},
			},
		},
	},
	{
		name: "ALTER TABLE positions follow the statement",
		sql:  "CREATE TABLE t (id INT);\nALTER TABLE t ADD COLUMN a TEXT, ADD COLUMN text INT;",
		want: []*Table{{
			Name: "t", Pos: ddlAt(1, 1),
			Columns: []*Column{
				{Name: "id", Type: "int", Nullable: true, Pos: ddlAt(1, 17)},
				{Name: "a", Type: "text", Nullable: true, Pos: ddlAt(2, 26)},
				{Name: "text", Type: "int", Nullable: true, Pos: ddlAt(2, 45)},
			},
		}},
	},
	{
		name: "byte order mark",
		sql:  "\ufeffCREATE TABLE t (id INT);",
		want: []*Table{{
			Name: "t", Pos: ddlAt(1, 4),
			Columns: []*Column{{Name: "id", Type: "int", Nullable: true, Pos: ddlAt(1, 20)}},
		}},
	},
	{
		name: "empty file",
		sql:  "  \n-- nothing\n/* here */\n",
	},
}

func TestParseDDL(t *testing.T) {
	for _, tc := range ddlCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDDL("t.sql", []byte(tc.sql))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseDDLFileDumps(t *testing.T) {
	got, err := ParseDDLFile(filepath.Join("testdata", "ddl", "mysqldump.sql"))
	require.NoError(t, err)
	f := filepath.Join("testdata", "ddl", "mysqldump.sql")
	p := func(line, col int) Pos { return Pos{File: f, Line: line, Col: col} }
	require.Equal(t, []*Table{
		{
			Name: "t_order", Pos: p(25, 1), PrimaryKey: []string{"order_id"},
			Charset: "utf8mb4", Collation: "utf8mb4_0900_ai_ci",
			Columns: []*Column{
				{Name: "order_id", Type: "bigint", Unsigned: true, Pos: p(26, 3)},
				{Name: "user_id", Type: "bigint", Pos: p(27, 3)},
				{Name: "status", Type: "varchar", Length: ddlIntP(50), Nullable: true, Collation: "utf8mb4_bin", Default: ddlStrP("null"), Pos: p(28, 3)},
				{Name: "amount", Type: "decimal", Length: ddlIntP(12), Scale: ddlIntP(2), Default: ddlStrP("'0.00'"), Pos: p(29, 3)},
				{Name: "created_at", Type: "datetime", Length: ddlIntP(6), Default: ddlStrP("current_timestamp(6)"), Pos: p(30, 3)},
			},
			Keys: []*Key{{Name: "idx_user", Kind: "index", Columns: []string{"user_id", "created_at"}}},
		},
		{
			Name: "t_order_item", Pos: p(43, 1), PrimaryKey: []string{"item_id"},
			Charset: "utf8mb4", Collation: "utf8mb4_0900_ai_ci",
			Columns: []*Column{
				{Name: "item_id", Type: "bigint", AutoIncrement: true, Pos: p(44, 3)},
				{Name: "order_id", Type: "bigint", Unsigned: true, Pos: p(45, 3)},
				{Name: "sku", Type: "char", Length: ddlIntP(16), Charset: "ascii", Collation: "ascii_bin", Pos: p(46, 3)},
				{Name: "qty", Type: "int", Default: ddlStrP("'1'"), Pos: p(47, 3)},
			},
			Keys: []*Key{{Name: "uk_order_sku", Kind: "unique", Columns: []string{"order_id", "sku"}}},
		},
	}, got)

	f = filepath.Join("testdata", "ddl", "mariadb-dump.sql")
	got, err = ParseDDLFile(f)
	require.NoError(t, err)
	require.Equal(t, []*Table{{
		Name: "t_user", Pos: p(20, 1), PrimaryKey: []string{"user_id"},
		Charset: "utf8mb4", Collation: "utf8mb4_general_ci",
		Columns: []*Column{
			{Name: "user_id", Type: "bigint", Length: ddlIntP(20), Pos: p(21, 3)},
			{Name: "username_cipher", Type: "varchar", Length: ddlIntP(255), Nullable: true, Default: ddlStrP("null"), Pos: p(22, 3)},
			{Name: "username_assisted", Type: "varchar", Length: ddlIntP(64), Nullable: true, Default: ddlStrP("null"), Pos: p(23, 3)},
			{Name: "kind", Type: "enum", EnumValues: []string{"admin", "it's", `back\slash`}, Default: ddlStrP("'admin'"), Pos: p(24, 3)},
			{Name: "updated_at", Type: "timestamp", Default: ddlStrP("current_timestamp()"), Pos: p(25, 3)},
		},
		Keys: []*Key{{Name: "idx_assisted", Kind: "index", Columns: []string{"username_assisted"}}},
	}}, got)

	_, err = ParseDDLFile(filepath.Join("testdata", "ddl", "missing.sql"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// ddlErrorCases are the rejected inputs of ParseDDL; FuzzParseDDL starts from
// them too.
var ddlErrorCases = []struct {
	name, sql, err string
	tables         []string // names of the tables still returned
}{
	{
		name: "syntax error on line 3",
		sql:  "CREATE TABLE t (\n  id INT,\n  name VARCHAR(10) NOT NUL,\n  PRIMARY KEY (id)\n);\n",
		err:  "t.sql:3:24: syntax error near 'NUL'",
	},
	{
		name: "missing comma",
		sql:  "create table t3 (id int,\n x int\n y int);",
		err:  "t.sql:3:2: syntax error near 'y'",
	},
	{
		name: "unterminated string",
		sql:  "create table t (a int default 'oops);\ncreate table u (b int);\n",
		err:  "t.sql:1:31: syntax error near 'oops);...'",
	},
	{
		name:   "unterminated quote before a semicolon (vitess's splitter panics)",
		sql:    "create table t (a int);\ncreate table u (b int default ''';x)",
		err:    "t.sql:2:31: syntax error near '';x)'",
		tables: []string{"t"},
	},
	{
		name: "FuzzParseDDL crasher",
		sql:  "000000000000000000000000000''';0",
		err:  "t.sql:1:1: syntax error near '000000000000000000000000000'",
	},
	{
		name: "unterminated statement",
		sql:  "create table t (a int",
		err:  "t.sql:1:22: syntax error",
	},
	{
		name:   "duplicate column",
		sql:    "create table t (\n  id int,\n  name text,\n  ID bigint\n)",
		err:    `t.sql:4:3: duplicate column "ID" in table "t" (first at t.sql:2:3); remove or rename one`,
		tables: []string{"t"},
	},
	{
		name:   "duplicate table",
		sql:    "create table t_order (id int);\n\nCREATE TABLE IF NOT EXISTS T_ORDER (id int);",
		err:    `t.sql:3:1: table "T_ORDER" is already defined at t.sql:1:1 (table names compare case-insensitively); remove one CREATE TABLE`,
		tables: []string{"t_order"},
	},
	{
		name:   "unsupported statements, all reported",
		sql:    "create table t (id int);\ninsert into t values (1);\n  CREATE VIEW v AS SELECT id FROM t WHERE id > 100 AND id < 200;\nALTER TABLE t RENAME COLUMN id TO x;\nCREATE TEMPORARY TABLE tmp (x int);\nCREATE TABLE c AS SELECT 1;\nLOCK TABLES t WRITE;",
		tables: []string{"t"},
		err: `t.sql:2:1: unsupported statement in DDL: "insert into t values (1)"
t.sql:3:3: unsupported statement in DDL: "CREATE VIEW v AS SELECT id FROM t WHERE..."
t.sql:4:1: unsupported statement in DDL: "ALTER TABLE t RENAME COLUMN id TO x" (ALTER TABLE may only ADD COLUMN, MODIFY COLUMN, DROP COLUMN, ADD INDEX/KEY or ADD CONSTRAINT; edit the CREATE TABLE instead)
t.sql:5:1: unsupported statement in DDL: "CREATE TEMPORARY TABLE tmp (x int)" (a temporary table is not part of the schema)
t.sql:6:1: unsupported statement in DDL: "CREATE TABLE c AS SELECT 1" (CREATE TABLE ... SELECT: write the columns out)
t.sql:7:1: unsupported statement in DDL: "LOCK TABLES t WRITE"`,
	},
	{
		name:   "primary keys and keys",
		sql:    "create table t (a int primary key, b int primary key);\ncreate table u (a int primary key, b int, primary key (b));\ncreate table v (a int, key k (a, nope), primary key (zip));\ncreate table w (a int, primary key ((a + 1)));",
		tables: []string{"t", "u", "v", "w"},
		err: `t.sql:1:1: table "t" has more than one primary key; declare one PRIMARY KEY (a, b) for a composite key
t.sql:2:1: table "u" has more than one primary key; declare one PRIMARY KEY (a, b) for a composite key
t.sql:3:1: key "k" of table "v" names column "nope", which the table does not have
t.sql:3:1: the primary key of table "v" names column "zip", which the table does not have
t.sql:4:1: the primary key of table "w" has an expression part (a + 1); a primary key holds columns only`,
	},
	{
		name:   "ALTER and LIKE on unknown tables",
		sql:    "ALTER TABLE nope ADD COLUMN x int;\nCREATE INDEX i ON nope2 (x);\nCREATE TABLE c LIKE nope3;\ncreate table t (a int);\nALTER TABLE t ADD COLUMN b int AFTER zz, ADD COLUMN A int;",
		tables: []string{"t"},
		err: `t.sql:1:1: ALTER TABLE / CREATE INDEX on table "nope", which no CREATE TABLE above defines
t.sql:2:1: ALTER TABLE / CREATE INDEX on table "nope2", which no CREATE TABLE above defines
t.sql:3:1: CREATE TABLE "c" LIKE "nope3": table "nope3" is not defined above in this file
t.sql:5:1: ALTER TABLE "t" ADD COLUMN ... AFTER "zz": the table has no column "zz"
t.sql:5:53: duplicate column "A" in table "t" (first at t.sql:4:17); remove or rename one`,
	},
}

func TestParseDDLErrors(t *testing.T) {
	for _, tc := range ddlErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDDL("t.sql", []byte(tc.sql))
			require.EqualError(t, err, tc.err)
			var names []string
			for _, tb := range got {
				names = append(names, tb.Name)
			}
			require.Equal(t, tc.tables, names)
			var list Errors
			require.ErrorAs(t, err, &list)
		})
	}
}

func TestDDLSnippetAndNear(t *testing.T) {
	require.Equal(t, `"a b c"`, ddlSnippet("a\n  b\tc"))
	require.Equal(t, `"`+strings.Repeat("é", 20)+`..."`, ddlSnippet(strings.Repeat("é", 30)))
	require.Equal(t, "abc...", ddlNear("abc\ndef"))
	require.Equal(t, strings.Repeat("x", 40)+"...", ddlNear(strings.Repeat("x", 50)))
}

// TestParseDDLInvisible: INVISIBLE columns as written by hand, as MariaDB's
// SHOW CREATE TABLE prints them (after NOT NULL, before DEFAULT) and as
// MySQL 8's does (/*!80023 INVISIBLE */); VisibleColumns leaves them out,
// as SELECT * and INSERT without a column list do.
func TestParseDDLInvisible(t *testing.T) {
	tables, err := ParseDDL("s.sql", []byte("CREATE TABLE `t` (\n"+
		"  `id` bigint(20) NOT NULL,\n"+
		"  `secret` varchar(10) NOT NULL INVISIBLE DEFAULT 'x',\n"+
		"  `name` varchar(10) DEFAULT NULL,\n"+
		"  `ts` int(11) /*!80023 INVISIBLE */,\n"+
		"  `v` int VISIBLE,\n"+
		"  `g` int AS (id + 1) VIRTUAL INVISIBLE,\n"+
		"  PRIMARY KEY (`id`)\n"+
		") ENGINE=InnoDB;\n"+
		"CREATE TABLE plain (a INT, b INT);\n"))
	require.NoError(t, err)
	var invisible, visible []string
	for _, c := range tables[0].Columns {
		if c.Invisible {
			invisible = append(invisible, c.Name)
		}
	}
	for _, c := range tables[0].VisibleColumns() {
		visible = append(visible, c.Name)
	}
	require.Equal(t, []string{"secret", "ts", "g"}, invisible)
	require.Equal(t, []string{"id", "name", "v"}, visible)
	require.Equal(t, "'x'", *tables[0].Column("secret").Default)
	require.True(t, tables[0].Column("g").Generated)
	require.Same(t, &tables[1].Columns[0], &tables[1].VisibleColumns()[0], "no copy without invisible columns")
}

// TestDDLDropColumn: ALTER TABLE ... DROP COLUMN (a later migration's) takes
// the column out of the table and of its keys, as MySQL does; an unknown
// column is an error at its statement.
func TestDDLDropColumn(t *testing.T) {
	tables, err := ParseDDL("t.sql", []byte("CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(3), KEY ka (a), KEY kab (a, b));\nALTER TABLE t DROP COLUMN a, ADD COLUMN c INT;\nALTER TABLE t DROP b;"))
	require.NoError(t, err)
	require.Len(t, tables, 1)
	var cols []string
	for _, c := range tables[0].Columns {
		cols = append(cols, c.Name)
	}
	require.Equal(t, []string{"id", "c"}, cols)
	require.Equal(t, []string{"id"}, tables[0].PrimaryKey)
	require.Empty(t, tables[0].Keys)

	_, err = ParseDDL("t.sql", []byte("CREATE TABLE t (id INT PRIMARY KEY);\nALTER TABLE t DROP COLUMN nope;"))
	require.EqualError(t, err, `t.sql:2:1: ALTER TABLE "t" DROP COLUMN "nope": the table has no column "nope"`)
}

// TestDDLModifyColumn: ALTER TABLE ... MODIFY COLUMN gives a column its new
// definition where it was, or FIRST / AFTER another; its keys keep it.
func TestDDLModifyColumn(t *testing.T) {
	tables, err := ParseDDL("t.sql", []byte("CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(3), KEY kb (b));\nALTER TABLE t MODIFY COLUMN b VARCHAR(64) NOT NULL;\nALTER TABLE t MODIFY a BIGINT NULL FIRST;\nALTER TABLE t MODIFY id INT AFTER b;"))
	require.NoError(t, err)
	var cols []string
	for _, c := range tables[0].Columns {
		cols = append(cols, fmt.Sprintf("%s %s(%v) null=%v", c.Name, c.Type, ptrText(c.Length), c.Nullable))
	}
	require.Equal(t, []string{"a bigint(-) null=true", "b varchar(64) null=false", "id int(-) null=false"}, cols)
	require.Equal(t, []string{"id"}, tables[0].PrimaryKey)
	require.Equal(t, []string{"b"}, tables[0].Keys[0].Columns)

	_, err = ParseDDL("t.sql", []byte("CREATE TABLE t (id INT PRIMARY KEY);\nALTER TABLE t MODIFY COLUMN nope INT;\nALTER TABLE t MODIFY id INT AFTER zip;"))
	require.EqualError(t, err, `t.sql:2:1: ALTER TABLE "t" MODIFY COLUMN "nope": the table has no column "nope"
t.sql:3:1: ALTER TABLE "t" MODIFY COLUMN "id" ... AFTER "zip": the table has no column "zip"`)
}

func ptrText(n *int) string {
	if n == nil {
		return "-"
	}
	return fmt.Sprint(*n)
}

package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStatementKind: refusals name the statement as MySQL's manual does.
func TestStatementKind(t *testing.T) {
	tests := []struct{ q, kind string }{
		{"PREPARE s FROM 'SELECT 1'", "PREPARE"},
		{"  /* a */ -- b\n# c\n load data local infile 'x' into table t", "LOAD DATA"},
		{"DEALLOCATE PREPARE s", "DEALLOCATE PREPARE"},
		{"LOCK TABLES t WRITE", "LOCK TABLES"},
		{"CREATE VIEW v AS SELECT 1", "CREATE VIEW"},
		{"CREATE OR REPLACE VIEW v AS SELECT 1", "CREATE OR REPLACE VIEW"},
		{"CREATE OR v", "CREATE"},
		{"CREATE TEMPORARY TABLE t (x int)", "CREATE"},
		{"analyze table t", "ANALYZE TABLE"},
		{"XA START 'x'", "XA START"},
		{"GRANT ALL ON *.* TO u", "GRANT"},
		{"CALL p()", "CALL"},
		{"KILL(1)", "KILL"},
		{"", ""},
		{"/* unterminated", ""},
	}
	for _, tt := range tests {
		require.Equal(t, tt.kind, statementKind(tt.q), tt.q)
	}
}

// TestProxyUnsupportedStatements: a statement the proxy neither answers
// nor plans is ERROR 1235 naming its kind, in the text protocol and when
// prepared; the planner called most of them an "UNKNOWN" statement or a
// syntax error.
func TestProxyUnsupportedStatements(t *testing.T) {
	e := newEncEnv(t, encRules)
	db := e.client(t)
	const prefix = "Error 1235 (42000): This version of the shardgen proxy doesn't yet support "
	const prepared = " statements (prepared statements of SQL): prepare through the protocol (COM_STMT_PREPARE) instead"
	const explain = "EXPLAIN: PREVIEW <statement> shows the actual SQL of every data source"
	tests := []struct{ q, err string }{
		{"PREPARE s FROM 'SELECT * FROM e9_user WHERE id = ?'", "PREPARE" + prepared},
		{"/* mysqldump */ PREPARE s FROM @q", "PREPARE" + prepared},
		{"EXECUTE s USING @a", "EXECUTE" + prepared},
		{"DEALLOCATE PREPARE s", "DEALLOCATE PREPARE" + prepared},
		{"DROP PREPARE s", "DROP PREPARE" + prepared},
		{"LOAD XML INFILE '/tmp/e9.xml' INTO TABLE e9_user", "LOAD XML statements: INSERT the rows instead"},
		{"EXPLAIN SELECT * FROM e9_user", explain},
		{"DESCRIBE SELECT * FROM e9_user", explain},
		{"CALL e9_proc()", "CALL statements with these rules: a stored routine's statements run unrouted on one data source, " +
			"so routines pass through only when every table is a single table of one data source (the rules have 2 data sources: ds_0, ds_1)"},
		{"LOCK TABLES e9_user WRITE", "LOCK TABLES statements"},
		{"XA START 'e9'", "XA START statements"},
		{"START SLAVE", "START SLAVE statements"},
		{"CREATE VIEW e9_v AS SELECT 1", "CREATE VIEW statements"},
		{"CREATE DATABASE e9_other", "CREATE DATABASE statements"},
		{"CREATE USER e9_u", "CREATE USER statements"},
		{"OPTIMIZE TABLE e9_user", "OPTIMIZE TABLE statements"},
	}
	for _, tt := range tests {
		_, err := db.Exec(tt.q)
		require.EqualError(t, err, prefix+tt.err, tt.q)
	}
	// Prepared (COM_STMT_PREPARE): the same refusal.
	_, err := db.Prepare("LOAD DATA LOCAL INFILE '/tmp/e9.csv' INTO TABLE e9_user")
	require.EqualError(t, err, "Error 1295 (HY000): This command is not supported in the prepared statement protocol yet") // as MySQL
	_, err = db.Prepare("CREATE VIEW e9_v AS SELECT 1")
	require.EqualError(t, err, prefix+"preparing CREATE VIEW statements")
	// EXPLAIN t is DESCRIBE t; garbage stays a syntax error.
	require.Equal(t, rowsOf(t, db, "DESCRIBE e9_user"), rowsOf(t, db, "EXPLAIN e9_user"))
	_, err = db.Exec("e9 nonsense")
	require.EqualError(t, err, "Error 1064 (42000): You have an error in your SQL syntax; syntax error: at position 3 near 'e9'")
}

// TestUnsupportedStatementAllocs: the check every text statement passes
// costs no allocation for the statements clients send all the time.
func TestUnsupportedStatementAllocs(t *testing.T) {
	for _, q := range []string{"SELECT c FROM sbtest1 WHERE id = 1", "/* tag */ UPDATE t SET k = k + 1 WHERE id = 2", "begin", "COMMIT"} {
		require.Zero(t, testing.AllocsPerRun(100, func() {
			if unsupportedStatement(q) != nil {
				t.Fatal(q)
			}
		}), q)
	}
}

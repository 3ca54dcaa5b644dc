package testdb

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// pingTimeout bounds Open's first round trip, so a server that accepts TCP
// but never answers fails the test instead of hanging it.
const pingTimeout = 10 * time.Second

// Config returns a new go-sql-driver/mysql configuration for database db on
// the server that holds it (see ServerIndex and Server): TCP, the test
// account, DBName db, and the driver's defaults otherwise (parseTime off,
// loc UTC). The caller may change it, e.g. cfg.ParseTime = true, and pass it
// to mysql.NewConnector.
func Config(db string) *mysql.Config {
	host, port := Server(db)
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = credentials()
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort(host, strconv.Itoa(port))
	cfg.DBName = db
	return cfg
}

// DSN returns the go-sql-driver/mysql DSN for database db on the server that
// holds it, e.g. DSN("ds_1") is "shardgen:shardgen@tcp(127.0.0.1:13307)/ds_1"
// with the defaults. parseTime is not set; see DSNWith.
func DSN(db string) string {
	return Config(db).FormatDSN()
}

// DSNWith is DSN with extra DSN parameters, written as in a DSN's query
// string: e.g. DSNWith("ds_0", map[string]string{"parseTime": "true",
// "interpolateParams": "true"}) is
// "shardgen:shardgen@tcp(127.0.0.1:13306)/ds_0?interpolateParams=true&parseTime=true".
// Parameters are sorted by name; values are query-escaped. The driver checks
// them when the DSN is opened (an unknown name becomes a session variable,
// as in any go-sql-driver DSN).
func DSNWith(db string, params map[string]string) string {
	cfg := Config(db)
	if len(params) > 0 {
		cfg.Params = make(map[string]string, len(params))
		for k, v := range params {
			cfg.Params[k] = v
		}
	}
	return cfg.FormatDSN()
}

// Open connects to database db on the server that holds it (DSN(db)) and
// pings it. When the server is unreachable it fails the test at once with
// t.Fatalf("MariaDB for ds_1 at 127.0.0.1:13307 is unreachable: <err>; run
// `make db-up`"); it never skips. The pool is closed by t.Cleanup.
func Open(t testing.TB, db string) *sql.DB {
	t.Helper()
	return OpenWith(t, db, nil)
}

// OpenWith is Open with extra DSN parameters (see DSNWith), e.g.
// OpenWith(t, "ds_0", map[string]string{"parseTime": "true"}).
func OpenWith(t testing.TB, db string, params map[string]string) *sql.DB {
	t.Helper()
	host, port, err := server(db)
	if err != nil {
		t.Fatalf("MariaDB for %s: %v", db, err)
		return nil // Fatalf returns only from a fake testing.TB
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	pool, err := sql.Open("mysql", DSNWith(db, params))
	if err != nil { // a bad DSN parameter
		t.Fatalf("MariaDB for %s at %s: bad DSN: %v", db, addr, err)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if err := pool.PingContext(ctx); err != nil {
		_ = pool.Close()
		t.Fatalf("MariaDB for %s at %s is unreachable: %v; run `make db-up`", db, addr, err)
		return nil
	}
	t.Cleanup(func() { _ = pool.Close() })
	return pool
}

// DownConfig returns the configuration of database db at a loopback port
// nothing listens on (it was free a moment ago): a data source whose server
// is down, for tests of what a failed write leaves on the live ones.
func DownConfig(t testing.TB, db string) *mysql.Config {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testdb.DownConfig: %v", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatalf("testdb.DownConfig: %v", err)
	}
	cfg := Config(db)
	cfg.Addr = addr
	return cfg
}

// DownDSN is the DSN of DownConfig(t, db).
func DownDSN(t testing.TB, db string) string {
	t.Helper()
	return DownConfig(t, db).FormatDSN()
}

// KillStatement waits until a statement whose text contains marker runs on
// db's server (polling the process list: no timing assumption, and a test
// failure rather than a hang after many polls) and kills its connection
// with KILL CONNECTION: a back end lost in the middle of a statement.
func KillStatement(t testing.TB, db *sql.DB, marker string) {
	t.Helper()
	for range 100000 {
		var id int64
		err := db.QueryRow("SELECT id FROM information_schema.PROCESSLIST WHERE info LIKE ? AND info NOT LIKE '%PROCESSLIST%' LIMIT 1", "%"+marker+"%").Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			t.Fatalf("testdb.KillStatement: %v", err)
		}
		if _, err := db.Exec("KILL CONNECTION " + strconv.FormatInt(id, 10)); err != nil {
			t.Fatalf("testdb.KillStatement: %v", err)
		}
		return
	}
	t.Fatalf("testdb.KillStatement: no statement marked %q ever ran", marker)
}

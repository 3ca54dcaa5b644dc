package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// EnvPort2 is the replica's TCP port; default DefaultReplicaPort.
const EnvPort2 = "SHARDGEN_DB_PORT_2"

// DefaultReplicaPort is the port scripts/db.sh gives the replica s2.
const DefaultReplicaPort = 13308

// ReplicaServerID is the replica's @@server_id (servers 0 and 1 have 1 and
// 2).
const ReplicaServerID = 3

// ReplicaOf is the index of the server the replica copies (see
// ServerIndex): it holds the same databases, ds_0, ds_2 and Reference.
const ReplicaOf = 0

// ReplicaServer returns the host and TCP port of the replica s2 that `make
// db-up` starts: a read-only mariadbd replicating everything of server
// ReplicaOf with GTID binlog replication. Port is 0 when EnvPort2 is not a
// number in 1..65535.
func ReplicaServer() (host string, port int) {
	host, port, _ = replicaServer()
	return host, port
}

func replicaServer() (string, int, error) {
	host := os.Getenv(EnvHost)
	if host == "" {
		host = DefaultHost
	}
	port := DefaultReplicaPort
	if v := os.Getenv(EnvPort2); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 || p > 65535 {
			return host, 0, fmt.Errorf("testdb: %s=%q is not a TCP port (1..65535)", EnvPort2, v)
		}
		port = p
	}
	return host, port, nil
}

// ReplicaConfig is Config for database db on the replica (db should be one
// of the databases of server ReplicaOf).
func ReplicaConfig(db string) *mysql.Config {
	host, port := ReplicaServer()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = credentials()
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort(host, strconv.Itoa(port))
	cfg.DBName = db
	return cfg
}

// ReplicaDSN is DSN for database db on the replica, e.g.
// "shardgen:shardgen@tcp(127.0.0.1:13308)/ds_0" with the defaults.
func ReplicaDSN(db string) string { return ReplicaConfig(db).FormatDSN() }

// OpenReplica is Open for database db on the replica: it pings, fails the
// test when the replica is unreachable, and closes the pool in t.Cleanup.
func OpenReplica(t testing.TB, db string) *sql.DB {
	t.Helper()
	host, port, err := replicaServer()
	if err != nil {
		t.Fatalf("MariaDB replica for %s: %v", db, err)
		return nil
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	pool, err := sql.Open("mysql", ReplicaDSN(db))
	if err != nil {
		t.Fatalf("MariaDB replica for %s at %s: bad DSN: %v", db, addr, err)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if err := pool.PingContext(ctx); err != nil {
		_ = pool.Close()
		t.Fatalf("MariaDB replica for %s at %s is unreachable: %v; run `make db-up`", db, addr, err)
		return nil
	}
	t.Cleanup(func() { _ = pool.Close() })
	return pool
}

// WaitReplicated blocks until the replica has applied every transaction
// that primary (a pool on server ReplicaOf) had written when it was called
// (MASTER_GTID_WAIT on @@gtid_binlog_pos), or fails the test after timeout.
func WaitReplicated(t testing.TB, primary, replica *sql.DB, timeout time.Duration) {
	t.Helper()
	var pos string
	if err := primary.QueryRow("SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		t.Fatalf("testdb.WaitReplicated: primary: %v", err)
		return
	}
	var rc int
	if err := replica.QueryRow("SELECT MASTER_GTID_WAIT(?, ?)", pos, timeout.Seconds()).Scan(&rc); err != nil {
		t.Fatalf("testdb.WaitReplicated: replica: %v", err)
		return
	}
	if rc != 0 {
		t.Fatalf("testdb.WaitReplicated: the replica did not reach GTID %s within %v", pos, timeout)
	}
}

// RepoRoot returns the root of this checkout (where scripts/db.sh is).
func RepoRoot() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// replicaPIDFile is scripts/db.sh's pid file of the replica.
func replicaPIDFile() string {
	return filepath.Join(RepoRoot(), ".local", "mariadb", "s2", "mysqld.pid")
}

// KillReplica stops the replica abruptly (SIGKILL to the pid in its pid
// file, as a crash would) and waits until its port refuses connections.
// Restart it with StartServers. Only tests that own the replica for their
// duration should call it: nothing else in this repository uses it.
func KillReplica(t testing.TB) {
	t.Helper()
	b, err := os.ReadFile(replicaPIDFile())
	if err != nil {
		t.Fatalf("testdb.KillReplica: %v (is the replica running? `make db-up`)", err)
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("testdb.KillReplica: pid file: %v", err)
		return
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("testdb.KillReplica: kill %d: %v", pid, err)
		return
	}
	host, port := ReplicaServer()
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return
		}
		_ = c.Close()
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("testdb.KillReplica: %s still accepts connections 10s after SIGKILL", addr)
}

// StartServers runs `bash scripts/db.sh up` (what `make db-up` runs): it
// starts whichever local server is down, the replica included, and waits
// until the replica replicates. It fails the test with the script's output
// when the script fails.
func StartServers(t testing.TB) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(RepoRoot(), "scripts", "db.sh"), "up")
	cmd.Dir = RepoRoot()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/db.sh up: %v\n%s", err, out)
	}
}

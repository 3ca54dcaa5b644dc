package testdb

import (
	"context"
	"database/sql"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// PrivateServer is a throwaway mariadbd that one test owns, for fault
// tests that kill a server (killing s0 or s1 would break the tests of other
// packages that `go test ./...` runs at the same time). It runs with
// --skip-grant-tables (any user, no password) on 127.0.0.1, binlog on
// (ROW), its data in t.TempDir(); Cleanup stops it.
type PrivateServer struct {
	Port    int
	dir     string
	cmd     *exec.Cmd
	mariadb string
}

// StartPrivateServer initialises a data dir with mariadb-install-db (about
// a second), starts mariadbd on a free port and creates database db. It
// fails the test when MariaDB is not installed or does not start.
func StartPrivateServer(t testing.TB, db string) *PrivateServer {
	t.Helper()
	bin := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
			for _, d := range []string{"/usr/sbin", "/usr/local/sbin", "/usr/bin"} {
				if p := filepath.Join(d, n); fileExists(p) {
					return p
				}
			}
		}
		t.Fatalf("testdb: none of %v is installed; run `make db-up`", names)
		return ""
	}
	s := &PrivateServer{dir: t.TempDir(), mariadb: bin("mariadbd", "mysqld")}
	install := bin("mariadb-install-db", "mysql_install_db")
	args := append([]string{"--no-defaults"}, s.baseOpts()...)
	out, err := exec.Command(install, append(args, "--auth-root-authentication-method=normal", "--skip-test-db")...).CombinedOutput()
	if err != nil {
		t.Fatalf("testdb: mariadb-install-db: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	s.Port = l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	t.Cleanup(func() { s.stop() })
	s.Start(t)
	pool, err := sql.Open("mysql", "root@tcp(127.0.0.1:"+strconv.Itoa(s.Port)+")/")
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	defer pool.Close()
	if _, err := pool.Exec("CREATE DATABASE IF NOT EXISTS `" + db + "`"); err != nil {
		t.Fatalf("testdb: private server: %v", err)
	}
	return s
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (s *PrivateServer) baseOpts() []string {
	o := []string{"--datadir=" + filepath.Join(s.dir, "data"), "--innodb-buffer-pool-size=16M",
		"--innodb-log-file-size=8M", "--skip-name-resolve"}
	if os.Getuid() == 0 {
		o = append(o, "--user=root")
	}
	return o
}

// DSN is the go-sql-driver DSN of database db on the server.
func (s *PrivateServer) DSN(db string) string {
	return "root@tcp(127.0.0.1:" + strconv.Itoa(s.Port) + ")/" + db
}

// Start starts mariadbd (again, after Kill: InnoDB crash recovery keeps
// prepared XA transactions) and waits until it accepts connections.
func (s *PrivateServer) Start(t testing.TB) {
	t.Helper()
	args := append([]string{"--no-defaults"}, s.baseOpts()...)
	args = append(args, "--port="+strconv.Itoa(s.Port), "--bind-address=127.0.0.1",
		"--socket="+filepath.Join(s.dir, "s.sock"), "--pid-file="+filepath.Join(s.dir, "s.pid"),
		"--log-error="+filepath.Join(s.dir, "error.log"), "--skip-grant-tables", "--server-id=9",
		"--log-bin=mariadb-bin", "--binlog-format=ROW", "--performance-schema=OFF",
		"--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci")
	s.cmd = exec.Command(s.mariadb, args...)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("testdb: start mariadbd: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	pool, _ := sql.Open("mysql", s.DSN("")+"?timeout=1s")
	defer pool.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := pool.PingContext(ctx)
		cancel()
		if err == nil {
			return
		}
		select {
		case <-done:
			b, _ := os.ReadFile(filepath.Join(s.dir, "error.log"))
			t.Fatalf("testdb: private mariadbd exited during start-up:\n%s", b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("testdb: private mariadbd on port %d did not start: %v", s.Port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill ends mariadbd with SIGKILL, as a crash would, and waits for it.
func (s *PrivateServer) Kill(t testing.TB) {
	t.Helper()
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	for i := 0; i < 200; i++ {
		if err := s.cmd.Process.Signal(syscall.Signal(0)); err != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.cmd = nil
}

func (s *PrivateServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() {
			for i := 0; i < 500; i++ {
				if err := s.cmd.Process.Signal(syscall.Signal(0)); err != nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			close(done)
		}()
		<-done
		_ = s.cmd.Process.Kill()
	}
}

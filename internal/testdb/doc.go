// Package testdb is the one place tests learn where the local MariaDB servers
// started by `make db-up` are (env vars with defaults). A test that needs
// MariaDB calls it and fails with a clear message when a server is
// unreachable; it never skips.
//
// testdb imports only the standard library and go-sql-driver/mysql; only
// tests import it.
package testdb

package testdb

import (
	"fmt"
	"os"
	"strconv"
)

// Environment variables that move tests to other servers or credentials.
// scripts/db.sh reads the same names, so one export moves both the servers
// it starts and the tests that use them. Each is optional; an empty value
// means the default.
const (
	// EnvHost is the host of every server; default DefaultHost.
	EnvHost = "SHARDGEN_DB_HOST"
	// EnvPort0 is server 0's TCP port; default 13306.
	EnvPort0 = "SHARDGEN_DB_PORT_0"
	// EnvPort1 is server 1's TCP port; default 13307.
	EnvPort1 = "SHARDGEN_DB_PORT_1"
	// EnvUser is the account tests log in as; default DefaultUser.
	EnvUser = "SHARDGEN_DB_USER"
	// EnvPassword is that account's password; default DefaultPassword.
	EnvPassword = "SHARDGEN_DB_PASSWORD"
)

// Defaults: what `make db-up` (scripts/db.sh) creates.
const (
	// DefaultHost is where scripts/db.sh binds its servers.
	DefaultHost = "127.0.0.1"
	// DefaultUser is the account scripts/db.sh creates on every server,
	// with ALL PRIVILEGES ON *.* at 127.0.0.1 and localhost.
	DefaultUser = "shardgen"
	// DefaultPassword is DefaultUser's password.
	DefaultPassword = "shardgen"
)

// NumServers is how many independent mariadbd servers `make db-up` starts.
const NumServers = 2

// Reference is the unsharded database on server 0, for reference (broadcast)
// and single tables.
const Reference = "reference"

// Latin1Reference is the unsharded database on server 0 whose default
// character set is latin1 (latin1_swedish_ci), the reference of
// Latin1DataSources.
const Latin1Reference = "latin1_reference"

// Latin1DataSources returns the databases on server 0 whose default
// character set is latin1 (latin1_swedish_ci), as on a MySQL 5.x or
// default-built MariaDB server: latin1_ds_0 and latin1_ds_1. A table
// created there without a character set compares its text as
// latin1_swedish_ci. The slice is new on every call.
func Latin1DataSources() []string {
	return []string{"latin1_ds_0", "latin1_ds_1"}
}

// defaultPorts are the TCP ports of servers 0 and 1 (scripts/db.sh).
var defaultPorts = [NumServers]int{13306, 13307}

// portEnv names each server's port variable.
var portEnv = [NumServers]string{EnvPort0, EnvPort1}

// DataSources returns the names of the sharded data sources `make db-up`
// creates, in order: ds_0, ds_1, ds_2, ds_3 (ds_i on server i%2). The slice
// is new on every call; the caller may change it.
func DataSources() []string {
	return []string{"ds_0", "ds_1", "ds_2", "ds_3"}
}

// ServerIndex returns which server (0 or 1) holds database db: ds_<n> (n
// decimal digits) is on server n%2, like ShardingSphere examples' ds_${0..3}
// spread over two hosts; every other name, Reference included, is on
// server 0.
func ServerIndex(db string) int {
	const prefix = "ds_"
	if len(db) <= len(prefix) || db[:len(prefix)] != prefix {
		return 0
	}
	for i := len(prefix); i < len(db); i++ {
		if db[i] < '0' || db[i] > '9' {
			return 0
		}
	}
	// The parity of a decimal number is that of its last digit, so no
	// length of n overflows.
	return int(db[len(db)-1]-'0') % NumServers
}

// Server returns the host and TCP port of the server holding db (see
// ServerIndex), from EnvHost and EnvPort0/EnvPort1 or their defaults. When a
// port variable is not a number in 1..65535, port is 0 (which connects
// nowhere) and Open reports the variable.
func Server(db string) (host string, port int) {
	host, port, _ = server(db)
	return host, port
}

// server is Server with the reason a port variable was rejected.
func server(db string) (string, int, error) {
	host := os.Getenv(EnvHost)
	if host == "" {
		host = DefaultHost
	}
	i := ServerIndex(db)
	port := defaultPorts[i]
	if v := os.Getenv(portEnv[i]); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 || p > 65535 {
			return host, 0, fmt.Errorf("testdb: %s=%q is not a TCP port (1..65535)", portEnv[i], v)
		}
		port = p
	}
	return host, port, nil
}

// credentials returns the user and password from EnvUser and EnvPassword or
// their defaults.
func credentials() (user, password string) {
	user, password = os.Getenv(EnvUser), os.Getenv(EnvPassword)
	if user == "" {
		user = DefaultUser
	}
	if password == "" {
		password = DefaultPassword
	}
	return user, password
}

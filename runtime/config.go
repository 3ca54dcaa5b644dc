package runtime

import "time"

// DataSourceConfig is one entry of `dataSources:`: how to reach one MySQL
// database and how to pool connections to it. Exactly one of URL (the
// ShardingSphere proxy / JDBC form, `jdbc:mysql://host:port/db?k=v`) and DSN
// (a go-sql-driver/mysql DSN, `user:pass@tcp(host:port)/db`) is set.
type DataSourceConfig struct {
	URL      string // url: or jdbcUrl:
	DSN      string // dsn: (shardgen extension)
	Username string
	Password string // may be an environment reference, see ExpandEnv

	// Pool settings, mapped onto database/sql (zero: the database/sql default).
	MaxPoolSize       int           // maxPoolSize → SetMaxOpenConns
	MinPoolSize       int           // minPoolSize: see DataSourceConfig.Apply
	ConnectionTimeout time.Duration // connectionTimeoutMilliseconds → DSN timeout, and the wait of a transaction or Reserved for a free connection of a full pool (takeConn, default 30 s)
	IdleTimeout       time.Duration // idleTimeoutMilliseconds → SetConnMaxIdleTime
	MaxLifetime       time.Duration // maxLifetimeMilliseconds → SetConnMaxLifetime

	// Origin, when set, is the configuration this one was written from
	// (a proxy opens its pools from DSNs it derives from the user's URLs):
	// Timeouts reads the limits and the keys that name them in errors
	// from it. Never set by LoadConfig.
	Origin *DataSourceConfig
}

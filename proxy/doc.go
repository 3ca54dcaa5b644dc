// Package proxy is the fallback for ad-hoc SQL: a MySQL-protocol server (vitess
// go/mysql) that plans each statement with package plan at run time, caches
// plans, and executes them with the same runtime functions generated code
// calls.
//
// proxy imports plan, schema, runtime and vitess; it must never import
// templates, and nothing but cmd/shardgen imports proxy.
package proxy

// Package gen_test holds the generator's golden cases, one directory each
// (rules, DDL, queries, expected Go, expected explain output). `go test
// ./gen_test -update` rewrites the goldens. It imports whatever it tests and is
// imported by nothing.
//
// A case is cases/<name>/ with
//
//	shardgen.yaml   the project (out: db, package: <name>db)
//	rules.yaml      ShardingSphere YAML; data sources are the local test
//	                servers (ds_i on server i%2, ${env:SHARDGEN_DB_PORT_0:-13306} ...)
//	schema.sql      the logic tables, named with a per-case prefix (g1_, g2_, ...)
//	                so cases never share a table on the shared servers
//	queries/*.sql   sqlc-style annotated queries
//	db/             the generated package, committed: `go build ./...` and
//	                `go vet ./...` compile it and the differential test imports it
//	explain.json    `shardgen explain --format json` of the case
//	diff.json       seed rows and calls for the differential test (see diffSpec)
//
// or, for a case whose load must fail, stderr.txt (the exact error, paths
// relative to the case directory) instead of db/, explain.json and
// diff.json; its query files and shardgen.yaml mark each problem that must
// be reported with an "-- expect: <text>" (or "# expect: <text>") comment.
//
// The tests (package gen_test_test):
//
//	TestGolden              pipeline.Load + Generate per case against db/, explain.json
//	                        or stderr.txt; -update rewrites them (make generate)
//	TestGoldenDeterministic two runs, and plans fed in reverse order, give the same bytes
//	TestCheckDetectsStale   the `generate --check` rules on a damaged copy in t.TempDir()
//	TestCheckCLI            the real `shardgen generate --check` on every case and the copy
//	TestDiff                every generated package on real MariaDB against one unsharded
//	                        reference database (testdb.Reference); fails when MariaDB is down
//	TestProxyParity         every diff.json call also through an in-process proxy (text and
//	                        binary protocol): same rows, counts, errors and data nodes
//
// A new case that generates a package also adds its constructor to
// newQueries (glue_test.go).
package gen_test

// Package plan turns one SQL statement and the loaded schema into a Plan, the
// single intermediate representation shared by the generator and the proxy:
// sharding conditions, route, per-data-node rewrite, typed parameters and
// result columns, and the merge spec.
//
// plan is pure: no database, no code generation, no files. It imports schema,
// runtime (for the run-time types a Plan carries) and vitess sqlparser; it
// must never import templates or proxy.
package plan

// Package schema loads and validates what a user writes: ShardingSphere 5.x
// YAML (data sources, !SHARDING, !BROADCAST, !SINGLE, !ENCRYPT,
// !READWRITE_SPLITTING, props), inline expressions, CREATE TABLE DDL and
// annotated query files. Every error carries file:line:col, and a load reports
// all errors, not just the first.
//
// schema reads files and nothing else: no database, no code generation. It may
// import runtime (for config types and to validate algorithms by constructing
// them) and vitess sqlparser; it must never import plan, templates or proxy.
package schema

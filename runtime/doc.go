// Package runtime is everything shardgen needs at run time: the sharding
// algorithms and key generators with ShardingSphere's exact placement, data
// source configuration and pools, the executor, the mergers, read/write
// splitting, transactions and encryptors. Generated code and the proxy both
// call it.
//
// runtime must never import plan, schema, templates, proxy or any vitess
// package: an application that uses only generated code must not link a SQL
// parser. It reads the deployment part of the YAML (data sources, props) with
// its own small config types; schema reuses those, never the reverse.
package runtime

// Package templates emits Go source from Plans with github.com/dave/jennifer:
// one typed function per annotated query, the sharding algorithm inlined where
// it is known at generate time, SQL per data node precomputed. It returns a map
// from file name to contents and never writes to disk (the CLI does).
//
// Generate emits (the manifest, Outputs):
//
//	db.go                 always       Queries, New, WithTx, Sources; dataSourceNames; per logic table
//	                                   routed at run time its data nodes and ShardingTable constructor;
//	                                   inlined look-up tables; process-wide key generators
//	models.go             always       one struct per logic table whose columns a query's rows are
//	<query file base>.go  per file     per query: Stmt, route unit table, Params/Row types, the method,
//	                                   an Iter method (:many on one unit), a scan function (several units),
//	                                   a MergeSpec (merged SELECT), an InsertSplit (multi-row INSERT)
//
// How a method finds its route unit(s), by Route.Kind:
//
//	SingleNode, inlinable    straight-line Go: shardrt.Mod / HashModLong / HashModString / JavaRem,
//	                         a look-up table when the suffix is not the target index, ds*K+t
//	SingleNode, otherwise    ShardingTable.PreciseNode (bound algorithm), no allocation for integers
//	MultiNode                ShardingTable.RouteConditions over the DNF conditions (a NULL value
//	                         matches no row), then QueryUnits/ExecUnits; also SingleNode on a
//	                         nullable sharding parameter, which may reach no data node
//	AllNodes, Fixed          the unit table itself (it holds exactly the fixed units)
//	Broadcast write          ExecBroadcast on every unit, all or nothing; the first unit's result is returned
//	Multi-row INSERT         a generated key per row, each row's data node as for SingleNode (RouteAll
//	                         for complex strategies), InsertSplit.Units, then ExecUnits
//
// A SELECT whose rows must be merged (Plan.Merge: ORDER BY, GROUP BY,
// aggregates, DISTINCT, LIMIT over several data nodes) finds its units as
// above, computes the per-node arguments (Plan.NodeArgs, with the per-node
// LIMIT shardrt.LimitSum(offset, count)), calls shardrt.QueryMerged with its
// package-level MergeSpec and scans each merged row with shardrt.ScanCells.
//
// Encryption (!ENCRYPT): New looks up every encryptor the package uses once
// (shardrt.DB.Encryptor; keys stay in the deployment YAML). A plan's
// NodeArgs give the per-node arguments: a string parameter is sent as
// EncryptText(v), any other as Encrypt(v) (NULL stays NULL), a literal as
// the EncryptText of its Java text at run time. Result columns with
// Column.Decrypt are decrypted after the scan (shardrt.DecryptString /
// DecryptNullString) on the single-node, multi-node and merged paths.
//
// Read/write splitting: reads with Plan.Primary (locking reads, queries
// annotated -- shardgen:primary) run on Queries.primary (Sources.Primary(),
// or the transaction); Queries.Tx runs a function in a distributed
// transaction (LOCAL or XA).
//
// templates imports plan and schema; it must never import proxy. It imports
// runtime only for the types and constants the Plan IR is made of
// (RouteKind, ValueKind, Value, KeyGeneratorTypes, MergeSpec and its
// constants) and to check a MergeSpec (Validate), never to route or run.
package templates

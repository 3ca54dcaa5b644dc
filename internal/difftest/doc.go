// Package difftest is the differential proof that sharded queries return
// exactly what one unsharded MariaDB returns for the same rows. Its tests
// load identical rows into a sharded layout on the local servers (ds_0 …
// ds_3) and into the unsharded `reference` database, run a corpus of
// queries generated from a small grammar through the planner and the
// runtime (the proxy's interpreter) and on the reference, and report every
// mismatch as a small reproduction.
//
// It imports plan, schema, runtime, proxy and internal/testdb; only tests
// use it.
package difftest

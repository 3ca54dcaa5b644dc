// Package templates emits Go source from Plans with github.com/dave/jennifer:
// one typed function per annotated query, the sharding algorithm inlined where
// it is known at generate time, SQL per data node precomputed. It returns a map
// from file name to contents and never writes to disk (the CLI does).
//
// templates imports plan and schema; it must never import proxy, and never
// import runtime except to name its identifiers in emitted code.
package templates

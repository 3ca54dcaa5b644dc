// Package gen_test holds the generator's golden cases, one directory each
// (rules, DDL, queries, expected Go, expected explain output). `go test
// ./gen_test -update` rewrites the goldens. It imports whatever it tests and is
// imported by nothing.
package gen_test

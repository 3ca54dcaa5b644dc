package gen_test_test

import (
	bindingdb "github.com/shardgen/shardgen/gen_test/cases/binding/db"
	copydb "github.com/shardgen/shardgen/gen_test/cases/copyfrom/db"
	embeddb "github.com/shardgen/shardgen/gen_test/cases/embed/db"
	inlinedb "github.com/shardgen/shardgen/gen_test/cases/inline/db"
	mergedb "github.com/shardgen/shardgen/gen_test/cases/merge/db"
	mod4db "github.com/shardgen/shardgen/gen_test/cases/mod4/db"
	ptrdb "github.com/shardgen/shardgen/gen_test/cases/pointers/db"
	rangedb "github.com/shardgen/shardgen/gen_test/cases/ranges/db"
	rwgroupdb "github.com/shardgen/shardgen/gen_test/cases/rwgroup/db"
	singledb "github.com/shardgen/shardgen/gen_test/cases/single/db"
	slicedb "github.com/shardgen/shardgen/gen_test/cases/slice/db"
	sqlcdb "github.com/shardgen/shardgen/gen_test/cases/sqlc/db"
	stepsdb "github.com/shardgen/shardgen/gen_test/cases/steps/db"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// newQueries maps each golden case that generates a package to its
// constructor: the only per-case Go glue of the differential test. A new
// case adds one line here (TestDiff fails until it does).
var newQueries = map[string]func(*shardrt.DB) (any, error){
	"binding":  func(db *shardrt.DB) (any, error) { return bindingdb.New(db) },
	"copyfrom": func(db *shardrt.DB) (any, error) { return copydb.New(db) },
	"embed":    func(db *shardrt.DB) (any, error) { return embeddb.New(db) },
	"inline":   func(db *shardrt.DB) (any, error) { return inlinedb.New(db) },
	"merge":    func(db *shardrt.DB) (any, error) { return mergedb.New(db) },
	"mod4":     func(db *shardrt.DB) (any, error) { return mod4db.New(db) },
	"pointers": func(db *shardrt.DB) (any, error) { return ptrdb.New(db) },
	"ranges":   func(db *shardrt.DB) (any, error) { return rangedb.New(db) },
	"rwgroup":  func(db *shardrt.DB) (any, error) { return rwgroupdb.New(db) },
	"single":   func(db *shardrt.DB) (any, error) { return singledb.New(db) },
	"slice":    func(db *shardrt.DB) (any, error) { return slicedb.New(db) },
	"sqlc":     func(db *shardrt.DB) (any, error) { return sqlcdb.New(db) },
	"steps":    func(db *shardrt.DB) (any, error) { return stepsdb.New(db) },
}

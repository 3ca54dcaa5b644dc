package gen_test_test

import (
	bindingdb "github.com/shardgen/shardgen/gen_test/cases/binding/db"
	inlinedb "github.com/shardgen/shardgen/gen_test/cases/inline/db"
	mod4db "github.com/shardgen/shardgen/gen_test/cases/mod4/db"
	rangedb "github.com/shardgen/shardgen/gen_test/cases/ranges/db"
	shardrt "github.com/shardgen/shardgen/runtime"
)

func init() {
	newQueries["ranges"] = func(db *shardrt.DB) (any, error) { return rangedb.New(db) }
	newQueries["binding"] = func(db *shardrt.DB) (any, error) { return bindingdb.New(db) }
	newQueries["inline"] = func(db *shardrt.DB) (any, error) { return inlinedb.New(db) }
	newQueries["mod4"] = func(db *shardrt.DB) (any, error) { return mod4db.New(db) }
}

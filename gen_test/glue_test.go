package gen_test_test

import (
	mod4db "github.com/shardgen/shardgen/gen_test/cases/mod4/db"
	shardrt "github.com/shardgen/shardgen/runtime"
)

func init() {
	newQueries["mod4"] = func(db *shardrt.DB) (any, error) { return mod4db.New(db) }
}

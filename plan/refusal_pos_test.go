package plan_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

// TestRefusalPositions: a refusal points at the clause the user must edit
// (file:line:col of the offending node), not at the query's name line.
// One query file per refusal kind in testdata/refusals; files named enc_*
// are planned with the !ENCRYPT rules of encBuilder.
func TestRefusalPositions(t *testing.T) {
	tests := []struct {
		file string
		at   string // line:col
		msg  string // a part of the message
	}{
		{"no_sharding_condition.sql", "4:1", `no sharding condition on table "t_order"`},
		{"window.sql", "3:21", "a window function over several data nodes"},
		{"stddev.sql", "3:8", "aggregate STDDEV over several data nodes"},
		{"order_by_unknown_kind.sql", "5:10", "ORDER BY UPPER(LENGTH(`status`)) over several data nodes cannot be merged"},
		{"order_by_aggregate_collate.sql", "6:10", "the expression over several data nodes: max(`status`) collate utf8mb4_unicode_ci"},
		{"rollup.sql", "5:22", "WITH ROLLUP over several data nodes is not supported"},
		{"with.sql", "3:1", "WITH (common table expressions) is not supported here: o is referenced 2 times"},
		// Inlined as a derived table: the position is in the text as written.
		{"with_inlined.sql", "3:24", "the statement has a derived table (its common table expression)"},
		{"having.sql", "6:8", "HAVING over several data nodes"},
		{"update_limit.sql", "5:1", "UPDATE ... LIMIT over several data nodes"},
		{"insert_sharding_column.sql", "2:13", `must give sharding column "user_id"`},
		// After the generated key column is added to the statement.
		{"insert_generated_key.sql", "3:4", `sharding column "user_id" must not be NULL`},
		{"insert_values.sql", "4:3", "INSERT has 3 columns but a row has 2 values"},
		{"go_type.sql", "3:3", "cannot infer the Go type of result column 2"},
		{"null_condition.sql", "4:1", "compare with NULL"},
		{"order_by_position.sql", "5:10", "ORDER BY position 3 is out of range"},
		{"select_into.sql", "5:1", "SELECT ... INTO is not supported"},
		{"group_concat_order.sql", "6:10", "ORDER BY the GROUP_CONCAT"},
		{"union_types.sql", "3:1", "column 1 of the UNION has different types"},
		{"ambiguous_column.sql", "3:3", `column "user_id" is ambiguous`},
		{"derived_column_list.sql", "3:77", `a column list on derived table "d" is not supported`},
		{"enc_like.sql", "5:7", `LIKE on encrypted column "email" needs a like-query column`},
		{"enc_order_by.sql", "5:10", `encrypted column "mobile" cannot be used in ORDER BY`},
		{"enc_range.sql", "5:7", `encrypted column "mobile" cannot be compared with >`},
	}
	files, err := filepath.Glob("testdata/refusals/*.sql")
	require.NoError(t, err)
	require.Len(t, files, len(tests), "one test per query file")
	shop, enc := newBuilder(t), encBuilder(t)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "refusals", tt.file)
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			qs, err := schema.ParseQueries(path, src)
			require.NoError(t, err)
			require.Len(t, qs, 1)
			b := shop
			if strings.HasPrefix(tt.file, "enc_") {
				b = enc
			}
			_, err = b.Build(qs[0])
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.msg)
			require.True(t, strings.HasPrefix(err.Error(), path+":"+tt.at+": "), "%v", err)
		})
	}
	_ = plan.AdHocFile
}

package templates

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/runtime"
)

// runtimeConsts returns the names of the constants of type typ declared in
// the runtime source file, in declaration (iota) order.
func runtimeConsts(t *testing.T, file, typ string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "runtime", file), nil, 0)
	require.NoError(t, err)
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST || len(gd.Specs) == 0 {
			continue
		}
		first := gd.Specs[0].(*ast.ValueSpec)
		if id, ok := first.Type.(*ast.Ident); !ok || id.Name != typ {
			continue
		}
		var names []string
		for _, s := range gd.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				names = append(names, n.Name)
			}
		}
		return names
	}
	t.Fatalf("%s declares no constants of type %s", file, typ)
	return nil
}

// TestRuntimeConstantNames checks the names generated MergeSpec literals
// spell against the runtime's declarations: every Collation has its
// constant in collationNames, and "Column"+ColumnType.String() and
// "Agg"+AggFunc.String() name the constants of those values.
func TestRuntimeConstantNames(t *testing.T) {
	colls := runtimeConsts(t, "merge_collation.go", "Collation")
	require.Equal(t, "CollationNone", colls[0])
	require.Len(t, collationNames, len(colls)-1, "collationNames must name every Collation but CollationNone")
	for i, name := range colls[1:] {
		require.Equal(t, name, collationNames[runtime.Collation(i+1)], "collation %s", runtime.Collation(i+1))
	}
	for i, name := range runtimeConsts(t, "merge_value.go", "ColumnType") {
		require.Equal(t, name, "Column"+runtime.ColumnType(i+1).String())
	}
	for i, name := range runtimeConsts(t, "merge.go", "AggFunc") {
		require.Equal(t, name, "Agg"+runtime.AggFunc(i+1).String())
	}
}

func TestMergeWhat(t *testing.T) {
	tests := []struct {
		name string
		spec runtime.MergeSpec
		want string
	}{
		{"concatenation", runtime.MergeSpec{Count: runtime.NoLimit}, "rows concatenated"},
		{"LIMIT 0", runtime.MergeSpec{}, "LIMIT"},
		{"offset only", runtime.MergeSpec{Offset: runtime.LimitValue{Value: 1, Param: true}, Count: runtime.NoLimit}, "LIMIT"},
		{"everything", runtime.MergeSpec{
			GroupBy:    []int{0},
			Aggregates: []runtime.AggregateSpec{{Func: runtime.AggAvg}, {Func: runtime.AggCountDistinct}},
			Distinct:   true, OrderBy: []runtime.SortKey{{Column: 0}}, Count: runtime.LimitValue{Value: 5},
		}, "GROUP BY, aggregates AVG, COUNT(DISTINCT), DISTINCT, ORDER BY, LIMIT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, mergeWhat(&tt.spec))
		})
	}
}

// TestMergedQueryShapes generates merged queries over every route shape a
// merged SELECT can have and checks the units and arguments each passes to
// QueryMerged.
func TestMergedQueryShapes(t *testing.T) {
	tests := []struct {
		name, query string
		want        []string // lines the generated file must contain
	}{
		{"literal IN: fixed units", "SELECT order_id FROM t_order WHERE user_id IN (1, 2) AND order_id = 5 ORDER BY order_id DESC LIMIT 3",
			[]string{"shardrt.QueryMerged(ctx, q.ex, &topStmt, topUnits[:], nil, &topMerge, nil)", "Count:   shardrt.LimitValue{Value: 3},"}},
		{"one literal unit", "SELECT order_id FROM t_order WHERE user_id IN (1, 1) AND order_id IN (5, 5) ORDER BY order_id DESC LIMIT 2, 3",
			[]string{"shardrt.QueryMerged(ctx, q.ex, &topStmt, topUnits[:], nil, &topMerge, nil)", "Offset:  shardrt.LimitValue{Value: 2},"}},
		{"computed units, literal offset", "SELECT order_id FROM t_order WHERE user_id IN (?, ?) ORDER BY order_id LIMIT 5, ?",
			[]string{"shardrt.QueryMerged(ctx, q.ex, &topStmt, units, []any{userID, userID_2, shardrt.LimitSum(5, limit)}, &topMerge, []any{userID, userID_2, limit})"}},
		{"count only", "SELECT order_id FROM t_order WHERE user_id IN (?, ?) ORDER BY order_id LIMIT ?",
			[]string{"shardrt.QueryMerged(ctx, q.ex, &topStmt, units, []any{userID, userID_2, limit}, &topMerge, []any{userID, userID_2, limit})"}},
		{"named LIMIT parameters in a Params struct", "SELECT order_id FROM t_order WHERE user_id IN (?, ?, ?) ORDER BY order_id LIMIT sqlc.arg(skip), sqlc.arg(take)",
			[]string{"[]any{arg.UserID, arg.UserID_2, arg.UserID_3, shardrt.LimitSum(arg.Skip, arg.Take)}", "Offset:  shardrt.LimitValue{Value: 3, Param: true}, // arg.Skip"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := onePlan(t, "-- name: Top :many\n"+tt.query+";\n")
			require.NotNil(t, in.Files[0].Plans[0].Merge)
			out, err := Generate(in)
			require.NoError(t, err)
			src := string(out["q.sql.go"])
			for _, w := range tt.want {
				require.True(t, strings.Contains(src, w), "want %q in:\n%s", w, src)
			}
		})
	}
}

package templates

import (
	"fmt"
	"go/format"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
)

func TestNames(t *testing.T) {
	tests := []struct{ in, exported, unexported string }{
		{"t_order", "TOrder", "tOrder"},
		{"order_id", "OrderID", "orderID"},
		{"GetOrder", "GetOrder", "getOrder"},
		{"URLPath", "URLPath", "urlPath"},
		{"id", "ID", "id"},
		{"type", "Type", "type_"},
		{"2fa", "C2fa", "c2fa"},
		{"", "X", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			require.Equal(t, tt.exported, exportedName(tt.in))
			require.Equal(t, tt.unexported, unexportedName(tt.in))
		})
	}
	require.Equal(t, "Type", fieldName("type_"))
	require.Equal(t, "UserID_2", fieldName("userID_2"))
	s := nameSet{"q": true, "q_": true}
	require.Equal(t, "q_2", s.add("q"))
	require.Equal(t, "t", s.add("t"))
	require.Equal(t, "t_", s.add("t"))
}

func TestTypeCode(t *testing.T) {
	tests := []struct {
		typ  plan.GoType
		want string
		err  string
	}{
		{plan.GoType{Name: "int64"}, "int64", ""},
		{plan.GoType{Name: "[]byte"}, "[]byte", ""},
		{plan.GoType{Pkg: "database/sql", Name: "NullString"}, "sql.NullString", ""},
		{plan.GoType{Pkg: "database/sql", Name: "Null[int8]"}, "sql.Null[int8]", ""},
		{plan.GoType{Pkg: "time", Name: "Time"}, "time.Time", ""},
		{plan.GoType{Pkg: "example.com/money", Name: "Amount"}, "money.Amount", ""},
		{plan.GoType{Pkg: "example.com/money", Name: "*Amount"}, "*money.Amount", ""},
		{plan.GoType{Name: "map[string]int"}, "", `cannot spell Go type "map[string]int"`},
		{plan.GoType{Pkg: "database/sql", Name: "Null[time.Time]"}, "", `cannot spell Go type "sql.Null[time.Time]": type argument "time.Time" must be a predeclared type`},
	}
	for _, tt := range tests {
		t.Run(tt.typ.String(), func(t *testing.T) {
			c, err := typeCode(tt.typ)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, fmt.Sprintf("%#v", c))
		})
	}
}

func TestGroupImports(t *testing.T) {
	src := "package p\n\nimport (\n\t\"context\"\n\tshardrt \"github.com/shardgen/shardgen/runtime\"\n\t\"iter\"\n)\n\nvar _ = 1\n"
	want := "package p\n\nimport (\n\t\"context\"\n\t\"iter\"\n\n\tshardrt \"github.com/shardgen/shardgen/runtime\"\n)\n\nvar _ = 1\n"
	require.Equal(t, want, string(groupImports([]byte(src))))
	formatted, err := format.Source([]byte(want))
	require.NoError(t, err)
	require.Equal(t, want, string(formatted), "gofmt keeps the groups")
	only := "package p\n\nimport (\n\t\"context\"\n\t\"iter\"\n)\n"
	require.Equal(t, only, string(groupImports([]byte(only))))
}

func TestSourcePos(t *testing.T) {
	require.Equal(t, []int{12}, sourcePos("queries/orders.sql:12"))
	require.Equal(t, []int{12, 3}, sourcePos("queries/orders.sql:12:3"))
	require.Nil(t, sourcePos("queries/orders.sql"))
}

func TestEmitOptionNames(t *testing.T) {
	for in, want := range map[string]string{"orders": "order", "categories": "category", "boxes": "box", "addresses": "address", "status": "status", "news": "news", "analysis": "analysis", "ITEMS": "ITEM", "ids": "id"} {
		require.Equal(t, want, singular(in), in)
	}
	g := &generator{}
	require.Equal(t, "TOrder", g.modelName("t_orders"))
	g.in.Emit.ExactTableNames = true
	require.Equal(t, "TOrders", g.modelName("t_orders"))
	for in, want := range map[string]string{"userID_2": "user_id_2", "howMany": "how_many", "user_id": "user_id", "type_": "type", "URLPath": "url_path"} {
		require.Equal(t, want, snakeName(in), in)
	}
	require.Equal(t, "userId2", tagCase("user_id_2", "camel"))
	require.Equal(t, "UserId", tagCase("user_id", "pascal"))
	require.Equal(t, "user_id", tagCase("user_id", "none"))
}

package templates

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
)

// TestZeroCode checks the zero value a one-column :one returns with an
// error, for each kind of Go type a column can have.
func TestZeroCode(t *testing.T) {
	for _, tc := range []struct {
		typ  plan.GoType
		want string
	}{
		{plan.GoType{Name: "string"}, `""`},
		{plan.GoType{Name: "int64"}, "0"},
		{plan.GoType{Name: "uint8"}, "0"},
		{plan.GoType{Name: "float64"}, "0"},
		{plan.GoType{Name: "bool"}, "false"},
		{plan.GoType{Name: "[]byte"}, "nil"},
		{plan.GoType{Name: "*string"}, "nil"},
		{plan.GoType{Pkg: "time", Name: "*Time"}, "nil"},
		{plan.GoType{Pkg: "database/sql", Name: "NullString"}, "sql.NullString{}"},
		{plan.GoType{Pkg: "database/sql", Name: "Null[int8]"}, "sql.Null[int8]{}"},
		{plan.GoType{Pkg: "time", Name: "Time"}, "time.Time{}"},
		// An override's type: its kind is unknown (a struct, an integer...).
		{plan.GoType{Pkg: "example.com/money", Name: "Amount"}, "*new(money.Amount)"},
	} {
		require.Equal(t, tc.want, fmt.Sprintf("%#v", zeroCode(tc.typ)), tc.typ.String())
	}
}

package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Helpers building expressions for the tests.
func xcol(i int) Expr               { return Expr{Op: ExprColumn, Column: i} }
func xint(v string) Expr            { return Expr{Op: ExprLiteral, Type: ColumnInt, Value: v} }
func xdec(v string) Expr            { return Expr{Op: ExprLiteral, Type: ColumnDecimal, Value: v} }
func xop(op ExprOp, a ...Expr) Expr { return Expr{Op: op, Args: a} }
func xcast(a Expr, scale int) Expr {
	return Expr{Op: ExprCast, Type: ColumnDecimal, Scale: scale, Args: []Expr{a}}
}

// TestExprDecimal: the values MariaDB 10.11 gives for the same
// expressions (SELECT ... on the reference server, div_precision_increment
// 4): quotients carry whole 9-digit words inside an expression, truncated,
// and are shown rounded to the dividend's scale + 4.
func TestExprDecimal(t *testing.T) {
	one, three, seven := xint("1"), xint("3"), xint("7")
	third := xop(ExprDiv, one, three)
	for _, c := range []struct {
		name string
		e    Expr
		want string
	}{
		{"1/3*3", xop(ExprMul, third, three), "1.0000"},
		{"1/3+1/3+1/3", xop(ExprAdd, xop(ExprAdd, third, third), third), "1.0000"},
		{"CAST(1/3 AS DECIMAL(40,30))", xcast(third, 30), "0.333333333000000000000000000000"},
		{"CAST(2/3 AS DECIMAL(40,30))", xcast(xop(ExprDiv, xint("2"), three), 30), "0.666666666000000000000000000000"},
		{"CAST(1.5/7/7 AS DECIMAL(50,30))", xcast(xop(ExprDiv, xop(ExprDiv, xdec("1.5"), seven), seven), 30), "0.030612244857142857000000000000"},
		{"CAST(0.12345678/7 AS DECIMAL(50,30))", xcast(xop(ExprDiv, xdec("0.12345678"), seven), 30), "0.017636682857142857000000000000"},
		{"CAST(1.5/0.7 AS DECIMAL(50,30))", xcast(xop(ExprDiv, xdec("1.5"), xdec("0.7")), 30), "2.142857142857142857000000000000"},
		{"CAST((1/3)*(1/3) AS DECIMAL(50,30))", xcast(xop(ExprMul, third, third), 30), "0.111111110888888889000000000000"},
		{"(1/3)*(1/3)", xop(ExprMul, third, third), "0.11111111"},
		{"CAST(1/0.1234567891 AS DECIMAL(50,30))", xcast(xop(ExprDiv, one, xdec("0.1234567891")), 30), "8.100000067149000556000000000000"},
		{"5/0", xop(ExprDiv, xint("5"), xint("0")), "NULL"},
		{"CAST(2/3 + 0.5 AS DECIMAL(50,30))", xcast(xop(ExprAdd, xop(ExprDiv, xint("2"), three), xdec("0.5")), 30), "1.166666666000000000000000000000"},
		{"2/3*1.00", xop(ExprMul, xop(ExprDiv, xint("2"), three), xdec("1.00")), "0.666667"},
		{"-7 DIV 2", xop(ExprIntDiv, xint("-7"), xint("2")), "-3"},
		{"-7 % 2", xop(ExprMod, xint("-7"), xint("2")), "-1"},
		{"7.5 % 2", xop(ExprMod, xdec("7.5"), xint("2")), "1.5"},
	} {
		v, err := evalExpr(&c.e, nil, nil)
		require.NoError(t, err, c.name)
		require.Equal(t, c.want, v.cell().String(), c.name)
	}
	big := xint("9223372036854775807")
	_, err := evalExpr(&Expr{Op: ExprAdd, Args: []Expr{big, xint("1")}}, nil, nil)
	require.ErrorIs(t, err, errExprOverflow)
}

// TestExprLogic: MySQL's three-valued logic and IN.
func TestExprLogic(t *testing.T) {
	null := Expr{Op: ExprLiteral}
	for _, c := range []struct {
		e    Expr
		want string
	}{
		{xop(ExprAnd, null, xint("0")), "0"},
		{xop(ExprAnd, null, xint("1")), "NULL"},
		{xop(ExprOr, null, xint("1")), "1"},
		{xop(ExprOr, null, xint("0")), "NULL"},
		{xop(ExprNot, null), "NULL"},
		{xop(ExprNullSafeEQ, null, null), "1"},
		{xop(ExprEQ, null, null), "NULL"},
		{xop(ExprIn, xint("2"), xint("1"), null), "NULL"},
		{xop(ExprIn, xint("2"), xdec("2.0"), null), "1"},
		{xop(ExprIn, xint("2"), xint("1"), xint("3")), "0"},
		{xop(ExprGT, xdec("1.333333333"), xdec("1.33333")), "1"},
		{xop(ExprEQ, xop(ExprDiv, xint("1"), xint("3")), xdec("0.3333")), "1"},                     // MariaDB: 1
		{xop(ExprGE, xop(ExprMul, xop(ExprDiv, xint("1"), xint("3")), xint("3")), xint("1")), "1"}, // MariaDB: 1
		{xop(ExprEQ, xop(ExprDiv, xint("2"), xint("3")), xdec("0.6667")), "1"},                     // MariaDB: 1
		{xop(ExprCoalesce, null, xint("3"), xdec("1.50")), "3.00"},
	} {
		v, err := evalExpr(&c.e, nil, nil)
		require.NoError(t, err)
		require.Equal(t, c.want, v.cell().String())
	}
}

// TestMergeHavingComputed: HAVING and an expression over merged aggregates
// see the groups' merged values, never the nodes' partial ones.
func TestMergeHavingComputed(t *testing.T) {
	// SELECT g, SUM(v)/COUNT(v) FROM t GROUP BY g HAVING COUNT(*) > 2
	// per node: g, SUM(v)/COUNT(v), SUM(v), COUNT(v), COUNT(*)
	spec := &MergeSpec{Columns: 5, Visible: 2, Kinds: []ColumnKind{kInt, kDec, kDec, kInt, kInt},
		GroupBy:    []int{0},
		Aggregates: []AggregateSpec{{Column: 2, Func: AggSum}, {Column: 3, Func: AggCount}, {Column: 4, Func: AggCount}},
		Computed:   []ComputedColumn{{Column: 1, Expr: xop(ExprDiv, xcol(2), xcol(3))}},
		Having:     &Expr{Op: ExprGT, Args: []Expr{xcol(4), {Op: ExprParam, Param: 0}}},
		OrderBy:    []SortKey{{Column: 1, Desc: true}}, Count: NoLimit}
	require.NoError(t, spec.Validate())
	require.True(t, spec.UsesArgs())
	a := msrc(mrow(1, mdec("0"), mdec("3"), 2, 2), mrow(2, mdec("0"), mdec("1"), 1, 2))
	b := msrc(mrow(1, mdec("0"), mdec("4"), 1, 1), mrow(3, mdec("0"), mdec("9"), 3, 3))
	m, err := Merge(spec, []any{int64(2)}, []RowSource{a, b})
	require.NoError(t, err)
	rows, err := ReadAll(m)
	require.NoError(t, err)
	var got []string
	for _, r := range rows {
		got = append(got, cellText(r[0])+" "+cellText(r[1]))
	}
	require.Equal(t, []string{"3 3.0000", "1 2.3333"}, got)
}

// TestExprPad: comparisons by sort keys (Expr.Pad) compare WEIGHT_STRING
// columns as bytes, the shorter padded with the pad weight (PAD SPACE:
// 'a' = 'a  ', 'a\t' < 'a'), and NULL as MySQL does; without a pad
// weight (NO PAD) the longer is greater.
func TestExprPad(t *testing.T) {
	w := func(b ...byte) Cell { return BytesCell(b) }
	// Columns: 0 'a' (weight 0E33), 1 'a  ' (0E33 0209 0209), 2 'a\t'
	// (0E33 0201), 3 'b' (0E4A), 4 NULL, 5 the pad weight 0209, 6 none.
	row := []Cell{w(0x0E, 0x33), w(0x0E, 0x33, 0x02, 0x09, 0x02, 0x09), w(0x0E, 0x33, 0x02, 0x01), w(0x0E, 0x4A), {}, w(0x02, 0x09), w()}
	pad := func(op ExprOp, p int, a ...Expr) Expr { return Expr{Op: op, Pad: p, Args: a} }
	for _, c := range []struct {
		e    Expr
		want string
	}{
		{pad(ExprEQ, 5, xcol(0), xcol(1)), "1"},
		{pad(ExprLT, 5, xcol(2), xcol(0)), "1"},
		{pad(ExprGT, 5, xcol(3), xcol(1)), "1"},
		{pad(ExprEQ, 6, xcol(0), xcol(1)), "0"},
		{pad(ExprLT, 6, xcol(0), xcol(1)), "1"},
		{pad(ExprEQ, 5, xcol(0), xcol(4)), "NULL"},
		{pad(ExprNullSafeEQ, 5, xcol(4), xcol(4)), "1"},
		{pad(ExprIn, 5, xcol(1), xcol(3), xcol(0)), "1"},
		{pad(ExprIn, 5, xcol(2), xcol(3), xcol(4)), "NULL"},
	} {
		require.NoError(t, c.e.validate(len(row)))
		v, err := evalExpr(&c.e, row, nil)
		require.NoError(t, err)
		require.Equal(t, c.want, v.cell().String(), "%+v", c.e)
	}
	bad := pad(ExprEQ, 7, xcol(0), xcol(1))
	require.Error(t, bad.validate(len(row)))
}

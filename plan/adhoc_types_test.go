package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

// TestAdHocUntyped: a query file needs the Go type of every result column
// and parameter (the generated function declares them); an ad-hoc
// statement (the proxy) does not, since the back end types its columns and
// the client its values. A merge that needs a type refuses it in SQL terms.
func TestAdHocUntyped(t *testing.T) {
	b := builderOf(t, adHocRules, adHocDDL)
	adHoc := func(sql string) (*plan.Plan, error) {
		pos := schema.Pos{File: plan.AdHocFile, Line: 1, Col: 1}
		return b.Build(&schema.Query{Name: "proxy", Cmd: schema.CmdMany, SQL: sql, AllowFullRoute: true, Pos: pos, SQLPos: pos})
	}
	tests := []struct {
		sql      string
		fileErr  string // as a query file
		adHocErr string // "" when the ad-hoc statement plans
		types    string // result column types of the ad-hoc plan
	}{
		{"SELECT LENGTH(kind) FROM t_event WHERE user_id = 1 AND event_id = 1", "", "", "any"},
		{"SELECT LENGTH(kind) AS n FROM t_event ORDER BY n DESC LIMIT 3", "", "", "any"},
		{"SELECT LAST_DAY(day) FROM t_log WHERE log_id = 1",
			`q.sql:3:8: query "Q": cannot infer the Go type of result column 1 (LAST_DAY(` + "`day`" + `)): give it a CAST(... AS type)`, "", "any"},
		{"SELECT event_id FROM t_event WHERE user_id = 1 AND kind = CONCAT(?, 'x')",
			`q.sql:3:66: query "Q": cannot infer the type of parameter 1: compare it with a column (col = ?), or CAST(? AS type)`, "", "int64"},
		{"SELECT ? + 1 FROM t_event WHERE user_id = ?",
			`q.sql:3:8: query "Q": cannot infer the type of parameter 1: compare it with a column (col = ?), or CAST(? AS type)`, "", "any"},
		// MIN / MAX of an expression take its type (a query file plans
		// them too: "" as fileErr), on one data node and merged across
		// them under kind's collation.
		{"SELECT MAX(UPPER(kind)), COUNT(*) FROM t_event WHERE user_id = 1 AND event_id = 1",
			"", "", "sql.NullString int64"},
		{"SELECT MAX(UPPER(kind)), COUNT(*) FROM t_event",
			"", "", "sql.NullString int64"},
		// (UPPER(x) keeps x's collation: DISTINCT, GROUP BY and ORDER BY
		// of it merge, TestMergeKeyKinds.)
		{"SELECT DISTINCT SUBSTRING_INDEX(kind, '.', 1) FROM t_event",
			`q.sql:3:17: query "Q": SELECT DISTINCT of SUBSTRING_INDEX(kind, '.', 1) over several data nodes cannot be merged: shardgen cannot tell how MySQL compares its values; CAST it (AS SIGNED, DECIMAL(p,s), DOUBLE), name the collation of text (COLLATE utf8mb4_bin) or use a column`,
			`<sql>:1:17: query "proxy": SELECT DISTINCT of SUBSTRING_INDEX(kind, '.', 1) over several data nodes cannot be merged: shardgen cannot tell how MySQL compares its values; CAST it (AS SIGNED, DECIMAL(p,s), DOUBLE), name the collation of text (COLLATE utf8mb4_bin) or use a column`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, err := build(t, b, ":many", tt.sql, schema.AnnotationAllowFullRoute)
			if tt.fileErr == "" {
				require.NoError(t, err)
			} else {
				require.EqualError(t, err, tt.fileErr)
			}
			p, err := adHoc(tt.sql)
			if tt.adHocErr != "" {
				require.EqualError(t, err, tt.adHocErr)
				return
			}
			require.NoError(t, err)
			var types string
			for i, c := range p.Columns {
				if i > 0 {
					types += " "
				}
				types += c.Type.String()
			}
			require.Equal(t, tt.types, types)
		})
	}
}

// TestKindTypes: a result column exprType cannot type takes the type
// MySQL gives its values (exprKind) in a query file: arithmetic over
// aggregates, functions of known result, ranking window functions (never
// NULL) and STDDEV / VARIANCE (DOUBLE); a parameter compared with
// arithmetic takes its type.
func TestKindTypes(t *testing.T) {
	b := builderOf(t, adHocRules, adHocDDL)
	for _, tt := range []struct{ expr, typ string }{
		{"SUM(event_id) / COUNT(*)", "sql.NullString"},
		{"MAX(event_id) - MIN(event_id)", "sql.NullInt64"},
		{"AVG(event_id) * 3", "sql.NullString"},
		{"SUM(event_id) DIV 2", "sql.NullInt64"},
		{"LENGTH(MAX(kind))", "sql.NullInt64"},
		{"COUNT(*) > 1", "sql.NullInt64"},
		{"STDDEV(event_id)", "sql.NullFloat64"},
		{"VAR_SAMP(event_id)", "sql.NullFloat64"},
		{"ROW_NUMBER() OVER (ORDER BY event_id)", "int64"},
		{"DENSE_RANK() OVER (ORDER BY kind)", "int64"},
		{"NTILE(3) OVER (ORDER BY event_id)", "int64"},
		{"CUME_DIST() OVER (ORDER BY event_id)", "float64"},
	} {
		t.Run(tt.expr, func(t *testing.T) {
			p, err := build(t, b, ":many", "SELECT "+tt.expr+" AS v FROM t_event WHERE user_id = 1 AND event_id = 1", schema.AnnotationAllowFullRoute)
			require.NoError(t, err)
			require.Equal(t, tt.typ, p.Columns[0].Type.String())
		})
	}
	p, err := build(t, b, ":many", "SELECT kind FROM t_event WHERE user_id = 1 GROUP BY kind HAVING SUM(event_id) / COUNT(*) >= ? AND MAX(event_id) - MIN(event_id) < ?", schema.AnnotationAllowFullRoute)
	require.NoError(t, err)
	require.Len(t, p.Params, 2)
	require.Equal(t, "string", p.Params[0].Type.String()) // DECIMAL
	require.Equal(t, "int64", p.Params[1].Type.String())
}

// TestStringFunctionTypes: string functions in a select list are text
// without a CAST: string, or sql.NullString when an argument may be NULL
// (a nullable column, NULL, a parameter) or the function may return NULL
// by itself (LPAD of a negative length); a column of an outer join's
// inner side may be NULL.
func TestStringFunctionTypes(t *testing.T) {
	b := builderOf(t, adHocRules, adHocDDL)
	for _, tt := range []struct{ expr, typ string }{
		{"UPPER(e.kind)", "string"},
		{"LOWER(e.kind)", "string"},
		{"CONCAT(e.kind, '-', e.event_id)", "string"},
		{"CONCAT_WS(',', e.kind, NULL)", "sql.NullString"},
		{"SUBSTRING(e.kind, 2)", "string"},
		{"SUBSTRING(e.kind FROM 1 FOR 3)", "string"},
		{"TRIM(e.kind)", "string"},
		{"TRIM(LEADING 'x' FROM e.kind)", "string"},
		{"LTRIM(UPPER(e.kind))", "string"},
		{"REPLACE(e.kind, 'a', CAST(? AS CHAR))", "sql.NullString"}, // CAST gives a nullable type
		{"LPAD(e.kind, 8, '0')", "sql.NullString"},
		{"UPPER(o.kind)", "sql.NullString"},                  // the inner side of the LEFT JOIN
		{"CONCAT(e.kind, LENGTH(e.kind))", "sql.NullString"}, // an argument of unknown type
	} {
		t.Run(tt.expr, func(t *testing.T) {
			p, err := build(t, b, ":many", "SELECT "+tt.expr+" AS v FROM t_event e LEFT JOIN t_event o ON o.user_id = e.user_id AND o.event_id = e.event_id WHERE e.user_id = 1 AND e.event_id = 1", schema.AnnotationAllowFullRoute)
			require.NoError(t, err)
			require.Equal(t, tt.typ, p.Columns[0].Type.String())
		})
	}
}

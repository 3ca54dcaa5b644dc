package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
	"github.com/shardgen/shardgen/templates"
)

// TestNargOverride: sqlc.narg of a column whose type an override by column
// names gives that type's nullable form, as sqlc does: sql.NullInt64 for
// int64 (*int64 with emit_pointers_for_null_types); sqlc.arg and result
// columns keep the override as given; a named type is nullable as it is.
func TestNargOverride(t *testing.T) {
	cfg, err := schema.Load("rules.yaml", []byte(adHocRules))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("schema.sql", []byte("CREATE TABLE t_event (event_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, kind VARCHAR(16) NOT NULL, score DECIMAL(10,2) NULL);\n"+
		"CREATE TABLE t_log (log_id BIGINT NOT NULL, logged_at DATETIME NOT NULL, PRIMARY KEY (log_id, logged_at));\n"))
	require.NoError(t, err)
	require.NoError(t, schema.CheckDDL(cfg, tables))
	b, err := plan.NewBuilder(cfg, []plan.Override{
		{Column: "t_event.score", Type: plan.GoType{Name: "int64", Nullable: true}},
		{Column: "t_event.kind", Type: plan.GoType{Pkg: "example.com/kinds", Name: "Kind", Nullable: true}},
	})
	require.NoError(t, err)
	p, err := build(t, b, ":many", "SELECT score, kind FROM t_event WHERE user_id = sqlc.arg(user_id) AND (score = sqlc.narg(min_score) OR sqlc.narg(min_score) IS NULL) AND score <> sqlc.arg(not_score) AND kind = sqlc.narg(kind)")
	require.NoError(t, err)
	types := func(p *plan.Plan) (out []string) {
		for _, prm := range p.Params {
			out = append(out, prm.Name+" "+prm.Type.String())
		}
		for _, c := range p.Columns {
			out = append(out, c.Name+" "+c.Type.String())
		}
		return out
	}
	require.Equal(t, []string{"userID int64", "minScore sql.NullInt64", "notScore int64", "kind kinds.Kind", "score int64", "kind kinds.Kind"}, types(p))
	require.Equal(t, []string{"userID int64", "minScore *int64", "notScore int64", "kind kinds.Kind", "score int64", "kind kinds.Kind"}, types(templates.PointerNulls(p)))
}

// TestHavingAggregateParams: a parameter compared with an aggregate in
// HAVING takes the type MySQL gives the aggregate, not NULL: COUNT int64;
// SUM / AVG of a DECIMAL column the column's own type (its override), of a
// DOUBLE float64, of an integer DECIMAL (the db_type decimal override, else
// string); MIN / MAX the column's type.
func TestHavingAggregateParams(t *testing.T) {
	cfg, err := schema.Load("rules.yaml", []byte(adHocRules))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("schema.sql", []byte("CREATE TABLE t_event (event_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, kind VARCHAR(16) NOT NULL, score DECIMAL(10,2) NULL, price DECIMAL(12,4) NOT NULL, ratio DOUBLE NULL, seen DATETIME NULL);\n"+
		"CREATE TABLE t_log (log_id BIGINT NOT NULL, logged_at DATETIME NOT NULL, PRIMARY KEY (log_id, logged_at));\n"))
	require.NoError(t, err)
	require.NoError(t, schema.CheckDDL(cfg, tables))
	decimal := plan.GoType{Pkg: "github.com/shopspring/decimal", Name: "Decimal", Kind: runtime.KindDecimal}
	money := plan.GoType{Pkg: "example.com/money", Name: "Amount", Kind: runtime.KindDecimal}
	plain, err := plan.NewBuilder(cfg, nil)
	require.NoError(t, err)
	overridden, err := plan.NewBuilder(cfg, []plan.Override{
		{Column: "t_event.price", Type: money},
		{DBType: "decimal", Type: decimal},
	})
	require.NoError(t, err)
	for _, tc := range []struct {
		having          string
		plain, override string
	}{
		{"SUM(score) > ?", "string", "decimal.Decimal"},
		{"? < SUM(score)", "string", "decimal.Decimal"},
		{"SUM(price) > ?", "string", "money.Amount"},
		{"AVG(score) >= ?", "string", "decimal.Decimal"},
		{"SUM(event_id) > ?", "string", "decimal.Decimal"},
		{"AVG(event_id) > ?", "string", "decimal.Decimal"},
		{"SUM(DISTINCT score) > ?", "string", "decimal.Decimal"},
		{"SUM(ratio) > ?", "float64", "float64"},
		{"COUNT(*) > ?", "int64", "int64"},
		{"COUNT(DISTINCT kind) = ?", "int64", "int64"},
		{"MAX(score) < ?", "string", "decimal.Decimal"},
		{"MIN(kind) = ?", "string", "string"},
		{"MAX(seen) > ?", "time.Time", "time.Time"},
		{"MAX(event_id) > ?", "int64", "int64"},
	} {
		for _, b := range []struct {
			b    *plan.Builder
			want string
		}{{plain, tc.plain}, {overridden, tc.override}} {
			p, err := build(t, b.b, ":many", "SELECT kind, COUNT(*) AS n FROM t_event WHERE user_id = 1 AND event_id = 5 GROUP BY kind HAVING "+tc.having)
			require.NoError(t, err, tc.having)
			require.Len(t, p.Params, 1, tc.having)
			require.Equal(t, b.want, p.Params[0].Type.String(), tc.having)
		}
	}
}

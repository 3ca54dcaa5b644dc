package templates

import (
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"

	"github.com/shardgen/shardgen/plan"
)

// This file holds what sqlc's code generation options change
// (schema.EmitOptions): the Querier interface, JSON tags, empty slices,
// model names and the parameter limit.

// defaultParameterLimit is how many parameters a method takes before they
// become a Params struct when query_parameter_limit is not set.
const defaultParameterLimit = 4

// parameterLimit is query_parameter_limit, or its default.
func (g *generator) parameterLimit() int {
	if l := g.in.Emit.ParameterLimit; l != nil {
		return *l
	}
	return defaultParameterLimit
}

// modelName names the model struct of a logic table: the table's name in
// Go (t_orders → TOrders) under emit_exact_table_names, else with its last
// word made singular, as sqlc does by default (t_orders → TOrder,
// categories → Category).
func (g *generator) modelName(table string) string {
	if g.in.Emit.ExactTableNames {
		return exportedName(table)
	}
	i := strings.LastIndexByte(table, '_') + 1
	return exportedName(table[:i] + singular(table[i:]))
}

// singular returns the singular of an English plural noun for the common
// regular forms (categories → category, boxes → box, addresses → address,
// orders → order); a word that does not look plural (status, address, news,
// analysis) is returned as it is.
func singular(w string) string {
	lw := strings.ToLower(w)
	switch {
	case len(lw) < 3 || !strings.HasSuffix(lw, "s"):
		return w
	case strings.HasSuffix(lw, "ies") && len(lw) > 4:
		return w[:len(w)-3] + matchCase(w, "y")
	case strings.HasSuffix(lw, "sses"), strings.HasSuffix(lw, "xes"), strings.HasSuffix(lw, "ches"), strings.HasSuffix(lw, "shes"), strings.HasSuffix(lw, "zzes"):
		return w[:len(w)-2]
	case strings.HasSuffix(lw, "ss"), strings.HasSuffix(lw, "us"), strings.HasSuffix(lw, "is"), strings.HasSuffix(lw, "news"):
		return w
	}
	return w[:len(w)-1]
}

// matchCase returns s in upper case when w's last letter is upper case.
func matchCase(w, s string) string {
	if r := []rune(w); unicode.IsUpper(r[len(r)-1]) {
		return strings.ToUpper(s)
	}
	return s
}

// jsonTag returns the struct tag `json:"name"` of a field whose SQL name is
// name, spelt as json_tags_case_style says, or nil without emit_json_tags.
func (g *generator) jsonTag(name string) jen.Code {
	if !g.in.Emit.JSONTags {
		return nil
	}
	return jen.Tag(map[string]string{"json": tagCase(name, g.in.Emit.JSONTagsCase)})
}

// tagCase spells a snake_case SQL name in a json_tags_case_style: camel
// (userId), pascal (UserId), snake (user_id), or none / "" (as written).
func tagCase(name, style string) string {
	switch style {
	case "camel", "pascal":
		var b strings.Builder
		for i, part := range strings.Split(name, "_") {
			if part == "" {
				continue
			}
			if i > 0 || style == "pascal" {
				r := []rune(part)
				r[0] = unicode.ToUpper(r[0])
				part = string(r)
			}
			b.WriteString(part)
		}
		return b.String()
	case "snake":
		return snakeName(name)
	}
	return name
}

// snakeName turns a Go or SQL name into snake_case: userID_2 → user_id_2,
// howMany → how_many, user_id → user_id.
func snakeName(s string) string {
	s = strings.TrimSuffix(s, "_") // a keyword's escape (type_)
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) {
			prevLower := i > 0 && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]))
			nextLower := i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) && unicode.IsUpper(r[i-1])
			if prevLower || nextLower {
				b.WriteByte('_')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// columnTag is the JSON name of a result column: its SQL name, or, when two
// columns share it, the snake_case of its (unique) field name, as sqlc
// suffixes them (name, name_2).
func columnTag(cols []*plan.Column, c *plan.Column) string {
	for _, o := range cols {
		if o != c && strings.EqualFold(o.Name, c.Name) {
			return snakeName(c.Field)
		}
	}
	return c.Name
}

// emptySlices makes a :many method return an empty slice instead of nil
// when no row matches (emit_empty_slices): its results are named, and a
// deferred function replaces a nil slice on success. The defer is
// open-coded by the compiler; it allocates only for the empty case.
//
// e.g.:
//
//	func (q *Queries) ListOrders(ctx context.Context, userID int64) (items []ListOrdersRow, err error) {
//		defer func() {
//			if items == nil && err == nil {
//				items = []ListOrdersRow{}
//			}
//		}()
//		...
func emptySlices(fc *fnCtx, q *query, body []jen.Code) []jen.Code {
	items := jen.Id(fc.resultRows)
	fix := jen.Defer().Func().Params().Block(
		jen.If(items.Clone().Op("==").Nil().Op("&&").Id("err").Op("==").Nil()).Block(
			items.Clone().Op("=").Index().Add(q.rowCode()).Values(),
		),
	).Call()
	return append([]jen.Code{fix}, body...)
}

// querierFile emits querier.go (emit_interface): the Querier interface of
// every method of Queries, in the order of the query files, and a
// compile-time check that *Queries implements it.
//
// e.g.:
//
//	type Querier interface {
//		CreateOrder(ctx context.Context, arg CreateOrderParams) (sql.Result, error)
//		GetOrder(ctx context.Context, userID int64, orderID int64) (TOrder, error)
//	}
//
//	var _ Querier = (*Queries)(nil)
func (g *generator) querierFile() ([]outFile, error) {
	if !g.in.Emit.Interface {
		return nil, nil
	}
	if err := g.declare("Querier", "emit_interface"); err != nil {
		return nil, err
	}
	var methods []jen.Code
	for _, qf := range g.files {
		for _, q := range qf.queries {
			methods = append(methods, q.methods...)
		}
	}
	f := g.newFile(g.in.Source)
	f.Add(doc("Querier is every query method of Queries, for code that wants an interface (a mock in tests, a wrapper): sqlc's emit_interface."))
	f.Type().Id("Querier").Interface(methods...)
	f.Line()
	f.Add(doc("Queries implements Querier."))
	f.Var().Id("_").Id("Querier").Op("=").Parens(jen.Op("*").Id("Queries")).Parens(jen.Nil())
	return []outFile{{name: "querier.go", f: f}}, nil
}

package templates

import (
	"github.com/dave/jennifer/jen"
)

// modelsFile emits models.go: one struct per logic table whose columns a
// query's rows are (plan.Plan.RowModel), fields in DDL order, and the scan
// function of those that multi-unit reads use.
func (g *generator) modelsFile() ([]outFile, error) {
	f := g.newFile(g.in.Source)
	for _, m := range g.models {
		// e.g.:
		//	// TOrder is a row of logic table t_order, columns in DDL order.
		//	type TOrder struct {
		//		OrderID int64
		//		UserID  int64
		//		Status  sql.NullString
		//	}
		fields := make([]jen.Code, len(m.columns))
		names := make([]string, len(m.columns))
		for i, c := range m.columns {
			t, _ := typeCode(c.Type)
			fields[i] = jen.Id(c.Field).Add(t).Add(g.jsonTag(c.Name))
			names[i] = c.Field
		}
		f.Add(doc(m.name + " is a row of logic table " + m.table + ", columns in DDL order."))
		f.Type().Id(m.name).Struct(fields...)
		f.Line()
		if m.scan != "" {
			// e.g.:
			//	func scanTOrder(rows *sql.Rows) (TOrder, error) {
			//		var r TOrder
			//		err := rows.Scan(&r.OrderID, &r.UserID, &r.Status)
			//		return r, err
			//	}
			f.Add(doc(m.scan + " scans one row of " + m.table + "."))
			f.Add(scanFunc(m.scan, jen.Id(m.name), fieldDests(names)))
			f.Line()
		}
	}
	return []outFile{{name: "models.go", f: f}}, nil
}

package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardgen/shardgen/runtime"
)

// columnClass returns how MySQL compares sharding column column of logic
// table table with a value of another type (runtime.ColumnClass), from the
// column's DDL type; binary is a comparison under BINARY. A column shardgen
// knows no DDL for is ClassAsIs.
func (b *Builder) columnClass(table, column string, binary bool) runtime.ColumnClass {
	t := b.tables()[strings.ToLower(table)]
	if t == nil || t.ddl == nil {
		return runtime.ClassAsIs
	}
	c := t.ddl.Column(column)
	if c == nil {
		return runtime.ClassAsIs
	}
	switch strings.ToLower(c.Type) {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "bool", "boolean":
		if binary {
			return runtime.ClassIntegerText
		}
		return runtime.ClassInteger
	case "date":
		return runtime.ClassDate
	case "datetime", "timestamp":
		return runtime.ClassDateTime
	}
	return runtime.ClassAsIs
}

// convertLiterals converts the literal operands of a SELECT, UPDATE or
// DELETE's sharding conditions on logic table table to the values MySQL
// compares their columns with (runtime.ColumnClass.Equal and Bound), so
// generated code and fixed routes see `user_id = 5.0` as 5: a literal that
// matches no row (5.5 with an integer column) is dropped like NULL, and an
// AND-group left with a column without values matches no row; a literal
// whose comparison cannot be mirrored drops its column's condition (that
// side routes to every target). none reports that every group matches no
// row. groups is not modified; parameters are converted at run time
// (Builder.Units).
func (b *Builder) convertLiterals(table string, groups []Condition) (out []Condition, none bool) {
	for _, g := range groups {
		var cols []ColumnCondition
		empty := false
		for _, c := range g.Columns {
			nc, conv := convertColumn(b.columnClass(table, c.Column, c.Binary), c)
			switch conv {
			case runtime.NoRow:
				empty = true
			case runtime.Converted:
				cols = append(cols, nc)
			}
		}
		if empty {
			continue
		}
		if len(cols) == 0 {
			return nil, false // a group without a sharding condition: full route
		}
		out = append(out, Condition{Columns: cols})
	}
	if len(out) == 0 && len(groups) > 0 {
		return nil, true
	}
	return out, false
}

// convertColumn converts the literals of one column condition: NoRow when
// every value matches no row, EveryTarget when the condition must be
// dropped. c is not modified.
func convertColumn(class runtime.ColumnClass, c ColumnCondition) (ColumnCondition, runtime.Conversion) {
	if class == runtime.ClassAsIs && !hasHexNumber(c) {
		return c, runtime.Converted
	}
	out := c
	out.Values = nil
	for _, o := range c.Values {
		if o.Literal == nil {
			out.Values = append(out.Values, o)
			continue
		}
		v, conv := class.Equal(*o.Literal)
		switch conv {
		case runtime.EveryTarget:
			return c, runtime.EveryTarget
		case runtime.Converted:
			v = asLong(class, v)
			out.Values = append(out.Values, Operand{Param: o.Param, Literal: &v})
		}
	}
	if len(c.Values) > 0 && len(out.Values) == 0 {
		return c, runtime.NoRow
	}
	if c.Range != nil {
		r := *c.Range
		for _, bound := range []struct {
			op    **Operand
			open  *bool
			lower bool
		}{{&r.Lower, &r.LowerOpen, true}, {&r.Upper, &r.UpperOpen, false}} {
			o := *bound.op
			if o == nil || o.Literal == nil {
				continue
			}
			v, closed, conv := class.Bound(*o.Literal, bound.lower)
			if conv != runtime.Converted {
				return c, runtime.EveryTarget
			}
			v = asLong(class, v)
			*bound.op = &Operand{Param: o.Param, Literal: &v}
			if closed {
				*bound.open = false
			}
		}
		out.Range = &r
		if r.Lower != nil && r.Upper != nil && r.Lower.Literal != nil && r.Upper.Literal != nil &&
			runtime.EmptyTimeRange(runtime.Range{Lower: *r.Lower.Literal, Upper: *r.Upper.Literal, HasLower: true, HasUpper: true, LowerOpen: r.LowerOpen, UpperOpen: r.UpperOpen}) {
			return c, runtime.NoRow
		}
	}
	return out, runtime.Converted
}

func hasHexNumber(c ColumnCondition) bool {
	ops := slices.Clone(c.Values)
	if c.Range != nil {
		for _, o := range []*Operand{c.Range.Lower, c.Range.Upper} {
			if o != nil {
				ops = append(ops, *o)
			}
		}
	}
	for _, o := range ops {
		if o.Literal != nil && o.Literal.Kind == runtime.KindHexNumber {
			return true
		}
	}
	return false
}

// storedLiterals converts the literal sharding values of an INSERT's rows
// to the values the server stores (runtime.ColumnClass.Stored): the row
// lands where its stored value routes. Errors name the column.
func (p *planner) storedLiterals(table string, groups []Condition) ([]Condition, error) {
	out := slices.Clone(groups)
	for gi, g := range groups {
		out[gi].Columns = slices.Clone(g.Columns)
		for ci, c := range g.Columns {
			class := p.b.columnClass(table, c.Column, false)
			vals := slices.Clone(c.Values)
			for vi, o := range vals {
				if o.Literal == nil {
					continue
				}
				v, err := class.Stored(*o.Literal)
				if err != nil {
					return nil, p.errorf(-1, "INSERT into sharded table %q: sharding column %q: %v", table, c.Column, err)
				}
				v = asLong(class, v)
				vals[vi] = Operand{Param: o.Param, Literal: &v}
			}
			out[gi].Columns[ci].Values = vals
		}
	}
	return out, nil
}

// asLong returns v as a Long when it is an Integer sharding value of an
// integer column (class ClassInteger or ClassIntegerText), else v.
//
// ShardingSphere types a literal by its size (Integer in int32 range) and a
// JDBC parameter by its setter (Long for setLong, as go-sql-driver sends Go
// integers), and HASH_MOD hashes the two differently for negative values
// (Integer.hashCode(-7) is -7, Long.hashCode(-7) is 6): the same row would
// be written by a parameter on one data node and looked for by a literal on
// another. shardgen routes every integer value of an integer column as a
// Long, as generated code passes its integer parameters, so a literal and a
// parameter of the same value always meet on one data node.
func asLong(class runtime.ColumnClass, v runtime.Value) runtime.Value {
	if v.Kind == runtime.KindInt && (class == runtime.ClassInteger || class == runtime.ClassIntegerText) {
		return runtime.Long(v.Int)
	}
	return v
}

// convertValue converts one run-time sharding value for a column of class
// c: as the server stores it for an INSERT (stored; an error names the
// value), else as MySQL compares it. An integer result is Long (asLong);
// param reports that v came from a parameter, whose converted integer is
// Long whatever the column (as go-sql-driver sends Go integers).
func convertValue(class runtime.ColumnClass, v runtime.Value, param, stored bool) (runtime.Value, runtime.Conversion, error) {
	var conv runtime.Conversion
	if stored {
		var err error
		if v, err = class.Stored(v); err != nil {
			return v, conv, err
		}
	} else {
		v, conv = class.Equal(v)
	}
	if param && v.Kind == runtime.KindInt {
		v = runtime.Long(v.Int)
	}
	return asLong(class, v), conv, nil
}

// convertRun converts the values of one column's run-time condition: see
// Builder.Units. ops are the condition's operands, one per value; every
// converted integer of an integer column is a Long (asLong). ok is false
// when the condition must be dropped (every target); a value that matches
// no row comes back as NULL. When every value is already an integer of an
// integer column (the point-select path), sv is converted in place and
// returned without allocating: its Values and Range must be the caller's
// own.
func convertRun(class runtime.ColumnClass, sv runtime.ShardingValues, ops []Operand, stored bool) (runtime.ShardingValues, bool, error) {
	isHex := func(v runtime.Value) bool { return v.Kind == runtime.KindHexNumber }
	if class == runtime.ClassAsIs && !slices.ContainsFunc(sv.Values, isHex) && (sv.Range == nil || !isHex(sv.Range.Lower) && !isHex(sv.Range.Upper)) {
		return sv, true, nil
	}
	notInt := func(v runtime.Value) bool {
		return v.Kind != runtime.KindInt && v.Kind != runtime.KindLong && v.Kind != runtime.KindNull
	}
	if class == runtime.ClassInteger && !slices.ContainsFunc(sv.Values, notInt) && (sv.Range == nil || !notInt(sv.Range.Lower) && !notInt(sv.Range.Upper)) {
		// Integers already: each Integer becomes a Long (asLong) in place,
		// without allocating (the point-select path); sv's slice and range
		// are the caller's own (convertedValues builds them per call).
		for i, v := range sv.Values {
			sv.Values[i] = asLong(class, v)
		}
		if r := sv.Range; r != nil {
			r.Lower, r.Upper = asLong(class, r.Lower), asLong(class, r.Upper)
		}
		return sv, true, nil
	}
	out := runtime.ShardingValues{Column: sv.Column}
	for i, v := range sv.Values {
		wasNull := v.IsNull()
		c, conv, err := convertValue(class, v, ops[i].Literal == nil, stored)
		if err != nil {
			return sv, false, fmt.Errorf("sharding column %s: %w", sv.Column, err)
		}
		switch conv {
		case runtime.EveryTarget:
			return sv, false, nil
		case runtime.NoRow:
			c = runtime.Null // matches no row, as NULL does
		}
		if wasNull {
			c = runtime.Null
		}
		out.Values = append(out.Values, c)
	}
	if r := sv.Range; r != nil {
		nr := *r
		for _, b := range []struct {
			v     *runtime.Value
			has   bool
			open  *bool
			lower bool
		}{{&nr.Lower, nr.HasLower, &nr.LowerOpen, true}, {&nr.Upper, nr.HasUpper, &nr.UpperOpen, false}} {
			if !b.has {
				continue
			}
			v, closed, conv := class.Bound(*b.v, b.lower)
			if conv != runtime.Converted {
				return sv, false, nil
			}
			*b.v = v
			if closed {
				*b.open = false
			}
		}
		out.Range = &nr
		if runtime.EmptyTimeRange(nr) {
			// MySQL matches no row; an INTERVAL algorithm would refuse it.
			return runtime.ShardingValues{Column: sv.Column, Values: []runtime.Value{runtime.Null}}, true, nil
		}
	}
	return out, true, nil
}

package plan

import (
	"strings"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// StmtKind is the kind of SQL statement a Plan executes.
type StmtKind uint8

const (
	StmtSelect StmtKind = iota + 1 // SELECT
	StmtInsert                     // INSERT (and REPLACE)
	StmtUpdate                     // UPDATE
	StmtDelete                     // DELETE
)

var stmtNames = [...]string{"", "select", "insert", "update", "delete"}

// String returns the lower-case SQL keyword, e.g. "select".
func (k StmtKind) String() string { return stmtNames[k] }

// MarshalJSON encodes the kind as its keyword.
func (k StmtKind) MarshalJSON() ([]byte, error) { return []byte(`"` + k.String() + `"`), nil }

// Plan is the single intermediate representation of one statement: what the
// generator turns into a typed Go function and what the proxy executes. It is
// plain data and prints deterministically as JSON (`shardgen explain`).
type Plan struct {
	Name      string     `json:"name"`
	Cmd       schema.Cmd `json:"cmd"`
	Source    string     `json:"source"` // file:line of the name line
	Statement StmtKind   `json:"statement"`
	// LogicSQL is the statement with every parameter as a positional `?`
	// (sqlc.arg(x) replaced), as written otherwise.
	LogicSQL string `json:"logic_sql"`
	// Params are the Go parameters of the generated function, in order of
	// first appearance.
	Params []*Param `json:"params,omitempty"`
	// Args maps each `?` of the actual SQL, in order, to the index in Params
	// of the value it takes (a named parameter used twice appears twice).
	Args []int `json:"args,omitempty"`
	// Columns are the result columns of a SELECT, in order.
	Columns []*Column `json:"columns,omitempty"`
	// RowModel names the logic table whose model struct the row reuses when
	// Columns are exactly that table's columns in DDL order; else "".
	RowModel string `json:"row_model,omitempty"`
	// KeyGenerate is set when an INSERT omits a column that a key generator
	// fills: the generated function produces the key and appends it.
	KeyGenerate *KeyGenerate `json:"key_generate,omitempty"`
	Route       *Route       `json:"route"`
	// Primary is set when the statement must run on the primary of a
	// read/write group: every write, a locking read (FOR UPDATE, LOCK IN
	// SHARE MODE) and a query annotated -- shardgen:primary. Other reads
	// may go to a replica.
	Primary bool `json:"primary,omitempty"`
	// Insert is set for a multi-row INSERT into a sharded table: rows are
	// routed one by one and every data node gets only its own rows.
	Insert *InsertPlan `json:"insert,omitempty"`
	// Merge is set when the route reaches several data nodes and the rows
	// must be merged (ORDER BY, GROUP BY, aggregates, DISTINCT, LIMIT).
	// The spec is the runtime's, so the proxy executes the very same value;
	// its LIMIT parameters index Params.
	Merge *runtime.MergeSpec `json:"merge,omitempty"`
	// NodeArgs are the arguments of the per-node SQL when they differ from
	// Args (a merged LIMIT); nil means Args.
	NodeArgs []NodeArg `json:"node_args,omitempty"`
	// Slice is set when a parameter is sqlc.slice(name): where its list is
	// expanded in each unit's SQL and how its values are routed.
	Slice *SliceArg `json:"slice,omitempty"`
	// Steps is set for a SELECT whose tables do not co-locate, evaluated
	// in steps across data nodes (Builder.BuildStepsPlan): every step's
	// statement planned, with the operators that combine their rows.
	// Route then only names the data sources the steps' units index.
	Steps *runtime.Steps `json:"steps,omitempty"`
	// StepRoutes are the routes of the steps' statements that narrow
	// their units at run time (runtime.StepQuery.Route): generated code
	// binds a router for each of their logic tables.
	StepRoutes []*Route `json:"-"`
	Doc        []string `json:"-"`
}

// Param is one parameter of the generated function.
type Param struct {
	Name string `json:"name"` // Go identifier, lowerCamelCase, unique in the function
	Type GoType `json:"type"`
	// Column is the logic column ("t_order.user_id") the value is compared
	// with or written to; "" for LIMIT counts and CASTs.
	Column string `json:"column,omitempty"`
	// Generated marks the hidden parameter that carries a generated key: the
	// generated function fills it from the key generator, callers never see
	// it.
	Generated bool `json:"generated,omitempty"`
	// Slice marks sqlc.slice(name): the Go parameter is a []Type whose
	// values form an IN list (Plan.Slice).
	Slice bool `json:"slice,omitempty"`
}

// Column is one result column.
type Column struct {
	Name   string `json:"name"`             // the SQL name (alias or column name)
	Field  string `json:"field"`            // Go field name, UpperCamelCase, unique in the row
	Type   GoType `json:"type"`             // the Go type scanned into
	Origin string `json:"origin,omitempty"` // "t_order.status" for a plain column reference
	// Decrypt names the encryptor that turns the cipher text read for an
	// encrypted logic column back into its value; "" for other columns.
	Decrypt string `json:"decrypt,omitempty"`
	// Embed is the logic table of sqlc.embed(t) whose model struct holds
	// the column (Field is then the model's field); "" for a column of the
	// row itself. An embed's columns are consecutive, in DDL order.
	Embed string `json:"embed,omitempty"`
}

// GoType is a Go type named by import path and name: {"", "int64"},
// {"database/sql", "NullString"}, {"time", "Time"}, {"", "[]byte"}.
type GoType struct {
	Pkg  string `json:"pkg,omitempty"`
	Name string `json:"name"`
	// Kind is the Java kind of a sharding value of this type, as the driver
	// sends it (every Go integer travels as MySQL LONGLONG → java.lang.Long).
	Kind runtime.ValueKind `json:"-"`
	// Nullable reports whether the type can hold SQL NULL.
	Nullable bool `json:"-"`
}

// String returns the type as Go source spells it with the package's last
// path element, e.g. "sql.NullString".
// A pointer or slice of a package's type puts the package after its *
// or [], e.g. "*time.Time".
func (t GoType) String() string {
	if t.Pkg == "" {
		return t.Name
	}
	p := t.Pkg
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			p = p[i+1:]
			break
		}
	}
	prefix, name := t.split()
	return prefix + p + "." + name
}

// split separates the leading * and [] of Name from the type they apply
// to.
func (t GoType) split() (prefix, name string) {
	name = strings.TrimLeft(t.Name, "*[]")
	return t.Name[:len(t.Name)-len(name)], name
}

// MarshalJSON encodes the type as its import-qualified spelling, e.g.
// "database/sql.NullString", "*time.Time".
func (t GoType) MarshalJSON() ([]byte, error) {
	s := t.Name
	if t.Pkg != "" {
		prefix, name := t.split()
		s = prefix + t.Pkg + "." + name
	}
	return []byte(`"` + s + `"`), nil
}

// KeyGenerate describes a generated key column of an INSERT.
type KeyGenerate struct {
	Column    string        `json:"column"`
	Generator string        `json:"generator"` // key generator name
	Type      string        `json:"type"`      // SNOWFLAKE | UUID
	Props     runtime.Props `json:"props,omitempty"`
	Param     int           `json:"param"` // index in Params of the first row's key (a hidden parameter)
	// Params are the indexes in Params of every row's key, in row order
	// (one for a single-row INSERT).
	Params []int `json:"params"`
}

// Route says where a statement runs.
type Route struct {
	Kind runtime.RouteKind `json:"kind"`
	// LogicTable is the sharded (or broadcast / single) table that decides
	// the route; for a binding-group join, the first table of the group.
	LogicTable string `json:"logic_table,omitempty"`
	// DataSources are the data sources Units refer to, in order.
	DataSources []string `json:"data_sources"`
	// Units are the candidate route units in data node order: one per data
	// node of LogicTable (or per data source of a broadcast table), each with
	// its rewritten SQL. The route picks among them at run time.
	Units []Unit `json:"units"`
	// Nodes lays out Units by strategy target: Nodes[ds][t] is the unit index
	// of the t-th actual table of the ds-th data source.
	Nodes [][]int `json:"-"`
	// Database and Table are the strategies of LogicTable (nil: none).
	Database *Strategy `json:"database,omitempty"`
	Table    *Strategy `json:"table,omitempty"`
	// Conditions are the sharding conditions in disjunctive normal form: the
	// route is the union over groups. Empty for AllNodes, Broadcast and
	// SingleTable routes.
	Conditions []Condition `json:"conditions,omitempty"`
	// Fixed lists the unit indexes when they are known at generate time
	// (literal sharding values, broadcast writes, single tables); nil when
	// the route is computed from parameter values at run time.
	Fixed []int `json:"fixed,omitempty"`
	// Reason explains a route that is not computed from values.
	Reason string `json:"reason,omitempty"`
	// Pushdown is set when the statement is sent whole to the one data
	// node every table of it routes to (subqueries, derived tables, INSERT
	// … SELECT, joins not on the sharding columns): each unit's SQL names
	// the actual table of every logic table. Such a route always has one
	// unit: when the conditions of LogicTable match no row (a NULL value)
	// another table's node, or the first unit, serves.
	Pushdown bool `json:"pushdown,omitempty"`
	// Agree lists the other tables of a pushed-down statement whose own
	// sharding conditions must reach the unit the route picked; they are
	// checked at run time (literal ones were checked at generate time).
	Agree []Agreement `json:"agree,omitempty"`
	// Update is set for an UPDATE that sets sharding columns of
	// LogicTable (`SET user_id = ? ... WHERE user_id = ?`): it may run
	// only where every updated row stays on its data node, which is checked
	// at run time before it runs (runtime.ShardingTable.UpdateStaysOnNode).
	Update *ShardingUpdate `json:"update,omitempty"`
}

// Agreement is a table of a pushed-down statement that routes by its own
// sharding conditions (or a single table on its data source). The statement
// runs only where they meet the route's unit; where they reach another data
// node it fails with AgreementError, since evaluating it across data nodes
// is not supported yet. Conditions that match no row (a NULL value) agree
// with any unit.
type Agreement struct {
	// Table is the logic table, for messages.
	Table string `json:"table"`
	// Router is the logic table whose router computes the data nodes of
	// Conditions: the route's LogicTable when SameNode (Conditions then
	// name its sharding columns), else Table.
	Router     string      `json:"router,omitempty"`
	Conditions []Condition `json:"conditions,omitempty"`
	// SameNode: Router lays its data nodes out as the route's table does,
	// and the node index must equal the unit's; otherwise the data source
	// must be the unit's.
	SameNode bool `json:"same_node,omitempty"`
	// DataSource is set for a single table: the unit must be on it.
	DataSource string `json:"data_source,omitempty"`
}

// ShardingUpdate describes the sharding columns an UPDATE sets.
type ShardingUpdate struct {
	// Set holds the new value of each sharding column set (in SET order;
	// columns as the rule names them), one `=` value each, converted as
	// the server stores it.
	Set Condition `json:"set"`
	// Conditions are the sharding conditions of the updated rows:
	// Route.Conditions (one empty group when there are none) with the
	// condition on each set column replaced by its Set value.
	Conditions []Condition `json:"conditions"`
}

// ColumnsText names the columns set for messages, e.g. "user_id, order_id".
func (u *ShardingUpdate) ColumnsText() string {
	names := make([]string, len(u.Set.Columns))
	for i, c := range u.Set.Columns {
		names[i] = c.Column
	}
	return strings.Join(names, ", ")
}

// Unit is one candidate route unit: a data node and the SQL it runs.
type Unit struct {
	DataSource int    `json:"data_source"` // index into Route.DataSources
	Node       string `json:"node"`        // "ds_0.t_order_1"
	SQL        string `json:"sql"`
}

// Strategy is a sharding strategy as a statement uses it.
type Strategy struct {
	Kind      schema.StrategyKind `json:"kind"`
	Columns   []string            `json:"columns,omitempty"`
	Algorithm string              `json:"algorithm,omitempty"` // name in shardingAlgorithms
	Type      string              `json:"type,omitempty"`      // e.g. "MOD"
	Props     runtime.Props       `json:"props,omitempty"`
	// Targets are the strategy's targets: data source names for a database
	// strategy; for a table strategy, Targets[ds] are the actual tables of
	// the ds-th data source (TableTargets).
	Targets      []string   `json:"-"`
	TableTargets [][]string `json:"-"`
	// Inline is set when generated code can compute a precise route of an
	// integer value with straight-line Go instead of the bound algorithm.
	Inline *Inline `json:"inline,omitempty"`
}

// Inline is an algorithm inlined into generated code: target index =
// Index[Func(value, Modulus)], where Func is a function of runtime/inlined.go
// ("Mod", "HashModLong", "JavaRem") and Index was computed at generate time
// with the bound algorithm (-1: the suffix names no target). For a table
// strategy Index holds for every data source alike.
//
// It applies to operands whose Java kind is Long (Go integer parameters and
// integer literals). For a String operand, "HashModLong" becomes
// "HashModString" (same Index: both give the HASH_MOD suffix); "Mod" and
// "JavaRem" do not apply to strings — route those with the bound algorithm
// (ShardingTable.PreciseNode).
type Inline struct {
	Func    string `json:"func"`
	Modulus int64  `json:"modulus"`
	Index   []int  `json:"index"`
	// Identity reports Index[i] == i for every i, so the look-up can be
	// skipped.
	Identity bool `json:"identity"`
}

// Condition is one AND-group of sharding conditions: for each sharding
// column that the group constrains, the values it may take.
type Condition struct {
	Columns []ColumnCondition `json:"columns"`
}

// ColumnCondition constrains one sharding column: either a list of values
// (`=`, `IN`) or a range (BETWEEN, <, <=, >, >=).
type ColumnCondition struct {
	Column string     `json:"column"`
	Values []Operand  `json:"values,omitempty"`
	Range  *RangeCond `json:"range,omitempty"`
	// Binary: the column is compared under BINARY (`BINARY col = ?`),
	// which compares an integer column as its decimal text
	// (runtime.ClassIntegerText).
	Binary bool `json:"binary,omitempty"`
}

// RangeCond is a range whose bounds are operands.
type RangeCond struct {
	Lower     *Operand `json:"lower,omitempty"`
	Upper     *Operand `json:"upper,omitempty"`
	LowerOpen bool     `json:"lower_open,omitempty"`
	UpperOpen bool     `json:"upper_open,omitempty"`
}

// Operand is a sharding value known at generate time (a literal) or taken
// from a parameter at run time.
type Operand struct {
	Param   int            `json:"param"` // index in Plan.Params; -1 for a literal
	Literal *runtime.Value `json:"literal,omitempty"`
}

// InsertPlan splits a multi-row INSERT per data node. Route.Conditions[r]
// is the sharding condition of VALUES row r.
type InsertPlan struct {
	Split runtime.InsertSplit `json:"split"`
	// RowArgs[r] are the indexes in Params of row r's placeholders, in
	// order; TailArgs those of the text after the rows (ON DUPLICATE KEY
	// UPDATE), sent with every node's statement.
	RowArgs  [][]int `json:"row_args"`
	TailArgs []int   `json:"tail_args,omitempty"`
	// ByNodeArgs is set when the per-node statement has arguments of its
	// own (Plan.NodeArgs: an encrypted table, whose every row writes the
	// cipher, assisted query and like query values of each encrypted
	// column): RowArgs and TailArgs then index NodeArgs, not Params, and
	// the rows' text is the rewritten statement's.
	ByNodeArgs bool `json:"by_node_args,omitempty"`
}

// ComparesText reports whether the merge of p compares text itself, by a
// UTF-8 collation it implements (runtime.ColumnKind.Collation), rather
// than by the data nodes' sort keys: what schema.Query.WeighText changes.
func (p *Plan) ComparesText() bool {
	if p.Merge == nil {
		return false
	}
	for _, k := range p.Merge.Kinds {
		if k.Type == runtime.ColumnString && k.Collation != runtime.CollationNone && k.Collation != runtime.CollationBinary {
			return true
		}
	}
	return false
}

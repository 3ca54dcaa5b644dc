package runtime

import "strconv"

// RouteKind is the shape of a statement's route: how the set of data nodes it
// runs on is found. The generator decides it once per statement; explain
// output and the proxy print it by name.
//
// Source: ShardingSphere's route engines (ShardingStandardRouteEngine,
// ShardingDatabaseBroadcastRouteEngine, the broadcast and single routers;
// ../shared/spec/shardingsphere.md §7 and §9).
type RouteKind uint8

const (
	// RouteSingleNode: one data node computed from the sharding values.
	// Requires an `=` condition (or a one-item IN) on every sharding column
	// of the table's database and table strategies. Runs as one route unit
	// with no goroutine.
	RouteSingleNode RouteKind = iota
	// RouteMultiNode: several data nodes computed from the sharding values
	// (IN lists, OR branches, ranges). Runs as several route units in
	// parallel; results are merged.
	RouteMultiNode
	// RouteAllNodes: every data node of the table (full route), because the
	// statement has no usable sharding condition.
	RouteAllNodes
	// RouteBroadcast: a broadcast table, identical on every data source:
	// reads go to one data source, writes to all of them.
	RouteBroadcast
	// RouteSingleTable: a single (unsharded) table on its one data source;
	// the table name is not rewritten.
	RouteSingleTable
)

var routeKindNames = [...]string{"SingleNode", "MultiNode", "AllNodes", "Broadcast", "SingleTable"}

// String returns the kind's name, e.g. "SingleNode"; an unknown kind gives
// "RouteKind(n)".
func (k RouteKind) String() string {
	if int(k) < len(routeKindNames) {
		return routeKindNames[k]
	}
	return "RouteKind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalJSON encodes the kind as its name, so explain output reads
// "SingleNode" rather than 0.
func (k RouteKind) MarshalJSON() ([]byte, error) {
	return []byte(`"` + k.String() + `"`), nil
}

// DataNode is one actual table on one data source, ShardingSphere's
// "ds_0.t_order_0". runtime cannot import schema, so it has its own copy of
// the type; schema converts field by field.
type DataNode struct {
	DataSource string // data source name as configured under dataSources:, e.g. "ds_0"
	Table      string // actual table name, e.g. "t_order_0"
}

// String returns "ds.table", e.g. "ds_0.t_order_0".
func (n DataNode) String() string { return n.DataSource + "." + n.Table }

// RouteUnit is one SQL statement to run on one data source: ShardingSphere's
// ExecutionUnit (a data source plus the rewritten SQL). Generated code keeps
// its route units in package-level tables, so building one costs nothing at
// run time.
type RouteUnit struct {
	// DataSource is the index of the unit's data source in the Sources the
	// statement runs on (the order of the names given to DB.Sources). An
	// index outside it is an error, never a panic.
	DataSource int
	// SQL is the actual SQL, already rewritten for the unit's data node(s)
	// (actual table names, derived columns, pagination). It is executed as
	// is: the executor never parses SQL.
	SQL string
	// Args, when non-nil, replaces the arguments passed to the executing
	// call for this unit only, e.g. the rows of a multi-row INSERT that
	// belong to this data node. nil (the usual case) means the call's
	// arguments.
	Args []any
}

// unitArgs returns the arguments to run u with: u.Args when set, else args.
func unitArgs(u *RouteUnit, args []any) []any {
	if u.Args != nil {
		return u.Args
	}
	return args
}

package runtime

import (
	"context"
	"log/slog"
	"slices"
	"time"
)

// Stmt describes one logic statement for logging and observing. Generated
// code declares one per annotated query as a package-level variable and
// passes its address with every call, so nothing is built per call; the
// proxy builds one per cached plan. A nil *Stmt is allowed and logs an empty
// name and logic SQL.
//
// e.g. (generated):
//
//	var getOrderStmt = shardrt.Stmt{Name: "GetOrder", LogicSQL: "SELECT * FROM t_order WHERE order_id = ?"}
type Stmt struct {
	Name     string // the query's name from its annotation, e.g. "GetOrder"
	LogicSQL string // the SQL the user wrote, before rewriting
}

func (st *Stmt) name() string {
	if st == nil {
		return ""
	}
	return st.Name
}

func (st *Stmt) logicSQL() string {
	if st == nil {
		return ""
	}
	return st.LogicSQL
}

// Event is what an Observer is told after a route unit ran.
type Event struct {
	Stmt       *Stmt         // the logic statement; nil when the caller passed none
	DataSource string        // the unit's data source name, e.g. "ds_1"
	SQL        string        // the actual SQL that ran
	Duration   time.Duration // wall time of the unit, from before the statement was sent
	// Rows is the number of rows affected (Exec, ExecUnits) or read
	// (QueryUnits) by the unit; -1 when not known because the rows are
	// returned to the caller unread (Query, QueryRow).
	Rows int64
	Err  error // the unit's error (a *NodeError), or nil
}

// Observer receives one Event per executed route unit, e.g. to export
// metrics or traces. Observe is called synchronously on the goroutine that
// ran the unit, after the unit finished (for Query and QueryRow: once the
// first response arrived), so it must return quickly. It is called from
// several goroutines at once when a statement runs several units in parallel
// (QueryUnits, ExecUnits), so implementations must be safe for concurrent
// use. ctx is the context of the executing call.
type Observer interface {
	Observe(ctx context.Context, ev Event)
}

// hooks are the optional logging and observing of a DB. A DB with neither
// has nil hooks, and the execution hot path does nothing but that nil check.
type hooks struct {
	logger   *slog.Logger // sql-show output; nil: off
	observer Observer     // nil: off
}

// Log record messages, following ShardingSphere's sql-show output (logger
// topic "ShardingSphere-SQL"): one "Logic SQL" record per executed
// statement, then one "Actual SQL" record per route unit, both before
// execution.
const (
	logMsgLogic  = "Logic SQL"
	logMsgActual = "Actual SQL"
)

// logLogic writes the "Logic SQL" record of a statement about to run
// units route units. Attributes: stmt (name), sql (logic SQL), units.
func (h *hooks) logLogic(ctx context.Context, st *Stmt, units int) {
	if h.logger == nil || !h.logger.Enabled(ctx, slog.LevelInfo) {
		return
	}
	h.logger.LogAttrs(ctx, slog.LevelInfo, logMsgLogic,
		slog.String("stmt", st.name()),
		slog.String("sql", st.logicSQL()),
		slog.Int("units", units))
}

// logActual writes the "Actual SQL" record of one unit about to run.
// Attributes: stmt, data_source, sql (actual SQL), args.
func (h *hooks) logActual(ctx context.Context, st *Stmt, dataSource, query string, args []any) {
	if h.logger == nil || !h.logger.Enabled(ctx, slog.LevelInfo) {
		return
	}
	h.logger.LogAttrs(ctx, slog.LevelInfo, logMsgActual,
		slog.String("stmt", st.name()),
		slog.String("data_source", dataSource),
		slog.String("sql", query),
		slog.Any("args", slices.Clone(args))) // a copy: the caller's slice must not escape
}

// begin logs one unit (and, when logic is set, its statement) and returns
// the start time for end; the zero time when there is no observer.
func (h *hooks) begin(ctx context.Context, st *Stmt, logic bool, dataSource, query string, args []any) time.Time {
	if logic {
		h.logLogic(ctx, st, 1)
	}
	h.logActual(ctx, st, dataSource, query, args)
	if h.observer == nil {
		return time.Time{}
	}
	return time.Now()
}

// end tells the observer, if any, that a unit finished.
func (h *hooks) end(ctx context.Context, start time.Time, st *Stmt, dataSource, query string, rows int64, err error) {
	if h.observer == nil {
		return
	}
	h.observer.Observe(ctx, Event{
		Stmt:       st,
		DataSource: dataSource,
		SQL:        query,
		Duration:   time.Since(start),
		Rows:       rows,
		Err:        err,
	})
}

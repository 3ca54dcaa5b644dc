package runtime

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"go.yaml.in/yaml/v3"
)

// All-or-nothing writes: a write statement with several route units either
// changes every data node it is routed to or none (see ExecUnits). This
// file holds the commit and rollback of the per-data-source transactions of
// an auto-committed statement, the savepoint of a statement inside a
// transaction, and the error of a commit that only partly succeeded.

// savepointName is the savepoint set before a multi-unit write inside a
// transaction. One name is enough: statements of one transaction run one
// after the other, and MySQL replaces a savepoint of the same name.
const savepointName = "shardgen_stmt"

// PartialCommitError is the error of an auto-committed write with units on
// several data sources (ExecUnits, ExecBroadcast) whose COMMIT failed on a
// data source after another had committed: the committed data sources keep
// the statement's changes, the others do not. errors.Is(err,
// ErrLocalPartialCommit) holds, and errors.As finds each COMMIT error (a
// *NodeError naming its data source).
//
// Repair: run Units again (each on its data source, with its Args) once the
// data source answers, or undo the statement on Committed. For a broadcast
// table, `shardgen check broadcast` lists the copies that differ. The error
// is logged at level Error with the same fields (see WithLogger) when it
// happens, so that it can be repaired even when the caller drops it.
type PartialCommitError struct {
	// Committed are the data sources that committed, in commit order.
	Committed []string
	// Units are the route units on the data sources that did not commit,
	// each with its Args (the statement's arguments when it had none).
	Units []RouteUnit
	// Errs are the COMMIT errors, one *NodeError per data source.
	Errs []error
	// Stmt is the statement (nil when the caller gave none).
	Stmt *Stmt

	names  []string     // data source names by unit DataSource, for messages
	logger *slog.Logger // where the error is logged (nil: slog.Default())
}

// Error reads "LOCAL transaction partly committed: committed on ds_0; not
// committed: data node ds_1: <cause>; statement: <logic SQL>".
func (e *PartialCommitError) Error() string {
	var b strings.Builder
	b.WriteString(ErrLocalPartialCommit.Error())
	b.WriteString(": committed on ")
	b.WriteString(strings.Join(e.Committed, ", "))
	b.WriteString("; not committed: ")
	for i, err := range e.Errs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(err.Error())
	}
	if sql := e.Stmt.logicSQL(); sql != "" {
		b.WriteString("; statement: ")
		b.WriteString(sql)
	}
	return b.String()
}

// Unwrap returns ErrLocalPartialCommit and the COMMIT errors.
func (e *PartialCommitError) Unwrap() []error {
	return append([]error{ErrLocalPartialCommit}, e.Errs...)
}

// log writes e at level Error, with the statement, the committed data
// sources and every unit that did not commit (data source, actual SQL,
// arguments).
func (e *PartialCommitError) log(ctx context.Context) {
	l := e.logger
	if l == nil {
		l = slog.Default()
	}
	attrs := []slog.Attr{
		slog.String("stmt", e.Stmt.name()),
		slog.String("sql", e.Stmt.logicSQL()),
		slog.String("committed", strings.Join(e.Committed, ",")),
	}
	for _, u := range e.Units {
		attrs = append(attrs, slog.Group("not_committed",
			slog.String("data_source", e.names[u.DataSource]),
			slog.String("sql", u.SQL),
			slog.Any("args", u.Args)))
	}
	l.LogAttrs(ctx, slog.LevelError, "shardgen: write partly committed; repair the data sources not committed", attrs...)
}

// finishWrite completes err, the error of a write whose unit arguments
// default to args: a *PartialCommitError gets its units' arguments and is
// logged. Other errors are returned as they are.
func finishWrite(ctx context.Context, err error, args []any) error {
	var pc *PartialCommitError
	if err == nil || !errors.As(err, &pc) {
		return err
	}
	for i := range pc.Units {
		if pc.Units[i].Args == nil {
			pc.Units[i].Args = args
		}
	}
	pc.log(ctx)
	return err
}

// rollbackGroups rolls back the transactions of a failed write. Errors are
// dropped: the statement's own error is what the caller needs, and a
// transaction whose connection broke is rolled back by its server.
func (s *Sources) rollbackGroups(groups []*unitGroup) {
	for _, g := range groups {
		if g.tx != nil {
			_ = g.tx.Rollback()
		}
		g.endTx()
	}
}

// commitGroups commits the transactions of a write whose units all
// succeeded, one data source after the other (see ExecUnits): when the
// first COMMIT fails, the others are rolled back and its *NodeError is
// returned; after one succeeded, every other is still committed and any
// failure gives a *PartialCommitError.
func (s *Sources) commitGroups(st *Stmt, units []RouteUnit, groups []*unitGroup) error {
	var pc *PartialCommitError
	var committed []string
	for k, g := range groups {
		d := units[g.units[0]].DataSource
		err := g.tx.Commit()
		g.endTx()
		if err == nil {
			committed = append(committed, s.names[d])
			continue
		}
		ne := &NodeError{DataSource: s.names[d], SQL: "COMMIT", Err: err}
		if k == 0 {
			s.rollbackGroups(groups[1:])
			return ne
		}
		if pc == nil {
			pc = &PartialCommitError{Stmt: st, names: s.names}
			if s.db != nil {
				pc.logger = s.db.logger
			}
		}
		pc.Errs = append(pc.Errs, ne)
		for _, i := range g.units {
			pc.Units = append(pc.Units, units[i])
		}
	}
	if pc == nil {
		return nil
	}
	pc.Committed = committed
	return pc
}

// runXA runs the units of a write on several data sources as one XA
// transaction (transaction type XA): one branch per data source, two-phase
// commit with the coordinator log (see DistTx).
func (s *Sources) runXA(ctx context.Context, st *Stmt, units []RouteUnit, fn unitFunc) error {
	t, err := s.BeginDistributed(ctx, TxOptions{Type: TxXA})
	if err != nil {
		return err
	}
	if err := t.runUnits(ctx, st, units, fn, false); err != nil {
		return errors.Join(err, t.Rollback())
	}
	return t.Commit()
}

// savepoint sets the statement savepoint on q (a transaction's connection);
// the error is a *NodeError.
func savepoint(ctx context.Context, q target, name string) error {
	if _, err := q.exec(ctx, "SAVEPOINT "+savepointName, nil); err != nil {
		return &NodeError{DataSource: name, SQL: "SAVEPOINT " + savepointName, Err: err}
	}
	return nil
}

// rollbackToSavepoint undoes a failed statement on q back to its savepoint;
// the error is a *NodeError (e.g. the connection broke, or the server
// already rolled the whole transaction back after a deadlock).
func rollbackToSavepoint(ctx context.Context, q target, name string) error {
	stmt := "ROLLBACK TO SAVEPOINT " + savepointName
	if _, err := q.exec(context.WithoutCancel(ctx), stmt, nil); err != nil {
		return &NodeError{DataSource: name, SQL: stmt, Err: err}
	}
	return nil
}

// transactionType reads the defaultType of the !TRANSACTION rule in rules
// (ShardingSphere's global transaction rule: LOCAL, XA or BASE). BASE is not
// offered and is an error.
func (p *deployParser) transactionType(rules *yaml.Node) TxType {
	if rules.Kind != yaml.SequenceNode {
		return TxLocal
	}
	for _, r := range rules.Content {
		r = resolve(r)
		if r.Tag != "!TRANSACTION" || r.Kind != yaml.MappingNode {
			continue
		}
		return p.transactionRule(r, "!TRANSACTION")
	}
	return TxLocal
}

// transactionRule reads defaultType of a transaction rule body (the
// !TRANSACTION rule, or a top-level transaction: mapping as in
// ShardingSphere-Proxy's server.yaml).
func (p *deployParser) transactionRule(n *yaml.Node, what string) TxType {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, what+" must be a mapping with defaultType")
		return TxLocal
	}
	for _, kv := range p.pairs(n, what) {
		if kv.key.Value != "defaultType" {
			continue
		}
		s, ok := p.scalar(kv.value, what+" defaultType")
		if !ok {
			return TxLocal
		}
		switch strings.ToUpper(s) {
		case "", "LOCAL":
			return TxLocal
		case "XA":
			return TxXA
		default:
			p.errorf(kv.value, what+" defaultType must be LOCAL or XA, got "+s)
		}
	}
	return TxLocal
}

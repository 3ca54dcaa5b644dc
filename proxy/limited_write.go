package proxy

import (
	"context"
	"errors"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

// limitedWrite answers an UPDATE or DELETE with ORDER BY … LIMIT n that the
// planner refused because it reaches several data nodes (planErr names
// plan.LimitedWriteRefusal): the keys of the n rows one MySQL would change
// are selected across data nodes in the statement's order
// (plan.LimitedWriteSteps), then exactly those rows are written in one
// all-or-nothing write over the data nodes they are on (each data node's
// write with only its rows' keys when the key is a sharding column:
// plan.Steps.SplitBind). ok is false when
// planErr is another refusal (it stands); when the statement cannot be
// split so, planErr is returned with the reason added.
func (h *handler) limitedWrite(ctx context.Context, c *mysql.Conn, sess *session, q string, planErr error) (*sqltypes.Result, bool, error) {
	st, refused := h.s.limitedWriteSteps(q, planErr)
	if st == nil {
		return nil, refused != nil, refused
	}
	r := &stepsRun{h: h, c: c, sess: sess, max: h.s.maxCrossNodeRows(), lossy: h.s.lossyCharset(c, q)}
	rows, raw, err := r.subqueryRows(ctx, st, 1)
	if err != nil {
		return nil, true, err
	}
	var p *plan.Plan
	if sl, i := st.SplitBind(rows, false); sl != nil {
		// Keys of a sharding column: each data node's write gets only its
		// rows' keys.
		vals, first := firstColumn(rows[i], raw[i])
		p = sl.Bind(h.s.b.ShardingTable, first, vals)
	} else {
		bound, err := r.bound(st, rows)
		if err == nil {
			err = h.s.checkSize(bound)
		}
		if err == nil {
			p, err = h.s.buildUncached(bound)
		}
		if err != nil {
			return nil, true, err
		}
	}
	res, err := h.execute(ctx, c, sess, p, nil, true)
	return res, true, err
}

// limitedWriteSteps returns the steps of an UPDATE or DELETE q with ORDER
// BY … LIMIT n that the planner refused (planErr) because it reaches
// several data nodes (plan.LimitedWriteSteps). Both are nil when planErr
// is another refusal (it stands); when q cannot be split so, refused is
// planErr with the reason added.
func (s *Server) limitedWriteSteps(q string, planErr error) (st *plan.Steps, refused error) {
	var pe *schema.Error
	if !errors.As(planErr, &pe) || !strings.Contains(pe.Msg, plan.LimitedWriteRefusal) {
		return nil, nil
	}
	st, err := s.b.LimitedWriteSteps(q)
	if err != nil {
		return nil, &schema.Error{Pos: pe.Pos, Msg: pe.Msg + "; " + err.Error()}
	}
	return st, nil
}

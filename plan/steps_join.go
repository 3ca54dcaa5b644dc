package plan

import (
	"fmt"

	"vitess.io/vitess/go/vt/sqlparser"
)

// JoinSteps is a nested-loop join of two table references that do not
// co-locate.
type JoinSteps struct{}

// joinSteps plans a nested-loop join of sel.
func (b *Builder) joinSteps(sel *sqlparser.Select) (*JoinSteps, error) {
	return nil, fmt.Errorf("%w: joins across data nodes are not evaluated yet", ErrCrossNode)
}

package plan

import (
	"fmt"

	"vitess.io/vitess/go/vt/sqlparser"
)

// UnionSteps is a UNION evaluated SELECT by SELECT.
type UnionSteps struct{}

// unionSteps plans a UNION.
func (b *Builder) unionSteps(u *sqlparser.Union) (*UnionSteps, error) {
	return nil, fmt.Errorf("%w: UNION across data nodes is not evaluated yet", ErrCrossNode)
}

package runtime

import "errors"

// InlineError is a problem in an inline expression. Offset is the 0-based
// byte offset in the expression text where the problem starts, so a caller
// that knows where the expression sits in a file can point at it.
type InlineError struct {
	Offset int
	Msg    string
}

func (e *InlineError) Error() string { return e.Msg }

// TODO(stub): replaced by the real implementation.
// ExpandInlineList expands a list expression such as
// "ds_${0..1}.t_order_${0..3}" or "<LITERAL>a, b" into its elements, in
// ShardingSphere's order (cartesian product, leftmost varies slowest).
func ExpandInlineList(expr string) ([]string, error) {
	return nil, errors.New("inline expressions: not implemented yet")
}

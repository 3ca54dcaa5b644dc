package runtime

import "errors"

// TODO(stub): replaced by the real implementation.
func newComplexInlineAlgorithm(props Props) (Algorithm, error) {
	return nil, errors.New("ComplexInline: not implemented yet")
}

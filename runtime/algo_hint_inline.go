package runtime

import "errors"

// TODO(stub): replaced by the real implementation.
func newHintInlineAlgorithm(props Props) (Algorithm, error) {
	return nil, errors.New("HintInline: not implemented yet")
}

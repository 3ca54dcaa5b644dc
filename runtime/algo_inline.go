package runtime

import "errors"

// TODO(stub): replaced by the real implementation.
func newInlineAlgorithm(props Props) (Algorithm, error) {
	return nil, errors.New("Inline: not implemented yet")
}

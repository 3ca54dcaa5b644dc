package runtime

import "errors"

// TODO(stub): replaced by the real implementation.
func newClassBasedAlgorithm(props Props) (Algorithm, error) {
	return nil, errors.New("ClassBased: not implemented yet")
}

package runtime

import "errors"

// TODO(stub): replaced by the real implementation.
func newAutoIntervalAlgorithm(props Props) (Algorithm, error) {
	return nil, errors.New("AutoInterval: not implemented yet")
}

package runtime

import "errors"

// TODO(stub): replaced by the real implementation.
func newIntervalAlgorithm(props Props) (Algorithm, error) {
	return nil, errors.New("Interval: not implemented yet")
}

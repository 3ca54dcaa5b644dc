package runtime

import "errors"

// TODO(stub): replaced by the real implementation.
func newBoundaryRangeAlgorithm(props Props) (Algorithm, error) {
	return nil, errors.New("BoundaryRange: not implemented yet")
}

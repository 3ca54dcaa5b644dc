package runtime

import "errors"

// TODO(stub): replaced by the real implementation.
func newVolumeRangeAlgorithm(props Props) (Algorithm, error) {
	return nil, errors.New("VolumeRange: not implemented yet")
}

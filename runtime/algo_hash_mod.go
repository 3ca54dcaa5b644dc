package runtime

import "errors"

// TODO(stub): replaced by the real implementation.
func newHashModAlgorithm(props Props) (Algorithm, error) {
	return nil, errors.New("HashMod: not implemented yet")
}

package runtime

import "errors"

// TODO(stub): replaced by the real implementation.
func newModAlgorithm(props Props) (Algorithm, error) {
	return nil, errors.New("Mod: not implemented yet")
}

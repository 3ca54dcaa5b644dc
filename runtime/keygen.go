package runtime

import "errors"

// TODO(stub): replaced by the real implementation.
func newSnowflake(props Props) (KeyGenerator, error) {
	return nil, errors.New("SNOWFLAKE: not implemented yet")
}

// TODO(stub): replaced by the real implementation.
func newUUID(props Props) (KeyGenerator, error) { return nil, errors.New("UUID: not implemented yet") }

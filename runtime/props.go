package runtime

import (
	"fmt"
	"strconv"
	"strings"
)

// Props holds an algorithm's `props:` as ShardingSphere sees them: a
// java.util.Properties, every value as text. YAML scalars are kept as written
// (`sharding-count: 4` gives "4").
type Props map[string]string

// PropError is a problem with one property of an algorithm. The schema loader
// turns it into a file:line:col error at the property's position.
type PropError struct {
	Prop string // property key, e.g. "sharding-count"; empty for the whole props block
	Msg  string
}

// Error formats the problem as `property "key" message`.
func (e *PropError) Error() string {
	if e.Prop == "" {
		return e.Msg
	}
	return fmt.Sprintf("property %q %s", e.Prop, e.Msg)
}

// Required returns the trimmed value of key or a *PropError naming it.
func (p Props) Required(key string) (string, error) {
	v, ok := p[key]
	if !ok || strings.TrimSpace(v) == "" {
		return "", &PropError{Prop: key, Msg: "is required"}
	}
	return strings.TrimSpace(v), nil
}

// Int64 returns key parsed as a decimal int64, or def when key is absent.
func (p Props) Int64(key string, def int64) (int64, error) {
	v, ok := p[key]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, &PropError{Prop: key, Msg: fmt.Sprintf("must be an integer, got %q", v)}
	}
	return n, nil
}

// RequiredInt64 returns key parsed as a decimal int64; absent is an error.
func (p Props) RequiredInt64(key string) (int64, error) {
	if _, err := p.Required(key); err != nil {
		return 0, err
	}
	return p.Int64(key, 0)
}

// Bool returns key parsed as true/false (case-insensitive, as Java's
// Boolean.parseBoolean but strict: anything else is an error), or def.
func (p Props) Bool(key string, def bool) (bool, error) {
	v, ok := p[key]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &PropError{Prop: key, Msg: fmt.Sprintf("must be true or false, got %q", v)}
}

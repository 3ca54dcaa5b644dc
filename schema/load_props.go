package schema

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shardgen/shardgen/runtime"
)

// propCheck validates the value of one top-level prop shardgen uses; it
// returns a message fragment or "".
type propCheck func(v string) string

// propChecks are the props shardgen reads (ConfigurationPropertyKey, 5.5.2).
// Every other key is kept as text and not checked: ShardingSphere has many
// props for its proxy and agent that mean nothing to shardgen.
var propChecks = map[string]propCheck{
	"sql-show":                       checkBoolProp,
	"max-connections-size-per-query": checkIntProp(1),
	"kernel-executor-size":           checkIntProp(0),
	"proxy-frontend-ssl-enabled":     checkBoolProp,
	"max-cross-node-rows":            checkIntProp(1),
	runtime.PropCrossNodeJoin: func(v string) string {
		if _, err := runtime.ParseJoinStrategy(v); err != nil {
			return err.Error()
		}
		return ""
	},
}

func checkBoolProp(v string) string {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "false":
		return ""
	}
	return "must be true or false, got " + strconv.Quote(v)
}

func checkIntProp(min int64) propCheck {
	return func(v string) string {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil || n < min {
			return "must be an integer ≥ " + strconv.FormatInt(min, 10) + ", got " + strconv.Quote(v)
		}
		return ""
	}
}

// loadProps reads the top-level `props:`: every value as text, with the
// position of each key. The props shardgen uses are checked.
func (l *loader) loadProps(n *yaml.Node) (runtime.Props, map[string]Pos) {
	props, pos, vals := l.props(n, "props")
	for k, v := range props {
		if check := propChecks[k]; check != nil {
			if msg := check(v); msg != "" {
				l.errorf(vals[k], "props: %s %s", k, msg)
			}
		}
	}
	return props, pos
}

// props reads a `props:` mapping of an algorithm or of the top level: scalar
// keys to scalar values, kept as the text written (a null value is ""), as
// java.util.Properties holds them. It returns the props, each key's
// position, and each value's node.
func (l *loader) props(n *yaml.Node, what string) (runtime.Props, map[string]Pos, map[string]*yaml.Node) {
	props := runtime.Props{}
	pos := map[string]Pos{}
	vals := map[string]*yaml.Node{}
	for _, e := range l.entries(n, what) {
		v, ok := l.scalar(e.val, what+"."+e.key.Value)
		if !ok {
			continue
		}
		props[e.key.Value] = v
		pos[e.key.Value] = l.pos(e.key)
		vals[e.key.Value] = e.val
		if isNull(e.val) {
			vals[e.key.Value] = e.key
		}
	}
	return props, pos, vals
}

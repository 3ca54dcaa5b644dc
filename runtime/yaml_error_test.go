package runtime_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	shardrt "github.com/shardgen/shardgen/runtime"
)

// yamlErrorCases are malformed YAML files with the line a user has to fix
// (where the offending token is, counted from 1) and the library's message.
// yaml.v3's own "line N" is before it in most of them.
var yamlErrorCases = []struct {
	name string
	src  string
	line int
	msg  string
}{
	{"unclosed flow sequence", "a: 1\nb:\n  c: [x, y\n  d: 2\ne: 3\n", 3, "did not find expected ',' or ']'"},
	{"unclosed flow mapping", "a: 1\nb:\n  c: {x: 1, y: 2\n  d: 2\ne: 3\n", 3, "did not find expected ',' or '}'"},
	{"unclosed flow sequence on line 1", "[a, b\nc: 2\n", 1, "did not find expected ',' or ']'"},
	{"wrong closing bracket", "a: 1\nb: [1, 2}\nc: 3\n", 2, "did not find expected ',' or ']'"},
	{"wrong closing bracket of a multi-line sequence", "a: 1\nb: [1,\n  2,\n  3}\nc: 3\n", 4, "did not find expected ',' or ']'"},
	{"bad indentation in a nested mapping", `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order
     keyGenerateStrategy: x
`, 6, "did not find expected key"},
	{"bad indentation at the top", "a:\n  b: 1\n c: 2\n", 3, "did not find expected key"},
	{"bad indentation after a valid multi-line flow sequence", "a: [1,\n    2]\nb:\n  c: 1\n d: 2\n", 5, "did not find expected key"},
	{"tab indentation", "a:\n  b: 1\n\tc: 2\n", 3, "found a tab character that violates indentation"},
	{"tab after spaces", "a:\n  b:\n  \tc: 2\n", 3, "found character that cannot start any token"},
	{"unclosed double quote", "a: 1\nb: \"abc\nc: 2\nd: 3\n", 2, "found unexpected end of stream"},
	{"unclosed single quote", "a: 1\nb: 'abc\nc: 2\nd: 3\n", 2, "found unexpected end of stream"},
	{"key without colon", "databaseName: a\ndataSources:\nprops\nrules: []\n", 3, "could not find expected ':'"},
	{"two colons", "a: 1\nb: c: d\ne: 2\n", 2, "mapping values are not allowed in this context"},
	{"key indented under a key with a value", "dataSources:\n  ds_0:\n    username: u\n  password: p\n    maxPoolSize: 3\nrules: []\n", 5,
		"mapping values are not allowed in this context (line 5 is indented under line 4, whose key already has a value: check the indentation of line 4 and of line 5)"},
	{"key indented under a key with a value, a blank line between", "a:\n  b: 1\n\n    c: 2\n", 4,
		"mapping values are not allowed in this context (line 4 is indented under line 2, whose key already has a value: check the indentation of line 2 and of line 4)"},
	{"two colons in a sequence entry", "a:\n- b: c: d\n", 2, "mapping values are not allowed in this context"},
	{"sequence entry in a mapping", "a: 1\nb: 2\n- c\n", 3, "did not find expected key"},
	{"undefined alias", "a: 1\nb:\n  c: *nope\n", 3, "unknown anchor 'nope' referenced"},
	{"error on the last line without a line end", "a: 1\nb: [1", 2, "did not find expected ',' or ']'"},
}

func TestYAMLErrorLine(t *testing.T) {
	for _, tt := range yamlErrorCases {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			err := yaml.Unmarshal([]byte(tt.src), &doc)
			require.Error(t, err)
			line, msg := shardrt.YAMLErrorLine([]byte(tt.src), err)
			require.Equal(t, tt.line, line, "library error: %v", err)
			require.Equal(t, tt.msg, msg)
		})
	}
}

// TestYAMLErrorLineCRLF checks that Windows line ends number lines the same.
func TestYAMLErrorLineCRLF(t *testing.T) {
	for _, tt := range yamlErrorCases {
		src := strings.ReplaceAll(tt.src, "\n", "\r\n")
		var doc yaml.Node
		err := yaml.Unmarshal([]byte(src), &doc)
		require.Error(t, err, tt.name)
		line, _ := shardrt.YAMLErrorLine([]byte(src), err)
		require.Equal(t, tt.line, line, "%s: library error: %v", tt.name, err)
	}
}

// FuzzYAMLErrorLine checks, from the cases above, that YAMLErrorLine never
// panics and names a line of the input whose prefix fails the same way.
func FuzzYAMLErrorLine(f *testing.F) {
	for _, tt := range yamlErrorCases {
		f.Add(tt.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var doc yaml.Node
		err := yaml.Unmarshal([]byte(src), &doc)
		if err == nil {
			return
		}
		line, msg := shardrt.YAMLErrorLine([]byte(src), err)
		require.NotEmpty(t, msg)
		lines := strings.SplitAfter(src, "\n")
		require.LessOrEqual(t, line, len(lines))
		if line > 0 {
			var prefix yaml.Node
			require.EqualError(t, yaml.Unmarshal([]byte(strings.Join(lines[:line], "")), &prefix), err.Error())
		}
	})
}

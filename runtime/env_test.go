package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExpandEnvFunc(t *testing.T) {
	env := map[string]string{
		"DB_PASSWORD": "s3cr3t}${env:X}",
		"DB_USER":     "app",
		"EMPTY":       "",
		"_X1":         "x1",
	}
	lookup := func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	}
	tests := []struct {
		name string
		in   string
		want string
		err  string
	}{
		{"no reference", "plain p@ss${word}", "plain p@ss${word}", ""},
		{"empty", "", "", ""},
		{"inline expression untouched", "ds_${0..3}.t_order_${0..15}", "ds_${0..3}.t_order_${0..15}", ""},
		{"whole value", "${env:DB_USER}", "app", ""},
		{"value is not expanded again", "${env:DB_PASSWORD}", "s3cr3t}${env:X}", ""},
		{"embedded", "jdbc:mysql://h/db?user=${env:DB_USER}&x=${0..1}", "jdbc:mysql://h/db?user=app&x=${0..1}", ""},
		{"two references", "${env:DB_USER}:${env:_X1}", "app:x1", ""},
		{"default unused", "${env:DB_USER:-root}", "app", ""},
		{"default for unset", "${env:NOPE:-root}", "root", ""},
		{"default for empty", "${env:EMPTY:-root}", "root", ""},
		{"empty default", "${env:NOPE:-}", "", ""},
		{"default with colon", "${env:NOPE:-a:b-c}", "a:b-c", ""},
		{"set but empty without default", "x${env:EMPTY}y", "xy", ""},
		{"escape", "$${env:DB_USER}", "${env:DB_USER}", ""},
		{"escape then reference", "$${env:A} ${env:DB_USER}", "${env:A} app", ""},
		{"unset", "pre ${env:DB_PASS} post", "", `${env:DB_PASS}: environment variable "DB_PASS" is not set and has no default`},
		{"unterminated", "${env:DB_USER", "", "${env:DB_USER: reference is not terminated by '}'"},
		{"unterminated long", "${env:ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_secret_tail", "",
			"${env:ABCDEFGHIJKLMNOPQRSTUVWXYZ012345...: reference is not terminated by '}'"},
		{"empty name", "${env:}", "", `${env:}: invalid environment variable name "" (want a letter or '_' followed by letters, digits or '_')`},
		{"name starts with digit", "${env:1X}", "", `${env:1X}: invalid environment variable name "1X" (want a letter or '_' followed by letters, digits or '_')`},
		{"name with dash", "${env:DB-USER}", "", `${env:DB-USER}: invalid environment variable name "DB-USER" (want a letter or '_' followed by letters, digits or '_')`},
		{"shell dash form", "${env:DB_USER-x}", "", `${env:DB_USER-x}: invalid environment variable name "DB_USER-x" (want a letter or '_' followed by letters, digits or '_')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExpandEnvFunc(tt.in, lookup)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestExpandEnv(t *testing.T) {
	t.Setenv("SHARDGEN_TEST_SECRET", "pw")
	got, err := ExpandEnv("${env:SHARDGEN_TEST_SECRET}")
	require.NoError(t, err)
	require.Equal(t, "pw", got)

	_, err = ExpandEnv("${env:SHARDGEN_TEST_SURELY_UNSET}")
	require.EqualError(t, err, `${env:SHARDGEN_TEST_SURELY_UNSET}: environment variable "SHARDGEN_TEST_SURELY_UNSET" is not set and has no default`)
}

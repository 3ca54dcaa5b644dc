package schema

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSingleDataSource: a table in no rule lives on the !SINGLE entry that
// names it, else the !SINGLE default data source, else the only logic data
// source (a data source, or a read/write-splitting group with its members),
// else nowhere.
func TestSingleDataSource(t *testing.T) {
	const ds = "dataSources:\n  ds_0: {url: \"jdbc:mysql://h:1/a\"}\n"
	const two = ds + "  ds_1: {url: \"jdbc:mysql://h:1/b\"}\n"
	const rw = two + `rules:
- !READWRITE_SPLITTING
  dataSources:
    rw: {staticStrategy: {writeDataSourceName: ds_0, readDataSourceNames: [ds_1]}}
`
	for _, tc := range []struct {
		name, yaml string
		table      string
		want       string
		only       bool
	}{
		{"one data source", ds, "t_user", "ds_0", true},
		{"one read/write group", rw, "t_user", "rw", true},
		{"two data sources", two, "t_user", "", false},
		{"!SINGLE entry", two + "rules:\n- !SINGLE\n  tables: [\"ds_1.T_User\"]\n", "t_user", "ds_1", false},
		{"!SINGLE ds.*", two + "rules:\n- !SINGLE\n  tables: [\"ds_1.*\"]\n", "t_user", "ds_1", false},
		{"!SINGLE default", two + "rules:\n- !SINGLE\n  tables: [\"ds_0.t_other\"]\n  defaultDataSource: ds_1\n", "t_user", "ds_1", false},
		{"!SINGLE entry over the only data source", ds + "  ds_9: {url: \"jdbc:mysql://h:1/c\"}\nrules:\n- !SINGLE\n  tables: [\"ds_9.t_user\"]\n", "t_user", "ds_9", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Load("rules.yaml", []byte(tc.yaml))
			require.NoError(t, err)
			got, only := cfg.SingleDataSource(tc.table)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.only, only)
			require.False(t, cfg.HasRule(tc.table))
		})
	}
}

// TestHasRule: sharding tables, autoTables and broadcast tables have a
// rule; a !SINGLE table does not (it is a single table).
func TestHasRule(t *testing.T) {
	cfg, err := Load("rules.yaml", []byte(`dataSources:
  ds_0: {url: "jdbc:mysql://h:1/a"}
  ds_1: {url: "jdbc:mysql://h:1/b"}
rules:
- !SHARDING
  tables:
    t_order: {actualDataNodes: "ds_${0..1}.t_order", databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: m}}}
  autoTables:
    t_auto: {actualDataSources: "ds_0,ds_1", shardingStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: m}}}
  shardingAlgorithms:
    m: {type: MOD, props: {sharding-count: 2}}
- !BROADCAST
  tables: [t_dict]
- !SINGLE
  tables: ["ds_0.t_config"]
`))
	require.NoError(t, err)
	for _, name := range []string{"t_order", "T_ORDER", "t_auto", "t_dict"} {
		require.True(t, cfg.HasRule(name), name)
	}
	require.False(t, cfg.HasRule("t_config"))
}

package runtime_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

const rwDataSources = `dataSources:
  ds_0: {dsn: "u:p@tcp(127.0.0.1:1)/ds_0"}
  ds_0_r: {dsn: "u:p@tcp(127.0.0.1:2)/ds_0"}
  ds_1: {dsn: "u:p@tcp(127.0.0.1:1)/ds_1"}
  ds_1_r: {dsn: "u:p@tcp(127.0.0.1:2)/ds_1"}
`

func TestParseConfigReadWrite(t *testing.T) {
	tests := []struct {
		name    string
		rule    string
		want    []shardrt.ReadWriteGroupConfig
		wantLBs []shardrt.NamedLoadBalancer
	}{
		{
			name: "5.4+ dataSourceGroups",
			rule: `- !READWRITE_SPLITTING
  dataSourceGroups:
    rw_0:
      writeDataSourceName: ds_0
      readDataSourceNames: [ds_0_r, ds_1_r]
      transactionalReadQueryStrategy: FIXED
      loadBalancerName: lb
    rw_1:
      writeDataSourceName: ds_1
      readDataSourceNames: [ds_1_r]
  loadBalancers:
    lb: {type: WEIGHT, props: {ds_0_r: 2, ds_1_r: 1}}
`,
			want: []shardrt.ReadWriteGroupConfig{
				{Name: "rw_0", WriteDataSource: "ds_0", ReadDataSources: []string{"ds_0_r", "ds_1_r"}, TxReads: shardrt.TxReadFixed, LoadBalancerName: "lb"},
				{Name: "rw_1", WriteDataSource: "ds_1", ReadDataSources: []string{"ds_1_r"}, TxReads: shardrt.TxReadDynamic},
			},
			wantLBs: []shardrt.NamedLoadBalancer{{Name: "lb", Type: "WEIGHT", Props: shardrt.Props{"ds_0_r": "2", "ds_1_r": "1"}}},
		},
		{
			name: "5.1 Static",
			rule: `- !READWRITE_SPLITTING
  dataSources:
    rw_0:
      type: Static
      props:
        write-data-source-name: ds_0
        read-data-source-names: ds_0_r,ds_1_r
      loadBalancerName: rr
  loadBalancers:
    rr: {type: ROUND_ROBIN}
`,
			want: []shardrt.ReadWriteGroupConfig{
				{Name: "rw_0", WriteDataSource: "ds_0", ReadDataSources: []string{"ds_0_r", "ds_1_r"}, TxReads: shardrt.TxReadPrimary, LoadBalancerName: "rr"},
			},
			wantLBs: []shardrt.NamedLoadBalancer{{Name: "rr", Type: "ROUND_ROBIN"}},
		},
		{
			name: "5.2 staticStrategy",
			rule: `- !READWRITE_SPLITTING
  dataSources:
    rw_0:
      staticStrategy: {writeDataSourceName: ds_0, readDataSourceNames: [ds_0_r]}
`,
			want: []shardrt.ReadWriteGroupConfig{
				{Name: "rw_0", WriteDataSource: "ds_0", ReadDataSources: []string{"ds_0_r"}, TxReads: shardrt.TxReadPrimary},
			},
		},
		{
			name: "inline expressions",
			rule: `- !READWRITE_SPLITTING
  dataSourceGroups:
    rw_${0..1}:
      writeDataSourceName: ds_${0..1}
      readDataSourceNames: ["ds_${0..1}_r"]
      transactionalReadQueryStrategy: primary
`,
			want: []shardrt.ReadWriteGroupConfig{
				{Name: "rw_0", WriteDataSource: "ds_0", ReadDataSources: []string{"ds_0_r"}, TxReads: shardrt.TxReadPrimary},
				{Name: "rw_1", WriteDataSource: "ds_1", ReadDataSources: []string{"ds_1_r"}, TxReads: shardrt.TxReadPrimary},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := shardrt.ParseConfig("c.yaml", []byte(rwDataSources+"rules:\n"+tt.rule))
			require.NoError(t, err)
			require.Equal(t, tt.want, cfg.ReadWriteGroups)
			require.Equal(t, tt.wantLBs, cfg.LoadBalancers)
		})
	}
}

func TestParseConfigReadWriteErrors(t *testing.T) {
	tests := []struct {
		name, rule, wantErr string
	}{
		{
			name: "bad strategy",
			rule: `- !READWRITE_SPLITTING
  dataSourceGroups:
    rw_0: {writeDataSourceName: ds_0, readDataSourceNames: [ds_0_r], transactionalReadQueryStrategy: SOMETIMES}
`,
			wantErr: `c.yaml:9: read/write group "rw_0": transactionalReadQueryStrategy must be PRIMARY, FIXED or DYNAMIC, got "SOMETIMES"`,
		},
		{
			name: "no write",
			rule: `- !READWRITE_SPLITTING
  dataSourceGroups:
    rw_0: {readDataSourceNames: [ds_0_r]}
`,
			wantErr: `c.yaml:9: read/write group "rw_0": the write data source name is required`,
		},
		{
			name: "dynamic",
			rule: `- !READWRITE_SPLITTING
  dataSources:
    rw_0: {type: Dynamic, props: {auto-aware-data-source-name: x}}
`,
			wantErr: `c.yaml:9: read/write group "rw_0": type must be Static, got "Dynamic" (Dynamic read/write splitting is not supported)`,
		},
		{
			name: "inline counts differ",
			rule: `- !READWRITE_SPLITTING
  dataSourceGroups:
    rw_${0..1}: {writeDataSourceName: ds_0, readDataSourceNames: [ds_0_r]}
`,
			wantErr: `c.yaml:9: read/write group "rw_${0..1}": writeDataSourceName "ds_0" gives 1 names for 2 groups`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := shardrt.ParseConfig("c.yaml", []byte(rwDataSources+"rules:\n"+tt.rule))
			require.EqualError(t, err, tt.wantErr)
		})
	}
}

func TestOpenReadWriteErrors(t *testing.T) {
	tests := []struct {
		name, rule, wantErr string
	}{
		{
			name:    "unknown write",
			rule:    "    rw_0: {writeDataSourceName: ds_9, readDataSourceNames: [ds_0_r]}\n",
			wantErr: `runtime.Open: read/write group "rw_0": write data source "ds_9" is not configured`,
		},
		{
			name:    "unknown read",
			rule:    "    rw_0: {writeDataSourceName: ds_0, readDataSourceNames: [ds_0_x]}\n",
			wantErr: `runtime.Open: read/write group "rw_0": read data source "ds_0_x" is not configured`,
		},
		{
			name:    "name clash",
			rule:    "    ds_1: {writeDataSourceName: ds_0, readDataSourceNames: [ds_0_r]}\n",
			wantErr: `runtime.Open: read/write group "ds_1": the name is also a data source`,
		},
		{
			name:    "unknown load balancer",
			rule:    "    rw_0: {writeDataSourceName: ds_0, readDataSourceNames: [ds_0_r], loadBalancerName: nope}\n",
			wantErr: `runtime.Open: read/write group "rw_0": load balancer "nope" is not configured`,
		},
		{
			name: "weight missing",
			rule: "    rw_0: {writeDataSourceName: ds_0, readDataSourceNames: [ds_0_r, ds_1_r], loadBalancerName: w}\n" +
				"  loadBalancers:\n    w: {type: WEIGHT, props: {ds_0_r: 1}}\n",
			wantErr: `runtime.Open: read/write group "rw_0": load balancer "w": WEIGHT: read data source "ds_1_r" has no weight; every read data source needs one`,
		},
		{
			name: "weight not positive",
			rule: "    rw_0: {writeDataSourceName: ds_0, readDataSourceNames: [ds_0_r], loadBalancerName: w}\n" +
				"  loadBalancers:\n    w: {type: WEIGHT, props: {ds_0_r: -1}}\n",
			wantErr: `runtime.Open: read/write group "rw_0": load balancer "w": WEIGHT: the weight of "ds_0_r" must be a number > 0, got "-1"`,
		},
		{
			name: "weight names no data source",
			rule: "    rw_0: {writeDataSourceName: ds_0, readDataSourceNames: [ds_0_r], loadBalancerName: w}\n" +
				"  loadBalancers:\n    w: {type: WEIGHT, props: {ds_0_r: 1, ds_7: 1}}\n",
			wantErr: `runtime.Open: load balancer "w": WEIGHT: "ds_7" is not a configured data source`,
		},
		{
			name: "unknown type",
			rule: "    rw_0: {writeDataSourceName: ds_0, readDataSourceNames: [ds_0_r], loadBalancerName: x}\n" +
				"  loadBalancers:\n    x: {type: LEAST_CONN}\n",
			wantErr: `runtime.Open: read/write group "rw_0": load balancer "x": unknown load balancer type "LEAST_CONN" (known: ROUND_ROBIN, RANDOM, WEIGHT)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := shardrt.ParseConfig("c.yaml", []byte(rwDataSources+"rules:\n- !READWRITE_SPLITTING\n  dataSourceGroups:\n"+tt.rule))
			require.NoError(t, err)
			db, err := shardrt.Open(cfg)
			require.Nil(t, db)
			require.EqualError(t, err, tt.wantErr)
		})
	}
}

func TestLoadBalancers(t *testing.T) {
	rr, err := shardrt.NewLoadBalancer("ROUND_ROBIN", nil, []string{"a", "b", "c"})
	require.NoError(t, err)
	var got []int
	for range 7 {
		got = append(got, rr.Choose([]int{0, 1, 2}))
	}
	require.Equal(t, []int{0, 1, 2, 0, 1, 2, 0}, got)
	require.Equal(t, 2, rr.Choose([]int{2}), "only the available one")

	rnd, err := shardrt.NewLoadBalancer("random", nil, []string{"a", "b"})
	require.NoError(t, err)
	seen := map[int]int{}
	for range 1000 {
		seen[rnd.Choose([]int{0, 1})]++
	}
	require.Len(t, seen, 2)
	require.InDelta(t, 500, seen[0], 100)

	w, err := shardrt.NewLoadBalancer("WEIGHT", shardrt.Props{"a": "3", "b": "1", "c": "Infinity"}, []string{"a", "b", "c"})
	require.NoError(t, err)
	counts := [3]int{}
	for range 20000 {
		counts[w.Choose([]int{0, 1})]++
	}
	require.Zero(t, counts[2], "c is not available")
	require.InDelta(t, 15000, counts[0], 600, "a:b is 3:1")
	require.Equal(t, 2, w.Choose([]int{2}))
}

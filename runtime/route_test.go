package runtime_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

func TestRouteKind(t *testing.T) {
	tests := []struct {
		kind shardrt.RouteKind
		want string
	}{
		{shardrt.RouteSingleNode, "SingleNode"},
		{shardrt.RouteMultiNode, "MultiNode"},
		{shardrt.RouteAllNodes, "AllNodes"},
		{shardrt.RouteBroadcast, "Broadcast"},
		{shardrt.RouteSingleTable, "SingleTable"},
		{shardrt.RouteKind(42), "RouteKind(42)"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.kind.String())
		b, err := json.Marshal(struct{ Route shardrt.RouteKind }{tt.kind})
		require.NoError(t, err)
		require.JSONEq(t, `{"Route":"`+tt.want+`"}`, string(b))
	}
}

func TestDataNodeString(t *testing.T) {
	require.Equal(t, "ds_0.t_order_3", shardrt.DataNode{DataSource: "ds_0", Table: "t_order_3"}.String())
}

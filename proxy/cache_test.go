package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
)

func TestPlanCacheLRU(t *testing.T) {
	c := newPlanCache(2)
	a, b, d := &plan.Plan{Name: "a"}, &plan.Plan{Name: "b"}, &plan.Plan{Name: "d"}
	c.put("a", a)
	c.put("b", b)
	require.Same(t, a, c.get("a")) // a is now the most recent
	c.put("d", d)                  // evicts b
	require.Nil(t, c.get("b"))
	require.Same(t, a, c.get("a"))
	require.Same(t, d, c.get("d"))
	require.Equal(t, 2, c.len())
	c.put("d", a)
	require.Same(t, a, c.get("d"))
	require.Equal(t, 2, c.len())
}

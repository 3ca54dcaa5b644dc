package proxy

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProxyMetrics reads /metrics over HTTP after a single-node query, an
// all-nodes query and an error.
func TestProxyMetrics(t *testing.T) {
	e := newPxEnv(t)
	cl := e.client(t, "root", "secret", nil)
	_, err := cl.Exec("INSERT INTO px_item (id, name) VALUES (1, 'a')")
	require.NoError(t, err)
	var n int
	require.NoError(t, cl.QueryRow("SELECT COUNT(*) FROM px_item WHERE id = ?", 1).Scan(&n))
	require.NoError(t, cl.QueryRow("SELECT COUNT(*) FROM px_item").Scan(&n))
	_, err = cl.Exec("SELECT nope FROM px_item")
	require.Error(t, err)
	hs := httptest.NewServer(e.srv.MetricsHandler())
	defer hs.Close()
	resp, err := hs.Client().Get(hs.URL + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	body := string(b)
	for _, want := range []string{
		`shardgen_proxy_queries_total{route="SingleNode"} 2`,
		`shardgen_proxy_queries_total{route="AllNodes"} 1`,
		`shardgen_proxy_errors_total 1`,
		`shardgen_proxy_query_duration_seconds_count{route="SingleNode"} 2`,
		`shardgen_proxy_pool_connections{data_source="ds_0",state="open"}`,
		`shardgen_proxy_pool_max_open{data_source="ds_1"} 8`,
	} {
		require.True(t, strings.Contains(body, want), "no %q in\n%s", want, body)
	}
}

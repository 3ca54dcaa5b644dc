package proxy

import (
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkProxySessionSettings is a prepared point select through the
// proxy from 8 goroutines over 6 client sessions, side by side for
// sessions with the pools' settings (a utf8mb4_general_ci handshake) and
// sessions with a latin1 handshake (as sysbench's and the mariadb CLI's,
// which ask for their own character set): the two should cost the same.
// Fewer sessions than the data sources' maxPoolSize (8), so that the
// benchmark also runs where such sessions take connections of their own
// (runtime.Reserved; before settings pools, 8 latin1 sessions held every
// connection of the pools and a statement that needed one waited forever).
func BenchmarkProxySessionSettings(b *testing.B) {
	e := newPxEnv(b)
	seed := e.client(b, "root", "secret", nil)
	for id := 1; id <= 100; id++ {
		_, err := seed.Exec("INSERT INTO px_item (id, name) VALUES (?, 'bench')", id)
		require.NoError(b, err)
	}
	for _, c := range []struct {
		name   string
		params map[string]string
	}{{"default", nil}, {"latin1", map[string]string{"collation": "latin1_swedish_ci"}}} {
		b.Run(c.name, func(b *testing.B) {
			db := e.client(b, "root", "secret", c.params)
			db.SetMaxOpenConns(6)
			db.SetMaxIdleConns(6)
			st, err := db.Prepare("SELECT name FROM px_item WHERE id = ?")
			require.NoError(b, err)
			defer st.Close()
			b.SetParallelism(4) // 8 goroutines on 2 cores
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var name sql.NullString
				id := 0
				for pb.Next() {
					id = id%100 + 1
					if err := st.QueryRow(id).Scan(&name); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

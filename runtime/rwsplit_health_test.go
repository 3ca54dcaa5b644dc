package runtime

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReplicaMarkDownConcurrent: goroutines that see the same replica
// failure at once take it out once, for ReplicaDownFor; they must not double
// the time out among themselves (a flaky TestReadWriteFailover showed 10 s).
func TestReplicaMarkDownConcurrent(t *testing.T) {
	now := time.Now()
	for range 200 {
		var h replicaHealth
		var start, done sync.WaitGroup
		start.Add(1)
		for range 8 {
			done.Add(1)
			go func() {
				defer done.Done()
				start.Wait()
				h.markDown(now)
			}()
		}
		start.Done()
		done.Wait()
		require.Equal(t, now.Add(ReplicaDownFor).UnixNano(), h.downUntil.Load())
		require.Equal(t, int64(ReplicaDownFor), h.downFor.Load())
	}
}

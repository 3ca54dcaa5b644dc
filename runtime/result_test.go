package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResult(t *testing.T) {
	tests := []struct {
		name     string
		id, rows int64
	}{
		{"generated snowflake key", 1185925917368926208, 1},
		{"multi-unit write", 0, 7},
		{"nothing", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewResult(tt.id, tt.rows)
			id, err := r.LastInsertId()
			require.NoError(t, err)
			require.Equal(t, tt.id, id)
			n, err := r.RowsAffected()
			require.NoError(t, err)
			require.Equal(t, tt.rows, n)
		})
	}
}

package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestInsertSplit(t *testing.T) {
	s := &InsertSplit{
		Heads: []string{"INSERT INTO t_0 (id, v) VALUES ", "INSERT INTO t_1 (id, v) VALUES "},
		Rows:  []string{"(?, ?)", "(?, ?)", "(3, 'x')"},
		Sep:   ", ",
		Tails: []string{" ON DUPLICATE KEY UPDATE v = ?", " ON DUPLICATE KEY UPDATE v = ?"},
	}
	all := []RouteUnit{{DataSource: 0}, {DataSource: 1}}
	units, err := s.Units(all, []int{1, 0, 1}, [][]any{{1, "a"}, {2, "b"}, {}}, []any{"z"})
	require.NoError(t, err)
	require.Equal(t, []RouteUnit{
		{DataSource: 1, SQL: "INSERT INTO t_1 (id, v) VALUES (?, ?), (3, 'x') ON DUPLICATE KEY UPDATE v = ?", Args: []any{1, "a", "z"}},
		{DataSource: 0, SQL: "INSERT INTO t_0 (id, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = ?", Args: []any{2, "b", "z"}},
	}, units)

	_, err = s.Units(all, []int{0, 5, 1}, [][]any{{}, {}, {}}, nil)
	require.EqualError(t, err, "insert split: row 2 routed to data node 5 of 2")
	_, err = s.Units(all, []int{0}, [][]any{{}}, nil)
	require.EqualError(t, err, "insert split: 3 rows, 1 nodes, 1 argument lists")
}

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

// TestInsertSplitBatches groups a bulk INSERT's rows per data node into
// statements bounded by rows, bytes and placeholders.
func TestInsertSplitBatches(t *testing.T) {
	s := &InsertSplit{Heads: []string{"INSERT INTO t_0 (a, b) VALUES ", "INSERT INTO t_1 (a, b) VALUES "}, Rows: []string{"(?, ?)"}, Sep: ", ", Tails: []string{"", ""}}
	all := []RouteUnit{{DataSource: 0}, {DataSource: 1}}
	rowArgs := [][]any{{1, "a"}, {2, "b"}, {3, "c"}, {4, "dd"}, {5, "e"}}
	units, err := s.batches(all, []int{1, 0, 1, 1, 1}, rowArgs, 2, 1<<20)
	require.NoError(t, err)
	require.Equal(t, []RouteUnit{
		{DataSource: 0, SQL: "INSERT INTO t_0 (a, b) VALUES (?, ?)", Args: []any{2, "b"}},
		{DataSource: 1, SQL: "INSERT INTO t_1 (a, b) VALUES (?, ?), (?, ?)", Args: []any{1, "a", 3, "c"}},
		{DataSource: 1, SQL: "INSERT INTO t_1 (a, b) VALUES (?, ?), (?, ?)", Args: []any{4, "dd", 5, "e"}},
	}, units)

	// A nil rowNode: every row on every data node (a broadcast table's copies).
	units, err = s.batches(all, nil, rowArgs[:3], 2, 1<<20)
	require.NoError(t, err)
	require.Equal(t, []RouteUnit{
		{DataSource: 0, SQL: "INSERT INTO t_0 (a, b) VALUES (?, ?), (?, ?)", Args: []any{1, "a", 2, "b"}},
		{DataSource: 0, SQL: "INSERT INTO t_0 (a, b) VALUES (?, ?)", Args: []any{3, "c"}},
		{DataSource: 1, SQL: "INSERT INTO t_1 (a, b) VALUES (?, ?), (?, ?)", Args: []any{1, "a", 2, "b"}},
		{DataSource: 1, SQL: "INSERT INTO t_1 (a, b) VALUES (?, ?)", Args: []any{3, "c"}},
	}, units)

	// The byte bound: a row over it still goes, alone.
	units, err = s.batches(all, []int{0, 0, 0}, [][]any{{1, "xxxxxxxxxxxxxxxxxxxx"}, {2, "y"}, {3, "z"}}, 100, 80)
	require.NoError(t, err)
	require.Len(t, units, 2)
	require.Equal(t, []any{1, "xxxxxxxxxxxxxxxxxxxx"}, units[0].Args)
	require.Equal(t, []any{2, "y", 3, "z"}, units[1].Args)

	// The placeholder bound: 65,535 / 2 rows at most.
	many := make([][]any, 40000)
	for i := range many {
		many[i] = []any{i, "v"}
	}
	units, err = s.batches(all, make([]int, len(many)), many, 1<<30, 1<<30)
	require.NoError(t, err)
	require.Len(t, units, 2)
	require.Len(t, units[0].Args, 2*32767)

	_, err = s.Batches(all, []int{2}, [][]any{{1, "a"}})
	require.EqualError(t, err, "bulk insert: row 1 routed to data node 2 of 2")
	units, err = s.Batches(all, nil, nil)
	require.NoError(t, err)
	require.Empty(t, units)
}

package schema

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseQueries(t *testing.T) {
	src := `-- a file comment
-- name: GetOrder :one
-- GetOrder returns one order.
-- shardgen:allow-full-route
SELECT *
FROM t_order WHERE order_id = ?;
-- a comment between two queries

/* name: ListOrders :many */
SELECT * FROM t_order; -- trailing
-- name: Touch :execrows
UPDATE t_order SET note = 'a;b' WHERE order_id = sqlc.arg(id)
`
	qs, err := ParseQueries("q.sql", []byte(src))
	require.NoError(t, err)
	require.Len(t, qs, 3)
	require.Equal(t, &Query{Name: "GetOrder", Cmd: CmdOne, SQL: "SELECT *\nFROM t_order WHERE order_id = ?",
		Doc: []string{"GetOrder returns one order."}, AllowFullRoute: true,
		Pos: Pos{File: "q.sql", Line: 2, Col: 1}, SQLPos: Pos{File: "q.sql", Line: 5, Col: 1}}, qs[0])
	require.Equal(t, "ListOrders", qs[1].Name)
	require.Equal(t, CmdMany, qs[1].Cmd)
	require.Equal(t, "UPDATE t_order SET note = 'a;b' WHERE order_id = sqlc.arg(id)", qs[2].SQL)
}

func TestParseQueriesBOM(t *testing.T) {
	qs, err := ParseQueries("q.sql", []byte("\ufeff-- name: A :one\r\nSELECT 1;\r\n"))
	require.NoError(t, err)
	require.Equal(t, "SELECT 1", qs[0].SQL)
}

func TestParseQueriesErrors(t *testing.T) {
	tests := []struct{ src, err string }{
		{"SELECT 1;\n-- name: A :one\nSELECT 1", `q.sql:1:1: statement before the first "-- name: <Name> <:cmd>" line`},
		{"-- name: A :many\nSELECT 1;\n-- name: A :one\nSELECT 2", `q.sql:3:1: duplicate query name "A" (first defined at q.sql:1:1)`},
		{"-- name: A :first\nSELECT 1", `q.sql:1:1: query "A": unknown command ":first" (known: :one, :many, :exec, :execrows, :execresult, :copyfrom)`},
		{"-- name: A\nSELECT 1", `q.sql:1:1: a name line must read "-- name: <Name> <:cmd>"`},
		{"-- name: 1A :one\nSELECT 1", `q.sql:1:1: query name "1A" is not a Go identifier`},
		{"-- name: A :one\n", `q.sql:1:1: query "A" has no statement`},
		{"-- name: A :one\nSELECT 1; SELECT 2", `q.sql:2:1: query "A" holds more than one statement; give each its own -- name: line`},
		{"-- name: A :one\n-- shardgen:allow-everything\nSELECT 1", `q.sql:2:1: unknown annotation "shardgen:allow-everything" (known: shardgen:allow-full-route, shardgen:primary)`},
	}
	for _, tt := range tests {
		_, err := ParseQueries("q.sql", []byte(tt.src))
		require.EqualError(t, err, tt.err, tt.src)
	}
}

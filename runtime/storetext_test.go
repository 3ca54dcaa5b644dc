package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// TestTextColumnCheck: a value a column's character set cannot hold
// fails with the reference's strict-mode error 1366, the same message
// (the generated code's check before encrypting, with no data node to
// ask: it stores cipher text); a value it holds passes.
func TestTextColumnCheck(t *testing.T) {
	ref := testdb.Open(t, testdb.Reference)
	ctx := context.Background()
	_, err := ref.ExecContext(ctx, "DROP TABLE IF EXISTS st_cust")
	require.NoError(t, err)
	_, err = ref.ExecContext(ctx, "CREATE TABLE st_cust (id BIGINT NOT NULL PRIMARY KEY, email VARCHAR(64) NULL, note VARCHAR(64) CHARACTER SET utf8mb3 NULL) DEFAULT CHARSET=latin1")
	require.NoError(t, err)
	for _, tt := range []struct {
		col, charset string
		v            any
	}{
		{"email", "latin1", "😀@x.fr"},
		{"email", "latin1", "жук@x.ru"},
		{"email", "latin1", []byte("a€é жук")},
		{"email", "latin1", "ab😀"},
		{"email", "latin1", "é€Ÿ ok"},
		{"note", "utf8mb3", "жук 😀 x"},
		{"note", "utf8mb3", "жук"},
	} {
		c := TextColumn{Table: "st_cust", Column: tt.col, Charset: tt.charset, Row: 1}
		got := c.Check(tt.v)
		_, rerr := ref.ExecContext(ctx, "INSERT INTO st_cust (id, "+tt.col+") VALUES (1, ?)", tt.v)
		if rerr == nil {
			require.NoError(t, got, "%v", tt.v)
			_, err = ref.ExecContext(ctx, "DELETE FROM st_cust")
			require.NoError(t, err)
			continue
		}
		var me *gomysql.MySQLError
		require.True(t, errors.As(rerr, &me), "%v", rerr)
		require.Equal(t, uint16(1366), me.Number, me.Message)
		var ise *IncorrectStringError
		require.True(t, errors.As(got, &ise), "%v: %v", tt.v, got)
		ise.Schema = testdb.Reference
		require.Equal(t, me.Message, ise.Error())
		require.True(t, strings.HasPrefix(me.Message, "Incorrect string value"))
	}
	require.NoError(t, TextColumn{Charset: "latin1"}.Check(nil))
	require.NoError(t, TextColumn{Charset: "latin1"}.Check(int64(5)))
}

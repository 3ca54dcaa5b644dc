package runtime

import (
	"database/sql"
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func TestWrapQuery(t *testing.T) {
	const at = "GetOrder (queries/orders.sql:11)"
	if err := WrapQuery(at, nil); err != nil {
		t.Fatalf("WrapQuery(nil) = %v", err)
	}
	if err := WrapQuery(at, sql.ErrNoRows); err != sql.ErrNoRows {
		t.Fatalf("WrapQuery(sql.ErrNoRows) = %#v, want sql.ErrNoRows itself", err)
	}
	cause := &mysql.MySQLError{Number: 1146, Message: "Table 'ds_1.t_order_3' doesn't exist"}
	err := WrapQuery(at, &NodeError{DataSource: "ds_1", SQL: "SELECT 1", Err: cause})
	want := "GetOrder (queries/orders.sql:11): data node ds_1: Error 1146: Table 'ds_1.t_order_3' doesn't exist"
	if err.Error() != want {
		t.Fatalf("error text\n got %q\nwant %q", err.Error(), want)
	}
	var me *mysql.MySQLError
	var ne *NodeError
	if !errors.As(err, &me) || me != cause || !errors.As(err, &ne) || ne.DataSource != "ds_1" {
		t.Fatalf("errors.As does not see the cause through %v", err)
	}
	if again := WrapQuery(at, err); again != err {
		t.Fatalf("wrapping twice gave %q", again)
	}
	if !errors.Is(WrapQuery(at, ErrCrossNodeRows), ErrCrossNodeRows) {
		t.Fatal("errors.Is does not see a sentinel")
	}
	if n := testing.AllocsPerRun(100, func() { _ = WrapQuery(at, nil) }); n != 0 {
		t.Fatalf("WrapQuery(nil) allocates %v times", n)
	}
}

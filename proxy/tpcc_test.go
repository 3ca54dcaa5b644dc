package proxy

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// The statements of go-tpc v1.0.7 (github.com/pingcap/go-tpc, tpcc/*.go)
// as it sends them: the test data TestTPCC runs through the proxy. The
// transactions' statements are prepared (go-sql-driver without
// interpolateParams) and run inside BEGIN … COMMIT; the checks are
// prepared too.
const (
	tpccNewOrderCustomer = `SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?`
	tpccNewOrderDistrict = `SELECT d_next_o_id, d_tax FROM district WHERE d_id = ? AND d_w_id = ? FOR UPDATE`
	tpccNewOrderUpdDist  = `UPDATE district SET d_next_o_id = ? + 1 WHERE d_id = ? AND d_w_id = ?`
	tpccNewOrderInsOrder = `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, ?, ?)`
	tpccNewOrderInsNew   = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)`
	tpccNewOrderItems    = `SELECT i_price, i_name, i_data, i_id FROM item WHERE i_id IN (?,?,?)`
	tpccNewOrderStock    = `SELECT s_i_id, s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE (s_w_id, s_i_id) IN ((?,?),(?,?),(?,?)) FOR UPDATE`
	tpccNewOrderUpdStock = `UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?`
	tpccNewOrderInsLines = `INSERT into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES (?,?,?,?,?,?,?,?,?),(?,?,?,?,?,?,?,?,?),(?,?,?,?,?,?,?,?,?)`

	tpccPayUpdDistrict = `UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?`
	tpccPayDistrict    = `SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = ? AND d_id = ?`
	tpccPayUpdWare     = `UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?`
	tpccPayWare        = `SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = ?`
	tpccPayByLast      = `SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first`
	tpccPayCustomer    = "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,\nc_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = ? AND c_d_id = ? \nAND c_id = ? FOR UPDATE"
	tpccPayUpdCust     = "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, \nc_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	tpccPayCustData    = `SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`
	tpccPayUpdCustData = "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, \nc_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	tpccPayInsHistory  = "INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data)\nVALUES (?, ?, ?, ?, ?, ?, ?, ?)"

	tpccStatusCount  = `SELECT count(c_id) namecnt FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?`
	tpccStatusByLast = `SELECT c_balance, c_first, c_middle, c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first`
	tpccStatusByID   = `SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`
	tpccStatusLatest = `SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1`
	tpccStatusLines  = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?`

	tpccDelivNewOrder = "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id ASC LIMIT 1 FOR UPDATE"
	tpccDelivDelete   = "DELETE FROM new_order WHERE (no_w_id, no_d_id, no_o_id) IN (\n\t(?,?,?),(?,?,?),(?,?,?)\n)"
	tpccDelivUpdOrder = "UPDATE orders SET o_carrier_id = ? WHERE (o_w_id, o_d_id, o_id) IN (\n\t(?,?,?),(?,?,?),(?,?,?)\n)"
	tpccDelivOrders   = "SELECT o_d_id, o_c_id FROM orders WHERE (o_w_id, o_d_id, o_id) IN (\n\t(?,?,?),(?,?,?),(?,?,?)\n)"
	tpccDelivUpdLines = "UPDATE order_line SET ol_delivery_d = ? WHERE (ol_w_id, ol_d_id, ol_o_id) IN (\n\t(?,?,?),(?,?,?),(?,?,?)\n)"
	tpccDelivSum      = "SELECT ol_d_id, SUM(ol_amount) FROM order_line WHERE (ol_w_id, ol_d_id, ol_o_id) IN (\n\t(?,?,?),(?,?,?),(?,?,?)\n) GROUP BY ol_d_id"
	tpccDelivUpdCust  = `UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`

	tpccStockDistrict = `SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?`
	tpccStockCount    = "SELECT /*+ TIDB_INLJ(order_line,stock) */ COUNT(DISTINCT (s_i_id)) stock_count FROM order_line, stock \nWHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? - 20 AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?"
)

// tpccChecks are go-tpc's consistency checks (tpcc/check.go, 3.3.2.1 to
// 3.3.2.12), each with the number of times it takes the warehouse.
var tpccChecks = []struct {
	name string
	sql  string
	args int
}{
	{"3.3.2.1", "SELECT sum(d_ytd) - max(w_ytd) diff FROM district, warehouse WHERE d_w_id = w_id AND w_id = ? group by d_w_id", 1},
	{"3.3.2.2", "SELECT POWER((d_next_o_id -1 - mo), 2) + POWER((d_next_o_id -1 - mno), 2) diff FROM district dis, (SELECT o_d_id,max(o_id) mo FROM orders WHERE o_w_id= ? GROUP BY o_d_id) q, (select no_d_id,max(no_o_id) mno from new_order where no_w_id= ? group by no_d_id) no where d_w_id = ? and q.o_d_id=dis.d_id and no.no_d_id=dis.d_id", 3},
	{"3.3.2.3", "SELECT max(no_o_id)-min(no_o_id)+1 - count(*) diff from new_order where no_w_id = ? group by no_d_id", 1},
	{"3.3.2.4", "SELECT count(*) FROM (SELECT o_d_id, SUM(o_ol_cnt) sm1, MAX(cn) as cn FROM orders,(SELECT ol_d_id, COUNT(*) cn FROM order_line WHERE ol_w_id = ? GROUP BY ol_d_id) ol WHERE o_w_id = ? AND ol_d_id=o_d_id GROUP BY o_d_id) t1 WHERE sm1<>cn", 2},
	{"3.3.2.5", "SELECT count(*)  FROM orders LEFT JOIN new_order ON (no_w_id=o_w_id AND o_d_id=no_d_id AND o_id=no_o_id) where o_w_id = ? and ((o_carrier_id IS NULL and no_o_id IS  NULL) OR (o_carrier_id IS NOT NULL and no_o_id IS NOT NULL  )) ", 1},
	{"3.3.2.6", `
SELECT COUNT(*) FROM
(SELECT o_ol_cnt, order_line_count FROM orders
	LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) order_line_count FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id ORDER by ol_w_id, ol_d_id, ol_o_id) AS order_line
	ON orders.o_w_id = order_line.ol_w_id AND orders.o_d_id = order_line.ol_d_id AND orders.o_id = order_line.ol_o_id
	WHERE orders.o_w_id = ?) AS T
WHERE T.o_ol_cnt != T.order_line_count`, 1},
	{"3.3.2.7", "SELECT count(*) FROM orders, order_line WHERE o_id=ol_o_id AND o_d_id=ol_d_id AND ol_w_id=o_w_id AND o_w_id = ? AND ((ol_delivery_d IS NULL and o_carrier_id IS NOT NULL) or (o_carrier_id IS NULL and ol_delivery_d IS NOT NULL ))", 1},
	{"3.3.2.8", "SELECT count(*) cn FROM (SELECT w_id,w_ytd,SUM(h_amount) sm FROM history,warehouse WHERE h_w_id=w_id and w_id = ? GROUP BY w_id) t1 WHERE w_ytd<>sm", 1},
	{"3.3.2.9", "SELECT COUNT(*) FROM (select d_id,d_w_id,sum(d_ytd) s1 from district group by d_id,d_w_id) d,(select h_d_id,h_w_id,sum(h_amount) s2 from history WHERE  h_w_id = ? group by h_d_id, h_w_id) h WHERE h_d_id=d_id AND d_w_id=h_w_id and d_w_id= ? and s1<>s2", 2},
	{"3.3.2.10", `SELECT count(*) 
	FROM (  SELECT  c.c_id, c.c_d_id, c.c_w_id, c.c_balance c1, 
				   (SELECT sum(ol_amount) FROM orders STRAIGHT_JOIN order_line 
					 WHERE OL_W_ID=O_W_ID 
					   AND OL_D_ID = O_D_ID 
					   AND OL_O_ID = O_ID 
					   AND OL_DELIVERY_D IS NOT NULL 
					   AND O_W_ID=? 
					   AND O_D_ID=c.C_D_ID 
					   AND O_C_ID=c.C_ID) sm, (SELECT  sum(h_amount)  from  history 
												WHERE H_C_W_ID=? 
												  AND H_C_D_ID=c.C_D_ID 
												  AND H_C_ID=c.C_ID) smh 
			 FROM customer c 
			WHERE  c.c_w_id = ? ) t
   WHERE c1<>sm-smh`, 3},
	{"3.3.2.11", `
SELECT count(*) FROM
	(SELECT * FROM
		(SELECT o_w_id, o_d_id, count(*) order_count FROM orders GROUP BY o_w_id, o_d_id) orders
        JOIN (SELECT no_w_id, no_d_id, count(*) new_order_count FROM new_order GROUP BY no_w_id, no_d_id) new_order
        ON orders.o_w_id = new_order.no_w_id AND orders.o_d_id = new_order.no_d_id
	) order_new_order
JOIN (SELECT c_w_id, c_d_id, count(*) customer_count FROM customer GROUP BY c_w_id, c_d_id) customer
ON order_new_order.no_w_id = customer.c_w_id AND order_new_order.no_d_id = customer.c_d_id
WHERE c_w_id = ? AND order_count - 2100 != new_order_count`, 1},
	{"3.3.2.12", `SELECT count(*) FROM (SELECT  c.c_id, c.c_d_id, c.c_balance c1, c_ytd_payment, 
		(SELECT sum(ol_amount) FROM orders STRAIGHT_JOIN order_line 
		WHERE OL_W_ID=O_W_ID AND OL_D_ID = O_D_ID AND OL_O_ID = O_ID AND OL_DELIVERY_D IS NOT NULL AND 
		O_W_ID=? AND O_D_ID=c.C_D_ID AND O_C_ID=c.C_ID) sm FROM customer c WHERE  c.c_w_id = ?) t1 
		WHERE c1+c_ytd_payment <> sm`, 2},
}

// tpccTables are go-tpc's tables with the columns that order their rows.
var tpccTables = map[string]string{
	"warehouse":  "w_id",
	"district":   "d_w_id, d_id",
	"customer":   "c_w_id, c_d_id, c_id",
	"history":    "h_w_id, h_c_w_id, h_c_d_id, h_c_id, h_date, h_amount",
	"new_order":  "no_w_id, no_d_id, no_o_id",
	"orders":     "o_w_id, o_d_id, o_id",
	"order_line": "ol_w_id, ol_d_id, ol_o_id, ol_number",
	"stock":      "s_w_id, s_i_id",
	"item":       "i_id",
}

// tpccConfig is examples/tpcc/proxy.yaml over the test's ds_0 and ds_1.
func tpccConfig(t *testing.T) string {
	t.Helper()
	y, err := os.ReadFile("../examples/tpcc/proxy.yaml")
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("dataSources:\n")
	for _, ds := range testdb.DataSources()[:2] {
		c := testdb.Config(ds)
		fmt.Fprintf(&b, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n    maxPoolSize: 8\n", ds, c.Addr, ds, c.User, c.Passwd)
	}
	b.WriteString("\nrules:")
	out := regexp.MustCompile(`(?s)\ndataSources:\n.*?\nrules:`).ReplaceAllLiteralString(string(y), "\n"+b.String())
	require.NotEqual(t, string(y), out)
	return out
}

// tpccSeed fills a tiny TPC-C database (2 warehouses of 2 districts of 4
// customers, 6 items) with go-tpc's loader's statement shapes: multi-row
// INSERTs with literal values. Warehouse 1's customer 2 of district 1 also
// paid at warehouse 2 (a history row on the other data node).
func tpccSeed() []string {
	var items, stock, ware, dist, cust, hist, orders, newOrders, lines []string
	for i := 1; i <= 6; i++ {
		items = append(items, fmt.Sprintf("(%d, %d, 'item%d', %f, 'data%d')", i, i*7, i, float64(i)*1.25, i))
	}
	for w := 1; w <= 2; w++ {
		ware = append(ware, fmt.Sprintf("(%d, 'w%d', 's1', 's2', 'city', 'ST', '12345', %f, %f)", w, w, 0.1*float64(w), 80.0))
		for i := 1; i <= 6; i++ {
			stock = append(stock, fmt.Sprintf("(%d, %d, %d, 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9', 'd10', 0, 0, 0, 'sdata%d')", i, w, 10+(i*3+w)%15, i))
		}
		for d := 1; d <= 2; d++ {
			dist = append(dist, fmt.Sprintf("(%d, %d, 'd%d', 's1', 's2', 'city', 'ST', '12345', %f, %f, 5)", d, w, d, 0.05, 40.0))
			for c := 1; c <= 4; c++ {
				last := []string{"BARBAR", "OUGHTABLE", "BARBAR", "ABLEPRI"}[c-1]
				cust = append(cust, fmt.Sprintf("(%d, %d, %d, 'first%d', 'OE', '%s', 's1', 's2', 'city', 'ST', '12345', '555', '2024-01-02 03:04:05', 'GC', 50000.00, 0.1, -10.00, 10.00, 1, 0, 'cdata')", c, d, w, 5-c, last))
				hist = append(hist, fmt.Sprintf("(%d, %d, %d, %d, %d, '2024-01-02 03:04:05', 10.000000, 'hdata')", c, d, w, d, w))
			}
			for o := 1; o <= 4; o++ {
				carrier := "NULL"
				if o <= 2 {
					carrier = fmt.Sprint(o)
				} else {
					newOrders = append(newOrders, fmt.Sprintf("(%d, %d, %d)", o, d, w))
				}
				orders = append(orders, fmt.Sprintf("(%d, %d, %d, %d, '2024-01-02 03:04:05', %s, 3, 1)", o, d, w, o, carrier))
				for n := 1; n <= 3; n++ {
					// Delivered lines were paid for: 0.00 (as go-tpc loads them).
					delivered, amount := "NULL", fmt.Sprintf("%d.%02d", n, o*11)
					if o <= 2 {
						delivered, amount = "'2024-01-03 00:00:00'", "0.00"
					}
					lines = append(lines, fmt.Sprintf("(%d, %d, %d, %d, %d, %d, %s, 5, %s, 'dist')", o, d, w, n, (o+n)%6+1, w, delivered, amount))
				}
			}
		}
	}
	return []string{
		"INSERT INTO item (i_id, i_im_id, i_name, i_price, i_data) VALUES " + strings.Join(items, ","),
		"INSERT INTO warehouse (w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd) VALUES " + strings.Join(ware, ","),
		"INSERT INTO stock (s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, \ns_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data) VALUES " + strings.Join(stock, ","),
		"INSERT INTO district (d_id, d_w_id, d_name, d_street_1, d_street_2, \nd_city, d_state, d_zip, d_tax, d_ytd, d_next_o_id) VALUES " + strings.Join(dist, ","),
		"INSERT INTO customer (c_id, c_d_id, c_w_id, c_first, c_middle, c_last, \nc_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, \nc_discount, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data) VALUES " + strings.Join(cust, ","),
		"INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES " + strings.Join(hist, ","),
		"INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, \no_carrier_id, o_ol_cnt, o_all_local) VALUES " + strings.Join(orders, ","),
		"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES " + strings.Join(newOrders, ","),
		"INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, \nol_quantity, ol_amount, ol_dist_info) VALUES " + strings.Join(lines, ","),
	}
}

// tpccStmt is one statement of a transaction and its arguments.
type tpccStmt struct {
	sql  string
	args []any
}

// tpccTransactions are go-tpc's five transactions with arguments for the
// tiny database: a new order in each warehouse (one with a remote supply
// warehouse), payments (one by a customer of the other warehouse, so the
// transaction writes both data nodes), order status by last name and by
// id, a delivery and a stock level per warehouse.
func tpccTransactions() [][]tpccStmt {
	now := "2024-02-03 04:05:06"
	newOrder := func(w, d, c, o, remote int) []tpccStmt {
		return []tpccStmt{
			{tpccNewOrderCustomer, []any{w, d, c}},
			{tpccNewOrderDistrict, []any{d, w}},
			{tpccNewOrderUpdDist, []any{o, d, w}},
			{tpccNewOrderInsOrder, []any{o, d, w, c, now, 3, 1 - min(remote, 1)}},
			{tpccNewOrderInsNew, []any{o, d, w}},
			{tpccNewOrderItems, []any{1, 3, 5}},
			{tpccNewOrderStock, []any{w, 1, w, 3, w, 5}},
			{tpccNewOrderUpdStock, []any{12, 4, 0, 1, w}},
			{tpccNewOrderUpdStock, []any{20, 2, remote, 3, w}},
			{tpccNewOrderUpdStock, []any{7, 1, 0, 5, w}},
			{tpccNewOrderInsLines, []any{
				o, d, w, 1, 1, w, 4, "5.00", "dist_info_1",
				o, d, w, 2, 3, w + remote, 2, "7.50", "dist_info_2",
				o, d, w, 3, 5, w, 1, "6.25", "dist_info_3"}},
		}
	}
	payment := func(w, d, cw, cd, c int, amount string, byLast, badCredit bool) []tpccStmt {
		tx := []tpccStmt{
			{tpccPayUpdDistrict, []any{amount, w, d}},
			{tpccPayDistrict, []any{w, d}},
			{tpccPayUpdWare, []any{amount, w}},
			{tpccPayWare, []any{w}},
		}
		if byLast {
			tx = append(tx, tpccStmt{tpccPayByLast, []any{cw, cd, "BARBAR"}})
		}
		tx = append(tx, tpccStmt{tpccPayCustomer, []any{cw, cd, c}})
		if badCredit {
			tx = append(tx,
				tpccStmt{tpccPayCustData, []any{cw, cd, c}},
				tpccStmt{tpccPayUpdCustData, []any{amount, amount, "new data", cw, cd, c}})
		} else {
			tx = append(tx, tpccStmt{tpccPayUpdCust, []any{amount, amount, cw, cd, c}})
		}
		return append(tx, tpccStmt{tpccPayInsHistory, []any{cd, cw, c, d, w, now, amount, "w1    d1"}})
	}
	delivery := func(w int) []tpccStmt {
		in := func(lead ...any) []any { return append(lead, w, 1, 3, w, 2, 3, w, 2, 4) }
		return []tpccStmt{
			{tpccDelivNewOrder, []any{w, 1}},
			{tpccDelivNewOrder, []any{w, 2}},
			{tpccDelivDelete, in()},
			{tpccDelivUpdOrder, in(7)},
			{tpccDelivOrders, in()},
			{tpccDelivUpdLines, in(now)},
			{tpccDelivSum, in()},
			// Each delivered order's customer gets its lines' amounts.
			{tpccDelivUpdCust, []any{"6.99", w, 1, 3}},
			{tpccDelivUpdCust, []any{"6.99", w, 2, 3}},
			{tpccDelivUpdCust, []any{"7.32", w, 2, 4}},
		}
	}
	return [][]tpccStmt{
		newOrder(1, 1, 2, 5, 0),
		newOrder(2, 2, 4, 5, 1),
		payment(1, 1, 1, 1, 2, "42.50", false, false),
		payment(2, 1, 1, 1, 2, "7.25", true, true), // a customer of warehouse 1 pays at warehouse 2
		{
			{tpccStatusCount, []any{1, 1, "BARBAR"}},
			{tpccStatusByLast, []any{1, 1, "BARBAR"}},
			{tpccStatusByID, []any{2, 2, 4}},
			{tpccStatusLatest, []any{1, 1, 2}},
			{tpccStatusLines, []any{1, 1, 5}},
		},
		delivery(1),
		delivery(2),
		{{tpccStockDistrict, []any{1, 1}}, {tpccStockCount, []any{1, 1, 6, 6, 1, 25}}},
		{{tpccStockDistrict, []any{2, 2}}, {tpccStockCount, []any{2, 2, 6, 6, 2, 25}}},
	}
}

// TestTPCC runs go-tpc's statements through the proxy with
// examples/tpcc/proxy.yaml (every table sharded by warehouse over two data
// sources, one binding group, item broadcast) against a tiny database, and
// the same on the unsharded reference database: the tables created and
// loaded as go-tpc's prepare does, its five transactions with prepared
// statements in BEGIN … COMMIT (each statement's rows or affected rows
// compared), every table's rows afterwards, and its consistency checks
// for both warehouses (their rows compared, and 0 everywhere as go-tpc
// requires, except 3.3.2.11, which holds only for a full prepare).
func TestTPCC(t *testing.T) {
	cfg, err := ParseConfig("tpcc.yaml", []byte(tpccConfig(t)))
	require.NoError(t, err)
	ds := []*sql.DB{testdb.Open(t, "ds_0"), testdb.Open(t, "ds_1")}
	ref := testdb.Open(t, "reference")
	drop := func() {
		for _, db := range append(ds, ref) {
			for tb := range tpccTables {
				_, err := db.Exec("DROP TABLE IF EXISTS " + tb)
				require.NoError(t, err)
			}
		}
	}
	drop()
	t.Cleanup(drop)
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	c := gomysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr, c.DBName = "root", "tpcc", "tcp", srv.Addr(), "tpcc"
	px, err := sql.Open("mysql", c.FormatDSN())
	require.NoError(t, err)
	t.Cleanup(func() { px.Close() })

	ddl, err := os.ReadFile("../examples/tpcc/schema.sql")
	require.NoError(t, err)
	for _, stmt := range strings.Split(string(ddl), ";") {
		if i := strings.Index(stmt, "CREATE TABLE"); i >= 0 {
			stmt = stmt[i:]
			execAll(t, px, stmt)
			execAll(t, ref, stmt)
		}
	}
	seed := tpccSeed()
	execAll(t, px, seed...)
	execAll(t, ref, seed...)

	ctx := context.Background()
	for _, stmts := range tpccTransactions() {
		ptx, err := px.BeginTx(ctx, nil)
		require.NoError(t, err)
		rtx, err := ref.BeginTx(ctx, nil)
		require.NoError(t, err)
		for _, s := range stmts {
			if strings.HasPrefix(strings.ToUpper(s.sql), "SELECT") {
				want, got := tpccRows(t, rtx, s.sql, s.args), tpccRows(t, ptx, s.sql, s.args)
				require.Equal(t, want, got, s.sql)
				continue
			}
			rres, err := rtx.Exec(s.sql, s.args...)
			require.NoError(t, err, s.sql)
			pres, err := ptx.Exec(s.sql, s.args...)
			require.NoError(t, err, s.sql)
			rn, _ := rres.RowsAffected()
			pn, _ := pres.RowsAffected()
			require.Equal(t, rn, pn, s.sql)
		}
		require.NoError(t, rtx.Commit())
		require.NoError(t, ptx.Commit())
	}
	for tb, order := range tpccTables {
		q := "SELECT * FROM " + tb + " ORDER BY " + order
		require.Equal(t, rowsOf(t, ref, q), rowsOf(t, px, q), q)
	}
	for w := 1; w <= 2; w++ {
		for _, ch := range tpccChecks {
			args := make([]any, ch.args)
			for i := range args {
				args[i] = w
			}
			want, got := tpccRows(t, ref, ch.sql, args), tpccRows(t, px, ch.sql, args)
			require.Equal(t, want, got, "check %s, warehouse %d", ch.name, w)
			if ch.name == "3.3.2.11" {
				continue
			}
			for _, r := range got {
				require.Regexp(t, `^[a-z0-9]+:0(\.0+)?$`, r, "check %s, warehouse %d", ch.name, w)
			}
		}
	}
}

// tpccRows is rowsOf as a prepared statement with args, sorted unless q
// has an ORDER BY.
func tpccRows(t *testing.T, db querier, q string, args []any) []string {
	t.Helper()
	rows := rowsOf(t, db, q, args...)
	if !strings.Contains(strings.ToUpper(q), "ORDER BY") {
		sort.Strings(rows)
	}
	return rows
}

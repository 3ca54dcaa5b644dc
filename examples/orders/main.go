// Command orders is shardgen's main example: a small shop whose t_order is
// sharded by user_id over two databases (MOD) and by order_id over four tables
// per database (HASH_MOD), with t_order_item bound to it, a broadcast t_dict
// and snowflake order ids. It creates the actual tables on every data node,
// loads a few thousand orders through the generated functions, runs every
// typed query (single-node, multi-node and merged reads, a multi-row INSERT)
// and prints what it did.
//
// Run it with `make demo` (which starts the local MariaDB servers and
// regenerates ./db first), or `go run ./examples/orders` once they are up.
package main

//go:generate go run github.com/shardgen/shardgen/cmd/shardgen generate -f shardgen.yaml

import (
	"context"
	"database/sql"
	_ "embed"
	"flag"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shardgen/shardgen/examples/orders/db"
	shardrt "github.com/shardgen/shardgen/runtime"
)

//go:embed sharding.yaml
var shardingYAML []byte

//go:embed schema.sql
var schemaSQL string

// actualTables lists, per logic table, its actual tables on every data
// source, as sharding.yaml lays them out.
var actualTables = map[string][]string{
	"t_order":      {"t_order_0", "t_order_1", "t_order_2", "t_order_3"},
	"t_order_item": {"t_order_item_0", "t_order_item_1", "t_order_item_2", "t_order_item_3"},
	"t_dict":       {"t_dict"},
}

func main() {
	orders := flag.Int("orders", 3000, "orders to load")
	users := flag.Int("users", 200, "distinct users")
	flag.Parse()
	if err := run(context.Background(), *orders, *users); err != nil {
		log.SetFlags(0)
		log.Fatalf("orders: %v", err)
	}
}

// nodeCounter is an Observer that counts statements per data source.
type nodeCounter struct {
	mu    sync.Mutex
	count map[string]int
}

func (c *nodeCounter) Observe(_ context.Context, ev shardrt.Event) {
	c.mu.Lock()
	c.count[ev.DataSource]++
	c.mu.Unlock()
}

func (c *nodeCounter) take() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for ds, n := range c.count {
		parts = append(parts, fmt.Sprintf("%s×%d", ds, n))
	}
	sort.Strings(parts)
	c.count = map[string]int{}
	return strings.Join(parts, " ")
}

func run(ctx context.Context, nOrders, nUsers int) error {
	cfg, err := shardrt.ParseConfig("sharding.yaml", shardingYAML)
	if err != nil {
		return err
	}
	counter := &nodeCounter{count: map[string]int{}}
	rt, err := shardrt.Open(cfg, shardrt.WithObserver(counter))
	if err != nil {
		return err
	}
	defer rt.Close()
	if err := rt.Ping(ctx); err != nil {
		return fmt.Errorf("%w (start the servers with `make db-up`)", err)
	}
	q, err := db.New(rt)
	if err != nil {
		return err
	}
	step := func(name string, start time.Time, what string) {
		fmt.Printf("%-22s %-46s %-18s %8.2fms\n", name, what, counter.take(), float64(time.Since(start).Microseconds())/1000)
	}

	start := time.Now()
	nTables, err := emptyActualTables(ctx, rt)
	if err != nil {
		return err
	}
	fmt.Printf("emptied %d actual tables (created by shardgen migrate) on %s in %v\n\n", nTables, strings.Join(rt.DataSourceNames(), ", "), time.Since(start).Round(time.Millisecond))

	// Load orders and their items with 8 workers.
	start = time.Now()
	type order struct{ user, id int64 }
	created := make([]order, nOrders)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < nOrders; i += 8 {
				user := int64(1000 + i%nUsers)
				res, err := q.CreateOrder(ctx, db.CreateOrderParams{
					UserID: user, Status: "NEW", Amount: fmt.Sprintf("%d.%02d", 10+i%90, i%100),
					Note: sql.NullString{String: "gift", Valid: i%7 == 0}, CreatedAt: time.Date(2026, 11, 1+i%28, 12, 0, 0, 0, time.UTC),
				})
				if err != nil {
					errs <- err
					return
				}
				id, _ := res.LastInsertId()
				created[i] = order{user, id}
				for k := 0; k < 1+i%3; k++ {
					if err := q.AddItem(ctx, db.AddItemParams{OrderID: id, UserID: user, Sku: fmt.Sprintf("SKU-%03d", (i+k)%500), Quantity: int32(1 + k), Price: "9.90"}); err != nil {
						errs <- err
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	step("CreateOrder+AddItem", start, fmt.Sprintf("%d orders, %d users (snowflake keys)", nOrders, nUsers))

	o := created[42]
	start = time.Now()
	got, err := q.GetOrder(ctx, o.user, o.id)
	if err != nil {
		return err
	}
	step("GetOrder", start, fmt.Sprintf("order %d: %s %s", got.OrderID, got.Status, got.Amount))

	start = time.Now()
	mine, err := q.ListUserOrders(ctx, o.user)
	if err != nil {
		return err
	}
	step("ListUserOrders", start, fmt.Sprintf("user %d: %d orders (4 tables, 1 data source)", o.user, len(mine)))

	ids := []int64{created[42].id, created[42+nUsers].id, created[42+2*nUsers].id}
	start = time.Now()
	some, err := q.GetOrders(ctx, o.user, ids[0], ids[1], ids[2])
	if err != nil {
		return err
	}
	step("GetOrders (IN)", start, fmt.Sprintf("%d of 3 orders", len(some)))

	start = time.Now()
	items, err := q.ListOrderItems(ctx, o.user, o.id)
	if err != nil {
		return err
	}
	step("ListOrderItems (join)", start, fmt.Sprintf("%d items of order %d", len(items), o.id))

	start = time.Now()
	added, err := q.AddItems(ctx, db.AddItemsParams{
		OrderID: o.id, UserID: o.user, Sku: "SKU-900", Quantity: 1, Price: "4.50",
		OrderID_2: o.id, UserID_2: o.user, Sku_2: "SKU-901", Quantity_2: 2, Price_2: "7.25",
	})
	if err != nil {
		return err
	}
	step("AddItems", start, fmt.Sprintf("%d items, one INSERT per data node", added))

	start = time.Now()
	recent, err := q.ListRecentOrders(ctx, o.user, 3)
	if err != nil {
		return err
	}
	var dates []string
	for _, r := range recent {
		dates = append(dates, r.CreatedAt.Format("01-02"))
	}
	step("ListRecentOrders", start, fmt.Sprintf("user %d: %s (merged)", o.user, strings.Join(dates, ", ")))

	start = time.Now()
	n, err := q.UpdateOrderStatus(ctx, "PAID", o.user, o.id)
	if err != nil {
		return err
	}
	step("UpdateOrderStatus", start, fmt.Sprintf("%d row(s) updated", n))

	start = time.Now()
	cnt, err := q.CountOrdersOfUser(ctx, o.user, o.id)
	if err != nil {
		return err
	}
	step("CountOrdersOfUser", start, fmt.Sprintf("%d", cnt))

	start = time.Now()
	big, err := q.ListAllOrdersForAudit(ctx, "99.00")
	if err != nil {
		return err
	}
	step("ListAllOrdersForAudit", start, fmt.Sprintf("%d orders over 99.00 (full route)", len(big)))

	start = time.Now()
	byStatus, err := q.CountOrdersByStatus(ctx)
	if err != nil {
		return err
	}
	var counts []string
	for _, r := range byStatus {
		counts = append(counts, fmt.Sprintf("%s=%d", r.Status, r.Orders))
	}
	step("CountOrdersByStatus", start, strings.Join(counts, " ")+" (groups merged)")

	start = time.Now()
	if _, err := q.PutDict(ctx, "PAID", "Paid"); err != nil {
		return err
	}
	step("PutDict (broadcast)", start, "written to every data source")

	start = time.Now()
	d, err := q.GetDict(ctx, "PAID")
	if err != nil {
		return err
	}
	step("GetDict (broadcast)", start, fmt.Sprintf("%s = %s", d.Code, d.Label))

	start = time.Now()
	if err := q.DeleteOrder(ctx, o.user, o.id); err != nil {
		return err
	}
	_, err = q.GetOrder(ctx, o.user, o.id)
	if err != sql.ErrNoRows {
		return fmt.Errorf("order %d still there after DeleteOrder: %v", o.id, err)
	}
	step("DeleteOrder+GetOrder", start, "deleted; GetOrder now says sql.ErrNoRows")

	fmt.Println()
	return printDistribution(ctx, rt)
}

// emptyActualTables empties every actual table on every data source, so
// that each run starts from no rows. `shardgen migrate` creates the tables
// (make demo runs it first); a missing one is reported with that hint.
func emptyActualTables(ctx context.Context, rt *shardrt.DB) (int, error) {
	n := 0
	for _, ds := range rt.DataSourceNames() {
		pool, _ := rt.Pool(ds)
		for _, logic := range []string{"t_order", "t_order_item", "t_dict"} {
			for _, actual := range actualTables[logic] {
				if _, err := pool.ExecContext(ctx, "DELETE FROM "+actual); err != nil {
					return n, fmt.Errorf("%s.%s: %w (create the actual tables first: go run ./cmd/shardgen migrate -f examples/orders/shardgen.yaml)", ds, actual, err)
				}
				n++
			}
		}
	}
	return n, nil
}

// printDistribution counts the rows of every actual table of t_order.
func printDistribution(ctx context.Context, rt *shardrt.DB) error {
	fmt.Println("rows per data node of t_order:")
	for _, ds := range rt.DataSourceNames() {
		pool, _ := rt.Pool(ds)
		var parts []string
		for _, t := range actualTables["t_order"] {
			var n int
			if err := pool.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t).Scan(&n); err != nil {
				return err
			}
			parts = append(parts, fmt.Sprintf("%s=%d", t, n))
		}
		fmt.Fprintf(os.Stdout, "  %s: %s\n", ds, strings.Join(parts, "  "))
	}
	return nil
}

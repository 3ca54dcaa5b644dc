package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// runCheck is `shardgen check broadcast -c rules.yaml [--table T]...
// [--timeout 1m]`: it compares the copies of every broadcast table (or of
// the tables named with --table) across the data sources of the logic
// database and prints, per table, one line when the copies agree:
//
//	t_dict: 2 copies equal (checksum 2746150165, 3 rows)
//
// and otherwise one line per copy, the copies that differ from the first
// data source's marked with '!':
//
//	t_dict: copies differ
//	  ds_0  checksum 2746150165  3 rows
//	! ds_1  checksum 1018934540  2 rows
//
// Each copy is summarised by the server's CHECKSUM TABLE (a checksum of
// every row; copies with equal rows and equal column definitions have equal
// checksums) and COUNT(*), read on the write data source of a read/write
// group. A copy that is missing reads "missing". How to repair copies that
// differ: README.md, "Broadcast tables".
//
// Exit code: 0 every copy agrees, 1 some differ or a data source failed
// (errors on stderr), 2 bad usage.
func runCheck(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "broadcast" {
		fmt.Fprintln(stderr, "usage: shardgen check broadcast -c rules.yaml [--table T]...")
		return 2
	}
	fs := flag.NewFlagSet("check broadcast", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("c", "", "ShardingSphere 5.x YAML `file`: data sources and the broadcast rule")
	var tables stringList
	fs.Var(&tables, "table", "broadcast `table` to check (repeatable; default: every broadcast table)")
	timeout := fs.Duration("timeout", time.Minute, "bound on the whole check")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: shardgen check broadcast -c rules.yaml [--table T]...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *config == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	cfg, err := schema.LoadFile(*config)
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	var names []string
	if cfg.Broadcast != nil {
		names = cfg.Broadcast.Tables
	}
	if len(tables) > 0 {
		for _, t := range tables {
			found := false
			for _, n := range names {
				if strings.EqualFold(n, t) {
					found = true
				}
			}
			if !found {
				fmt.Fprintf(stderr, "shardgen check: %q is not a broadcast table of %s\n", t, *config)
				return 1
			}
		}
		names = tables
	}
	if len(names) == 0 {
		fmt.Fprintf(stderr, "shardgen check: %s has no broadcast table\n", *config)
		return 1
	}
	dep, err := runtime.LoadConfig(*config)
	if err != nil {
		fmt.Fprintln(stderr, "shardgen check:", err)
		return 1
	}
	db, err := runtime.Open(dep)
	if err != nil {
		fmt.Fprintln(stderr, "shardgen check:", err)
		return 1
	}
	defer db.Close()
	src, err := db.Sources(cfg.LogicDataSources)
	if err != nil {
		fmt.Fprintln(stderr, "shardgen check:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	code := 0
	for _, table := range names {
		copies, err := checksumCopies(ctx, src.Primary(), table)
		if err != nil {
			fmt.Fprintf(stderr, "shardgen check: %s: %v\n", table, err)
			code = 1
			continue
		}
		if reportCopies(stdout, table, cfg.LogicDataSources, copies) {
			code = 1
		}
	}
	return code
}

// copySum is one copy of a broadcast table: its CHECKSUM TABLE and row
// count; ok is false when the table is missing on the data source.
type copySum struct {
	ok       bool
	checksum int64
	rows     int64
}

// checksumCopies reads the checksum and row count of table on every data
// source of src, in parallel (QueryUnitsEach).
func checksumCopies(ctx context.Context, src *runtime.Sources, table string) ([]copySum, error) {
	quoted := "`" + strings.ReplaceAll(table, "`", "``") + "`"
	units := make([]runtime.RouteUnit, src.Len())
	for i := range units {
		units[i] = runtime.RouteUnit{DataSource: i, SQL: "CHECKSUM TABLE " + quoted}
	}
	sums, err := runtime.QueryUnitsEach(ctx, src, &runtime.Stmt{Name: "check broadcast"}, units, nil, func(rows *sql.Rows) (sql.NullInt64, error) {
		var name string
		var sum sql.NullInt64
		err := rows.Scan(&name, &sum)
		return sum, err
	})
	if err != nil {
		return nil, err
	}
	out := make([]copySum, len(units))
	var present []runtime.RouteUnit
	var at []int
	for i, s := range sums {
		if len(s) == 1 && s[0].Valid {
			out[i] = copySum{ok: true, checksum: s[0].Int64}
			present = append(present, runtime.RouteUnit{DataSource: i, SQL: "SELECT COUNT(*) FROM " + quoted})
			at = append(at, i)
		}
	}
	counts, err := runtime.QueryUnitsEach(ctx, src, &runtime.Stmt{Name: "check broadcast"}, present, nil, func(rows *sql.Rows) (int64, error) {
		var n int64
		err := rows.Scan(&n)
		return n, err
	})
	if err != nil {
		return nil, err
	}
	for k, c := range counts {
		if len(c) == 1 {
			out[at[k]].rows = c[0]
		}
	}
	return out, nil
}

// reportCopies prints the result of one table and reports whether its
// copies differ.
func reportCopies(w io.Writer, table string, dataSources []string, copies []copySum) bool {
	differ := false
	for _, c := range copies[1:] {
		if c != copies[0] {
			differ = true
		}
	}
	if !differ {
		fmt.Fprintf(w, "%s: %d copies equal (checksum %d, %d rows)\n", table, len(copies), copies[0].checksum, copies[0].rows)
		return false
	}
	fmt.Fprintf(w, "%s: copies differ\n", table)
	width := 0
	for _, ds := range dataSources {
		width = max(width, len(ds))
	}
	for i, c := range copies {
		mark := " "
		if c != copies[0] {
			mark = "!"
		}
		what := "missing"
		if c.ok {
			what = "checksum " + strconv.FormatInt(c.checksum, 10) + "  " + strconv.FormatInt(c.rows, 10) + " rows"
		}
		fmt.Fprintf(w, "%s %-*s  %s\n", mark, width, dataSources[i], what)
	}
	return true
}

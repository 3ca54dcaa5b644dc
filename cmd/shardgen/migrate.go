package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/shardgen/shardgen/internal/migrate"
	"github.com/shardgen/shardgen/internal/pipeline"
	"github.com/shardgen/shardgen/runtime"
)

// runMigrate applies the project's DDL files to every actual table:
// `shardgen migrate [-f shardgen.yaml] [--dry-run]`. --dry-run prints one
// JSON line {"data_source","table","sql"} per statement per data node and
// touches no database (it also lists migrations already applied).
func runMigrate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "shardgen.yaml", "project file")
	dry := fs.Bool("dry-run", false, "print each statement of every migration (applied ones too) per data node as a JSON line; connect to no database")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shardgen migrate: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	p, err := pipeline.LoadSchema(*file) // the query files play no part in migrating
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	ms, err := migrate.Load(p.Config, p.Builder, p.File.Dir, p.File.DDL)
	if err != nil {
		fmt.Fprintln(stderr, "shardgen migrate:", err)
		return 1
	}
	project, err := migrate.ProjectKey(p.File)
	if err != nil {
		fmt.Fprintln(stderr, "shardgen migrate:", err)
		return 1
	}
	if *dry {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		for _, m := range ms {
			for _, s := range m.Steps {
				if err := enc.Encode(s); err != nil {
					fmt.Fprintln(stderr, "shardgen migrate:", err)
					return 1
				}
			}
		}
		return 0
	}
	cfg, err := runtime.LoadConfig(p.File.Rules)
	if err != nil {
		fmt.Fprintln(stderr, "shardgen migrate:", err)
		return 1
	}
	rt, err := runtime.Open(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "shardgen migrate:", err)
		return 1
	}
	defer rt.Close()
	rep, err := migrate.Apply(context.Background(), rt.Pool, project, ms)
	for _, a := range rep.Applied {
		fmt.Fprintln(stdout, "applied", a)
	}
	if err != nil {
		fmt.Fprintln(stderr, "shardgen migrate:", err)
		return 1
	}
	if len(rep.Applied) == 0 {
		fmt.Fprintf(stdout, "shardgen migrate: nothing to do (%d migrations already applied)\n", rep.Skipped)
	}
	return 0
}

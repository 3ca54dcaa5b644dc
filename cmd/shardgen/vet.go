package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/shardgen/shardgen/schema"
)

// stringList is a flag that may be given several times (--ddl a.sql --ddl b.sql).
type stringList []string

// String joins the values with commas (flag.Value).
func (s *stringList) String() string { return strings.Join(*s, ",") }

// Set appends one value (flag.Value).
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// runVet is `shardgen vet -c rules.yaml [--ddl schema.sql]...` (or `-f
// shardgen.yaml`, which names both): it loads and
// validates a ShardingSphere 5.x configuration (schema.LoadFile), with
// --ddl also parses the CREATE TABLE files and checks the rules against them
// (schema.ParseDDLFiles, schema.CheckDDL), and prints a summary of the rules
// to stdout. Problems are printed to stderr, one
// `file:line:col: message` per line; warnings too, as
// `file:line:col: warning: message`. Exit code: 0 valid, 1 errors in the
// input, 2 bad usage.
func runVet(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("c", "", "ShardingSphere 5.x YAML `file` (JDBC config or proxy database-*.yaml)")
	project := fs.String("f", "", "shardgen.yaml project `file`: vet its rules against its DDL")
	var ddl stringList
	fs.Var(&ddl, "ddl", "CREATE TABLE `file` or migration directory to check the rules against (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: shardgen vet -c rules.yaml [--ddl schema.sql]...  |  shardgen vet -f shardgen.yaml")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *project != "" {
		if *config != "" || len(ddl) > 0 {
			fmt.Fprintln(stderr, "shardgen vet: -f takes the rules and DDL from the project file; give either -f or -c/--ddl")
			return 2
		}
		pf, err := schema.LoadProject(*project)
		if err != nil {
			printErrors(stderr, err)
			return 1
		}
		*config = pf.Rules
		ddl = append(ddl, pf.DDL...)
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
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "%s: warning: %s\n", w.Pos, w.Msg)
	}
	// The DDL files are one schema, read in order as generate reads them:
	// a goose file's Up part only, and an ALTER TABLE in a later migration
	// changes a table an earlier one created.
	tables, err := schema.ParseDDLPaths(ddl, cfg.Encrypt)
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	if len(ddl) > 0 {
		// Every table the rules name needs its CREATE TABLE, with the
		// sharding, key generate and encrypt columns.
		err := schema.CheckDDL(cfg, tables)
		if err == nil {
			err = cfg.DroppedEncryptColumns.Err() // as generate refuses them
		}
		if err != nil {
			printErrors(stderr, err)
			return 1
		}
	}
	for _, t := range tables {
		if ds, _ := cfg.SingleDataSource(t.Name); ds == "" && !cfg.HasRule(t.Name) && len(cfg.LogicDataSources) > 0 {
			fmt.Fprintf(stderr, "%s: warning: table %q is in no rule and there are several data sources: statements on it are refused; list it in !SINGLE (e.g. tables: [\"%s.%s\"]) or !BROADCAST\n",
				t.Pos, t.Name, cfg.LogicDataSources[0], t.Name)
		}
	}
	warnTextShardingColumns(stderr, cfg, tables)
	printSummary(stdout, cfg, tables)
	return 0
}

// warnTextShardingColumns warns about each character sharding column whose
// collation makes different spellings equal (case- or accent-insensitive:
// 'AB' = 'ab', 'é' = 'e'): a row lives where its own spelling routes, so
// `col = 'ab'` finds no row written as 'AB' on another data node, where one
// MySQL would. shardgen routes by the spelling (routing every such
// comparison to every data node would make the table unsharded for reads);
// the warning says how to stay exact. Trailing spaces need no warning: every
// string sharding value is routed without them (runtime padSpace), as PAD
// SPACE compares, so binary and *_bin collations are exact.
func warnTextShardingColumns(w io.Writer, cfg *schema.Config, tables []*schema.Table) {
	if cfg.Sharding == nil {
		return
	}
	byName := map[string]*schema.Table{}
	for _, t := range tables {
		byName[strings.ToLower(t.Name)] = t
	}
	for _, r := range cfg.Sharding.Tables {
		t := byName[strings.ToLower(r.LogicTable)]
		if t == nil {
			continue
		}
		var cols []string
		for _, s := range []*schema.Strategy{r.DatabaseStrategy, r.TableStrategy} {
			if s != nil {
				cols = append(cols, s.Columns...)
			}
		}
		warned := map[string]bool{}
		for _, name := range cols {
			c := t.Column(name)
			if c == nil || warned[strings.ToLower(c.Name)] {
				continue
			}
			switch strings.ToLower(c.Type) {
			case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set":
			default:
				continue
			}
			collation := c.Collation
			if collation == "" {
				collation = t.Collation
			}
			if collation == "binary" || strings.HasSuffix(collation, "_bin") {
				continue
			}
			warned[strings.ToLower(c.Name)] = true
			shown := collation
			if shown == "" {
				shown = "the server's default collation"
			}
			fmt.Fprintf(w, "%s: warning: sharding column %q of %q compares by %s, under which other spellings of a value are equal ('AB' = 'ab' when case-insensitive, 'é' = 'e' when accent-insensitive), but a row lives where its own spelling routes: write every value in one spelling, compare with BINARY %s = ? (bytes), or give the column a _bin collation\n",
				c.Pos, c.Name, t.Name, shown, c.Name)
		}
	}
}

// printErrors prints every problem of err on its own line.
func printErrors(w io.Writer, err error) {
	var list schema.Errors
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(w, e.Error())
		}
		return
	}
	fmt.Fprintln(w, err.Error())
}

// printSummary prints what the configuration does: each logic table with its
// data nodes and strategies, binding groups, broadcast and single tables,
// encryption and read/write splitting.
func printSummary(w io.Writer, cfg *schema.Config, tables []*schema.Table) {
	fmt.Fprintf(w, "%s: database %s, %d data source(s): %s\n", cfg.File, cfg.DatabaseName, len(cfg.DataSources), dataSourceNames(cfg))
	if sh := cfg.Sharding; sh != nil {
		fmt.Fprintf(w, "sharding tables (%d):\n", len(sh.Tables))
		for _, t := range sh.Tables {
			auto := ""
			if t.Auto {
				auto = ", auto"
			}
			fmt.Fprintf(w, "  %s: %d data node(s)%s: %s\n", t.LogicTable, len(t.DataNodes), auto, nodeList(t.DataNodes))
			fmt.Fprintf(w, "    database strategy: %s\n", strategyText(t.DatabaseStrategy))
			fmt.Fprintf(w, "    table strategy: %s\n", strategyText(t.TableStrategy))
			if k := t.KeyGenerate; k != nil {
				fmt.Fprintf(w, "    key generate: %s by %s\n", k.Column, algorithmText(k.GeneratorName, k.Generator))
			}
			if a := t.Audit; a != nil && len(a.AuditorNames) > 0 {
				fmt.Fprintf(w, "    audit: %s (hint may disable: %t)\n", strings.Join(a.AuditorNames, ", "), a.AllowHintDisable)
			}
		}
		if len(sh.BindingGroups) > 0 {
			fmt.Fprintln(w, "binding groups:")
			for _, g := range sh.BindingGroups {
				name := ""
				if g.Name != "" {
					name = g.Name + ": "
				}
				fmt.Fprintf(w, "  %s%s\n", name, strings.Join(g.Tables, ", "))
			}
		}
	}
	if b := cfg.Broadcast; b != nil && len(b.Tables) > 0 {
		fmt.Fprintf(w, "broadcast tables: %s\n", strings.Join(b.Tables, ", "))
	}
	if s := cfg.Single; s != nil {
		def := ""
		if s.DefaultDataSource != "" {
			def = " (default data source " + s.DefaultDataSource + ")"
		}
		fmt.Fprintf(w, "single tables: %s%s\n", strings.Join(s.Tables, ", "), def)
	}
	var only []string
	var onlyDS string
	for _, t := range tables {
		if ds, isOnly := cfg.SingleDataSource(t.Name); isOnly && !cfg.HasRule(t.Name) {
			only, onlyDS = append(only, t.Name), ds
		}
	}
	if len(only) > 0 {
		fmt.Fprintf(w, "tables in no rule, on the only data source %s (as ShardingSphere 5.1-5.3 route them): %s\n", onlyDS, strings.Join(only, ", "))
	}
	if e := cfg.Encrypt; e != nil {
		fmt.Fprintln(w, "encrypt:")
		for _, t := range e.Tables {
			for _, c := range t.Columns {
				parts := []string{"cipher " + derivedText(e, c.Cipher)}
				if c.AssistedQuery != nil {
					parts = append(parts, "assisted query "+derivedText(e, *c.AssistedQuery))
				}
				if c.LikeQuery != nil {
					parts = append(parts, "like query "+derivedText(e, *c.LikeQuery))
				}
				if c.Plain != "" {
					parts = append(parts, "plain "+c.Plain)
				}
				fmt.Fprintf(w, "  %s.%s: %s\n", t.Name, c.Name, strings.Join(parts, ", "))
			}
		}
	}
	if rw := cfg.ReadWrite; rw != nil {
		fmt.Fprintln(w, "read/write splitting:")
		for _, g := range rw.Groups {
			lb := "ROUND_ROBIN"
			if g.LoadBalancerName != "" {
				lb = algorithmText(g.LoadBalancerName, rw.LoadBalancers[g.LoadBalancerName])
			}
			fmt.Fprintf(w, "  %s: write %s, read %s, load balancer %s, transactional reads %s\n",
				g.Name, g.WriteDataSource, strings.Join(g.ReadDataSources, ", "), lb, g.TransactionalReadQuery)
		}
	}
	if len(tables) > 0 {
		fmt.Fprintf(w, "DDL: %d table(s)\n", len(tables))
	}
}

func dataSourceNames(cfg *schema.Config) string {
	names := make([]string, len(cfg.DataSources))
	for i, ds := range cfg.DataSources {
		names[i] = ds.Name
	}
	return strings.Join(names, ", ")
}

// nodeList lists data nodes, eliding the middle of long lists.
func nodeList(nodes []schema.DataNode) string {
	const head, tail = 3, 1
	var parts []string
	for i, n := range nodes {
		if len(nodes) > head+tail+1 && i == head {
			parts = append(parts, "...")
		}
		if len(nodes) > head+tail+1 && i >= head && i < len(nodes)-tail {
			continue
		}
		parts = append(parts, n.String())
	}
	return strings.Join(parts, ", ")
}

// strategyText describes a strategy, e.g. "standard on order_id, t_mod (MOD)".
func strategyText(s *schema.Strategy) string {
	if s == nil {
		return "none"
	}
	out := s.Kind.String()
	if len(s.Columns) > 0 {
		out += " on " + strings.Join(s.Columns, ", ")
	}
	return out + ", " + algorithmText(s.AlgorithmName, s.Algorithm)
}

// algorithmText is "name (TYPE)", or the type alone for a built-in default.
func algorithmText(name string, spec *schema.AlgorithmSpec) string {
	switch {
	case spec == nil:
		return name
	case name == "":
		return "built-in " + spec.Type
	}
	return name + " (" + spec.Type + ")"
}

func derivedText(e *schema.EncryptRule, d schema.EncryptDerived) string {
	return d.Column + " by " + algorithmText(d.Encryptor, e.Encryptors[d.Encryptor])
}

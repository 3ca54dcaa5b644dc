package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shardgen/shardgen/internal/migrate"
	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/proxy"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// runPreview routes and rewrites one ad-hoc statement, like ShardingSphere's
// PREVIEW: `shardgen preview -c rules.yaml [--ddl schema.sql]...
// [--param VALUE]... 'SQL'`. It prints one JSON line per route unit:
// {"data_source":"ds_0","sql":"...","params":[...]}.
func runPreview(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("preview", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rules := fs.String("c", "", "ShardingSphere rules YAML (required)")
	var ddl, params stringList
	fs.Var(&ddl, "ddl", "CREATE TABLE file or migration directory (repeatable)")
	fs.Var(&params, "param", "value of the next ? placeholder (repeatable; NULL for NULL)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *rules == "" || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: shardgen preview -c rules.yaml [--ddl schema.sql]... [--param VALUE]... 'SQL'")
		return 2
	}
	cfg, err := schema.LoadFile(*rules)
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	var errs schema.Errors
	tables, err := schema.ParseDDLPaths(ddl, cfg.Encrypt) // files or migration directories, one schema
	appendErr(&errs, err)
	appendErr(&errs, schema.CheckDDL(cfg, tables))
	appendErr(&errs, cfg.DroppedEncryptColumns.Err())
	if err := errs.Err(); err != nil {
		printErrors(stderr, err)
		return 1
	}
	b, err := plan.NewBuilder(cfg, nil)
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	sql := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(fs.Arg(0)), ";"))
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if f := strings.Fields(strings.ToLower(sql)); len(f) > 0 && (f[0] == "create" || f[0] == "alter" || f[0] == "drop") {
		// DDL on a logic table: the statement over each actual table, as
		// shardgen migrate applies it.
		steps, err := migrate.Statement(cfg, b, sql)
		if err != nil {
			fmt.Fprintf(stderr, "shardgen preview: %v\n", err)
			return 1
		}
		for _, st := range steps {
			if err := enc.Encode(previewLine{st.DataSource, st.SQL, []string{}}); err != nil {
				fmt.Fprintln(stderr, "shardgen preview:", err)
				return 1
			}
		}
		return 0
	}
	// SHOW and DESCRIBE, which the proxy runs on a data node: where and
	// what, as the proxy's PREVIEW shows them.
	if ds, text, ok, err := proxy.PreviewShow(cfg, b, sql); ok {
		if err != nil {
			fmt.Fprintf(stderr, "shardgen preview: %v\n", err)
			return 1
		}
		if err := enc.Encode(previewLine{ds, text, []string{}}); err != nil {
			fmt.Fprintln(stderr, "shardgen preview:", err)
			return 1
		}
		return 0
	}
	cmd := schema.CmdExec
	if plan.ReturnsRows(sql) {
		cmd = schema.CmdMany
	}
	q := &schema.Query{Name: "preview", Cmd: cmd, SQL: sql, AllowFullRoute: true,
		Pos: schema.Pos{File: "<sql>", Line: 1, Col: 1}, SQLPos: schema.Pos{File: "<sql>", Line: 1, Col: 1}}
	p, err := b.Build(q)
	if err != nil {
		if st, serr := b.BuildSteps(sql); serr == nil && len(params) == 0 && cmd == schema.CmdMany {
			return previewSteps(b, st, enc, stderr)
		}
		// An UPDATE or DELETE … ORDER BY … LIMIT over several data nodes:
		// the proxy selects the keys, then writes those rows.
		if st, serr := b.LimitedWriteSteps(sql); serr == nil && len(params) == 0 && strings.Contains(err.Error(), plan.LimitedWriteRefusal) {
			return previewSteps(b, st, enc, stderr)
		} else if serr != nil && strings.Contains(err.Error(), plan.LimitedWriteRefusal) {
			fmt.Fprintf(stderr, "shardgen preview: %v; %v\n", err, serr)
			return 1
		}
		printErrors(stderr, err)
		return 1
	}
	if params, err = withGeneratedKeys(p, params); err != nil {
		fmt.Fprintf(stderr, "shardgen preview: %v\n", err)
		return 2
	}
	// A named parameter used twice takes the value of its first placeholder.
	values := make([]runtime.Value, len(p.Params))
	seen := make([]bool, len(p.Params))
	for i, text := range params {
		pi := p.Args[i]
		if seen[pi] {
			continue
		}
		seen[pi] = true
		if values[pi], err = plan.ParseValue(p.Params[pi].Type, text); err != nil {
			fmt.Fprintf(stderr, "shardgen preview: --param %d: %v\n", i+1, err)
			return 2
		}
	}
	if p.Insert != nil {
		// A multi-row INSERT: every data node gets only its own rows.
		rowNodes, err := b.RowNodes(p, values)
		if err != nil {
			fmt.Fprintf(stderr, "shardgen preview: routing: %v\n", err)
			return 1
		}
		all := make([]runtime.RouteUnit, len(p.Route.Units))
		for i, u := range p.Route.Units {
			all[i] = runtime.RouteUnit{DataSource: u.DataSource}
		}
		text := func(idx []int) []any {
			out := []any{}
			for _, pi := range idx {
				out = append(out, paramText(p, params, pi))
			}
			return out
		}
		rowArgs := make([][]any, len(p.Insert.RowArgs))
		for r, idx := range p.Insert.RowArgs {
			rowArgs[r] = text(idx)
		}
		units, err := p.Insert.Split.Units(all, rowNodes, rowArgs, text(p.Insert.TailArgs))
		if err != nil {
			fmt.Fprintf(stderr, "shardgen preview: %v\n", err)
			return 1
		}
		for _, u := range units {
			args := make([]string, len(u.Args))
			for i, a := range u.Args {
				args[i] = a.(string)
			}
			line := previewLine{p.Route.DataSources[u.DataSource], u.SQL, args}
			if err := enc.Encode(line); err != nil {
				fmt.Fprintln(stderr, "shardgen preview:", err)
				return 1
			}
		}
		return 0
	}
	units, err := b.Units(p, values)
	if err != nil {
		fmt.Fprintf(stderr, "shardgen preview: routing: %v\n", err)
		return 1
	}
	sent, err := nodeParams(cfg, p, params)
	if err != nil {
		fmt.Fprintf(stderr, "shardgen preview: %v\n", err)
		return 1
	}
	for _, i := range units {
		u := p.Route.Units[i]
		line := previewLine{p.Route.DataSources[u.DataSource], u.SQL, sent}
		if err := enc.Encode(line); err != nil {
			fmt.Fprintln(stderr, "shardgen preview:", err)
			return 1
		}
	}
	return 0
}

// previewSteps prints the lines of a SELECT evaluated in steps across
// data nodes (plan.BuildSteps), as the proxy runs it: every step's route
// units in order, each SQL after a /* step N: … */ comment; a statement
// completed at run time with the rows of earlier steps (which may route
// it) is shown as written with data source "(bound)".
func previewSteps(b *plan.Builder, st *plan.Steps, enc *json.Encoder, stderr io.Writer) int {
	list, err := b.StepStatements(st)
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	for _, ss := range list {
		prefix := fmt.Sprintf("/* step %d: %s */ ", ss.Step, ss.What)
		var lines []previewLine
		if ss.Bound {
			lines = append(lines, previewLine{"(bound)", prefix + ss.SQL, []string{}})
		} else {
			units, err := b.Units(ss.Plan, nil)
			if err != nil {
				fmt.Fprintf(stderr, "shardgen preview: routing: %v\n", err)
				return 1
			}
			for _, i := range units {
				u := ss.Plan.Route.Units[i]
				lines = append(lines, previewLine{ss.Plan.Route.DataSources[u.DataSource], prefix + u.SQL, []string{}})
			}
		}
		for _, l := range lines {
			if err := enc.Encode(l); err != nil {
				fmt.Fprintln(stderr, "shardgen preview:", err)
				return 1
			}
		}
	}
	return 0
}

// previewLine is one line of `shardgen preview`'s output: a route unit's
// data source, its SQL and the values of its placeholders.
type previewLine struct {
	DataSource string   `json:"data_source"`
	SQL        string   `json:"sql"`
	Params     []string `json:"params"`
}

func appendErr(errs *schema.Errors, err error) {
	switch e := err.(type) {
	case nil:
	case schema.Errors:
		*errs = append(*errs, e...)
	case *schema.Error:
		*errs = append(*errs, e)
	default:
		errs.Add(schema.Pos{}, err.Error())
	}
}

// withGeneratedKeys returns the text of every placeholder of p (one per
// p.Args entry): the --param values in order for the statement's own
// placeholders, and for the hidden one of each generated key (an INSERT
// that omits a keyGenerateStrategy column) a key the rule's generator makes
// now, as ShardingSphere's PREVIEW does, so the row routes by it. Errors: a
// --param count that differs from the statement's placeholders, a key
// generator that cannot be configured.
func withGeneratedKeys(p *plan.Plan, params []string) ([]string, error) {
	own := 0
	for _, pi := range p.Args {
		if !p.Params[pi].Generated {
			own++
		}
	}
	if len(params) != own {
		return nil, fmt.Errorf("the statement has %d placeholders but %d --param values were given", own, len(params))
	}
	if own == len(p.Args) {
		return params, nil
	}
	kg := p.KeyGenerate
	gen, err := runtime.NewKeyGenerator(kg.Type, kg.Props)
	if err != nil {
		return nil, fmt.Errorf("key generator %q of column %s: %v", kg.Generator, kg.Column, err)
	}
	out := make([]string, 0, len(p.Args))
	for _, pi := range p.Args {
		if !p.Params[pi].Generated {
			out, params = append(out, params[0]), params[1:]
			continue
		}
		k, err := gen.Generate()
		if err != nil {
			return nil, fmt.Errorf("key generator %q of column %s: %v", kg.Generator, kg.Column, err)
		}
		out = append(out, k.Text())
	}
	return out, nil
}

// paramText is the --param text given for parameter pi (its first
// placeholder), or "" when none was given.
func paramText(p *plan.Plan, params []string, pi int) string {
	for i, a := range p.Args {
		if a == pi && i < len(params) {
			return params[i]
		}
	}
	return ""
}

// nodeParams returns the parameter texts the per-node SQL is sent with: the
// --param values, or, when the plan re-binds its placeholders (encrypted
// columns, a merged LIMIT), what each placeholder receives — encrypted with
// the rule's encryptor (keys from the rules file, `${env:...}` expanded).
func nodeParams(cfg *schema.Config, p *plan.Plan, params []string) ([]string, error) {
	if p.NodeArgs == nil {
		return append([]string{}, params...), nil
	}
	encs := map[string]runtime.Encryptor{}
	out := make([]string, 0, len(p.NodeArgs))
	for _, na := range p.NodeArgs {
		if na.LimitSum {
			n := int64(0)
			for _, lv := range []runtime.LimitValue{p.Merge.Offset, p.Merge.Count} {
				if !lv.Param {
					n += lv.Value
					continue
				}
				v, err := strconv.ParseInt(paramText(p, params, int(lv.Value)), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("LIMIT parameter: %v", err)
				}
				n += v
			}
			out = append(out, strconv.FormatInt(n, 10))
			continue
		}
		var text string
		null := false
		if na.Literal != nil {
			text, null = na.Literal.Text(), na.Literal.IsNull()
		} else {
			text = paramText(p, params, na.Param)
			null = strings.EqualFold(text, "null")
		}
		if na.Encrypt != "" && !null {
			enc, ok := encs[na.Encrypt]
			if !ok {
				spec := cfg.Encrypt.Encryptors[na.Encrypt]
				if spec == nil {
					return nil, fmt.Errorf("encryptor %q is not configured", na.Encrypt)
				}
				var err error
				if enc, err = runtime.NewEncryptor(spec.Type, spec.Props); err != nil {
					return nil, fmt.Errorf("encryptor %q: %v", na.Encrypt, err)
				}
				encs[na.Encrypt] = enc
			}
			text = enc.EncryptText(text)
		}
		if null {
			text = "NULL"
		}
		out = append(out, text)
	}
	return out, nil
}

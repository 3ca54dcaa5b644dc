package templates

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

// rt is the import path of the runtime package that generated code calls;
// generated files import it as shardrt.
const rt = "github.com/shardgen/shardgen/runtime"

// Input is everything Generate turns into one Go package.
type Input struct {
	// Package is the Go package name of the generated code, e.g. "orders".
	// Required; must be a Go identifier.
	Package string
	// Source names the configuration file in the header of db.go and
	// models.go ("// source: shardgen.yaml"); "" leaves the line out.
	Source string
	// Config is the loaded configuration: Config.DataSources and the
	// read/write groups give the order of the generated dataSourceNames.
	// nil orders data sources by first use in the (sorted) plans.
	Config *schema.Config
	// Files are the query files and their plans, in any order: output is
	// sorted by file name, then by each query's position in its file
	// (Plan.Source), as sqlc orders methods.
	Files []QueryFile
	// Emit are sqlc's code generation options from the project file
	// (emit_interface, emit_json_tags, ...); the zero value emits what
	// shardgen always did.
	Emit schema.EmitOptions
	// Version is the shardgen version written in every header, e.g.
	// "v0.1.0"; "" writes "(devel)".
	Version string
}

// QueryFile is one annotated query file and the plans of its queries.
type QueryFile struct {
	// Name is the file's path as the user gave it, e.g.
	// "queries/orders.sql": the generated file is its base name plus ".go"
	// ("orders.sql.go"), and its header says "// source: queries/orders.sql".
	Name  string
	Plans []*plan.Plan
}

// Output is one entry of the output manifest (as ent's entc/gen
// template.go lists its templates): a file, or family of files, that
// Generate can emit, and when.
type Output struct {
	Name      string // file name or pattern, e.g. "db.go", "<query file base>.go"
	Condition string // when the file is emitted
	Doc       string // what the file holds
	emit      func(g *generator) ([]outFile, error)
}

// Outputs is the manifest: every file Generate can emit.
//
//	db.go                   always    Queries, New, WithTx, Sources; data source names; sharding tables,
//	                                  inlined index tables and key generators shared by the queries
//	models.go               always    one struct per logic table that a query's rows reuse
//	<query file base>.go    per file  e.g. orders.sql.go: per query a Stmt, a route unit table, params
//	                                  and row types, the method, and the MergeSpec of a merged SELECT or
//	                                  the InsertSplit of a multi-row INSERT
//	querier.go              emit_interface  the Querier interface of every method of Queries
var Outputs = []Output{
	{Name: "db.go", Condition: "always", Doc: "Queries, New, WithTx, Sources, dataSourceNames, sharding tables, index tables, key generators", emit: (*generator).dbFile},
	{Name: "models.go", Condition: "always", Doc: "one struct per logic table whose columns a query's rows are", emit: (*generator).modelsFile},
	{Name: "<query file base>.go", Condition: "one per query file", Doc: "per query: Stmt, route unit table, Params and Row types, the method, MergeSpec or InsertSplit", emit: (*generator).queryFiles},
	{Name: "querier.go", Condition: "emit_interface: true", Doc: "the Querier interface: every method of Queries, in query file order", emit: (*generator).querierFile},
}

// outFile is one generated file before rendering.
type outFile struct {
	name string
	f    *jen.File
}

// Generate emits the Go package for in: a map from file name (see Outputs)
// to gofmt-formatted contents. It writes nothing to disk. The same input
// gives byte-identical output whatever the order of Files and Plans.
//
// Errors: an invalid package name, duplicate query names or file names, a
// plan the generator cannot express (a sharding parameter whose Go type has
// no ShardingSphere value kind, a generated key column of an unsuitable
// type, a Go type it cannot spell), two plans that disagree about one
// logic table, model or key generator, and identifiers that collide. All
// are reported, joined, each naming the query (file:line) it is about.
func Generate(in Input) (map[string][]byte, error) {
	g, err := newGenerator(in)
	if err != nil {
		return nil, err
	}
	var files []outFile
	var errs []error
	for _, o := range Outputs {
		fs, err := o.emit(g)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, fs...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(files))
	for _, f := range files {
		var buf bytes.Buffer
		if err := f.f.Render(&buf); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		out[f.name] = groupImports(buf.Bytes())
	}
	return out, nil
}

// groupImports splits the import block jennifer renders (one block, sorted
// by path) into standard-library imports, a blank line, and the others, as
// goimports groups them:
//
//	import (
//		"context"
//		"database/sql"
//		"iter"
//
//		shardrt "github.com/shardgen/shardgen/runtime"
//	)
//
// A path whose first element has no dot is the standard library's. Sorting
// within each group is kept; a file without an import block is returned as
// it is. gofmt leaves the result unchanged.
func groupImports(src []byte) []byte {
	start := bytes.Index(src, []byte("\nimport (\n"))
	if start < 0 {
		return src
	}
	start += len("\nimport (\n")
	end := bytes.Index(src[start:], []byte("\n)\n"))
	if end < 0 {
		return src
	}
	end += start + 1
	var std, other [][]byte
	for _, line := range bytes.SplitAfter(src[start:end], []byte("\n")) {
		if len(line) == 0 {
			continue // after the last line's newline
		}
		q := bytes.IndexByte(line, '"')
		if q < 0 {
			return src // a comment or a blank line: leave the block alone
		}
		first, _, _ := bytes.Cut(line[q+1:], []byte("/"))
		if bytes.ContainsRune(first, '.') {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	if len(std) == 0 || len(other) == 0 {
		return src
	}
	out := make([]byte, 0, len(src)+1)
	out = append(out, src[:start]...)
	out = append(out, bytes.Join(std, nil)...)
	out = append(out, '\n')
	out = append(out, bytes.Join(other, nil)...)
	return append(out, src[end:]...)
}

// generator holds what the emitters share: the sorted input and the
// package-level declarations that several queries use.
type generator struct {
	in      Input
	files   []*queryFile
	queries []*query // every query, sorted by name

	dsNames []string       // dataSourceNames, in configuration order
	dsIndex map[string]int // index in dsNames

	tables  []*logicTable          // by name
	tableBy map[string]*logicTable // by lower-case logic table name
	models  []*model               // by name
	modelBy map[string]*model
	keyGens []*keyGen // by generator name
	keyBy   map[string]*keyGen

	names   map[string]string // package-level identifier → what declares it
	members map[string]string // Queries field or method → what declares it

	needNoTarget  bool          // some query calls noTarget
	needPickUnits bool          // some query calls pickUnits
	stepTables    []*logicTable // tables a step of a query evaluated in steps routes at run time (Queries.stepTable), by name
	needPrimary   bool          // some read must run on the primary (Queries.primary)

	encryptors []*encryptor          // by encryptor name
	encBy      map[string]*encryptor // by encryptor name
}

// encryptor is one encryptor of the !ENCRYPT rule that generated code
// calls: New looks it up once (shardrt.DB.Encryptor) and keeps it in a
// Queries field. Its key stays in the deployment YAML.
type encryptor struct {
	name  string // encryptor name, e.g. aes_encryptor
	field string // Queries field, e.g. encAesEncryptor
}

// queryFile is one input file, its plans in file order (by their Source
// position; by name where positions are equal or missing).
type queryFile struct {
	name    string // as given
	out     string // generated file name
	queries []*query
}

func newGenerator(in Input) (*generator, error) {
	if !token.IsIdentifier(in.Package) {
		return nil, fmt.Errorf("package name %q is not a Go identifier", in.Package)
	}
	g := &generator{
		in: in, tableBy: map[string]*logicTable{}, modelBy: map[string]*model{}, keyBy: map[string]*keyGen{},
		names: map[string]string{}, members: map[string]string{}, encBy: map[string]*encryptor{},
	}
	var errs []error
	for _, n := range []string{"Queries", "New", "dataSourceNames", "noTarget", "pickUnits"} {
		g.names[n] = "db.go"
	}
	for _, n := range []string{"src", "ex", "run", "primary", "WithTx", "Tx", "Sources"} {
		g.members[n] = "Queries"
	}
	outs := map[string]string{"db.go": "", "models.go": ""}
	inFiles := slices.Clone(in.Files)
	slices.SortStableFunc(inFiles, func(a, b QueryFile) int { return strings.Compare(a.Name, b.Name) })
	for _, f := range inFiles {
		base := path.Base(strings.ReplaceAll(f.Name, "\\", "/"))
		qf := &queryFile{name: f.Name, out: base + ".go"}
		if prev, dup := outs[qf.out]; dup {
			what := "a generated file"
			if prev != "" {
				what = "query file " + prev
			}
			errs = append(errs, fmt.Errorf("query file %s: its output %s collides with %s; rename one", f.Name, qf.out, what))
			continue
		}
		outs[qf.out] = f.Name
		for _, p := range f.Plans {
			if p == nil || p.Route == nil {
				errs = append(errs, fmt.Errorf("query file %s: a plan without a route", f.Name))
				continue
			}
			if in.Emit.PointersForNullTypes {
				p = PointerNulls(p)
			}
			qf.queries = append(qf.queries, &query{p: p, file: qf})
		}
		// Methods in the order of the query file, as sqlc emits them.
		slices.SortFunc(qf.queries, func(a, b *query) int {
			if c := slices.Compare(sourcePos(a.p.Source), sourcePos(b.p.Source)); c != 0 {
				return c
			}
			return strings.Compare(a.p.Name, b.p.Name)
		})
		g.files = append(g.files, qf)
		g.queries = append(g.queries, qf.queries...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortFunc(g.files, func(a, b *queryFile) int { return strings.Compare(a.out, b.out) })
	slices.SortStableFunc(g.queries, func(a, b *query) int { return strings.Compare(a.p.Name, b.p.Name) })
	for i := 1; i < len(g.queries); i++ {
		if a, b := g.queries[i-1], g.queries[i]; a.p.Name == b.p.Name {
			errs = append(errs, fmt.Errorf("%s: query %q is declared twice (also at %s)", b.p.Source, b.p.Name, a.p.Source))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	g.dataSources()
	for _, q := range g.queries {
		errs = append(errs, about(q, g.analyze(q))...)
	}
	return g, errors.Join(errs...)
}

// dataSources orders the union of every route's data sources as the
// configuration does: Config.DataSources first, then read/write group
// names, then (without a configuration) by first use.
func (g *generator) dataSources() {
	used := map[string]bool{}
	var byUse []string
	for _, q := range g.queries {
		for _, ds := range q.p.Route.DataSources {
			if !used[ds] {
				used[ds] = true
				byUse = append(byUse, ds)
			}
		}
	}
	var order []string
	if c := g.in.Config; c != nil {
		for _, ds := range c.DataSources {
			order = append(order, ds.Name)
		}
		if c.ReadWrite != nil {
			for _, grp := range c.ReadWrite.Groups {
				order = append(order, grp.Name)
			}
		}
	}
	order = append(order, byUse...)
	g.dsIndex = map[string]int{}
	for _, ds := range order {
		if _, seen := g.dsIndex[ds]; used[ds] && !seen {
			g.dsIndex[ds] = len(g.dsNames)
			g.dsNames = append(g.dsNames, ds)
		}
	}
}

// sourcePos returns the line and column of a Plan.Source: "file:line" or
// "file:line:col" ("queries/orders.sql:12" → [12]); nil without a
// position.
func sourcePos(src string) []int {
	var pos []int
	parts := strings.Split(src, ":")
	for i := len(parts) - 1; i >= 1 && len(pos) < 2; i-- {
		n, err := strconv.Atoi(parts[i])
		if err != nil {
			break
		}
		pos = append([]int{n}, pos...)
	}
	return pos
}

// about prefixes each error joined in err with q's position and name,
// e.g. `queries/orders.sql:3:1: query "GetOrder": ...`.
func about(q *query, err error) []error {
	if err == nil {
		return nil
	}
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			list = append(list, about(q, e)...)
		}
		return list
	}
	return []error{fmt.Errorf("%s: query %q: %w", q.p.Source, q.p.Name, err)}
}

// declare reserves a package-level identifier for owner.
func (g *generator) declare(name, owner string) error {
	if prev, ok := g.names[name]; ok {
		return fmt.Errorf("generated identifier %s of %s collides with the one of %s; rename one", name, owner, prev)
	}
	g.names[name] = owner
	return nil
}

// declareMember reserves a field or method name of Queries for owner.
func (g *generator) declareMember(name, owner string) error {
	if prev, ok := g.members[name]; ok {
		return fmt.Errorf("Queries.%s of %s collides with the one of %s; rename one", name, owner, prev)
	}
	g.members[name] = owner
	return nil
}

// header returns the comment lines every generated file starts with.
func (g *generator) newFile(source string) *jen.File {
	f := jen.NewFile(g.in.Package)
	f.ImportAlias(rt, "shardrt")
	version := g.in.Version
	if version == "" {
		version = "(devel)"
	}
	f.HeaderComment("// Code generated by shardgen. DO NOT EDIT.")
	f.HeaderComment("// versions:")
	f.HeaderComment("//   shardgen " + version)
	if source != "" {
		f.HeaderComment("// source: " + source)
	}
	return f
}

// comment returns one line comment whose text is exactly s ("" gives a
// bare "//").
func comment(s string) *jen.Statement {
	if s == "" {
		return jen.Comment("//")
	}
	return jen.Comment("// " + s)
}

// doc returns the line comments of text wrapped at 80 columns: parts are
// joined with spaces into paragraphs, and an empty part starts a new
// paragraph (an empty comment line between them).
func doc(parts ...string) *jen.Statement {
	var lines, para []string
	flush := func() {
		if len(para) > 0 {
			lines = append(lines, wrap(strings.Join(para, " "), 77)...)
			para = nil
		}
	}
	for _, p := range parts {
		if p == "" {
			flush()
			lines = append(lines, "")
			continue
		}
		para = append(para, p)
	}
	flush()
	return comments(lines...)
}

// wrap splits s into lines of at most width bytes at spaces (a longer
// word stays whole).
func wrap(s string, width int) []string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return []string{""}
	}
	var out []string
	line := words[0]
	for _, w := range words[1:] {
		if len(line)+1+len(w) > width {
			out = append(out, line)
			line = w
			continue
		}
		line += " " + w
	}
	return append(out, line)
}

// comments returns consecutive line comments, one per line of text, as
// given.
func comments(lines ...string) *jen.Statement {
	s := jen.Null()
	for i, l := range lines {
		if i > 0 {
			s.Line()
		}
		s.Add(comment(l))
	}
	return s
}

// Package pipeline runs shardgen's generate-time stages over a project file:
// load the project, the ShardingSphere rules and the DDL (schema), parse the
// annotated queries and plan each one (plan). The CLI and the golden tests
// share it, so both see exactly the same plans. It reads files and never
// writes them.
//
// pipeline imports schema, plan and templates; nothing at run time imports
// it.
package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

// Project is a loaded and planned project.
type Project struct {
	File    *schema.Project
	Config  *schema.Config
	Builder *plan.Builder
	// Files are the query files in project order, each with its plans in
	// file order.
	Files []QueryFile
}

// QueryFile is one annotated query file and the plans of its queries.
type QueryFile struct {
	Path  string // as the project names it, relative to the project directory
	Plans []*plan.Plan
}

// Load reads the project file at path and everything it names, then plans
// every query. Every problem found is reported (schema.Errors, sorted by
// file and line); planning stops only where a stage has nothing valid to
// work on.
func Load(path string) (*Project, error) {
	pf, cfg, err := loadRulesAndDDL(path, true)
	if err != nil {
		return nil, err
	}
	var errs schema.Errors
	overrides, err := convertOverrides(pf)
	collect(&errs, err) // reported with the query errors below
	b, err := plan.NewBuilder(cfg, overrides)
	if err != nil {
		collect(&errs, err)
		return nil, errs.Err()
	}
	p := &Project{File: pf, Config: cfg, Builder: b}
	seen := map[string]schema.Pos{}
	for _, f := range pf.Queries {
		qs, err := schema.ParseQueriesFile(f)
		collect(&errs, err)
		rel := relPath(pf.Dir, f)
		qf := QueryFile{Path: rel}
		for _, q := range qs {
			if q.Cmd == 0 || q.SQL == "" {
				continue // already reported
			}
			if prev, dup := seen[q.Name]; dup {
				if prev.File != q.Pos.File { // ParseQueries reports duplicates inside one file
					errs.Add(q.Pos, fmt.Sprintf("duplicate query name %q (first defined at %s)", q.Name, prev))
				}
				continue
			}
			seen[q.Name] = q.Pos
			pl, err := b.Build(q)
			if err != nil {
				// Tables that do not co-locate: evaluated in steps
				// across data nodes where it can be, else the reason.
				pl, err = b.BuildStepsPlan(q, err)
			}
			if err != nil {
				collect(&errs, err)
				continue
			}
			pl.Source = fmt.Sprintf("%s:%d", rel, q.Pos.Line) // stable wherever the tool runs
			qf.Plans = append(qf.Plans, pl)
		}
		p.Files = append(p.Files, qf)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// LoadSchema reads the project file at path, its rules and its DDL, and
// stops there: the Project it returns has no Files, and its Builder has no
// overrides, so the query files are neither read nor planned. shardgen
// migrate uses it, so that a query that does not plan yet (a column that a
// pending migration adds, a typo) does not keep the migrations from running.
// Errors are those of Load for the project file, the rules and the DDL.
func LoadSchema(path string) (*Project, error) {
	pf, cfg, err := loadRulesAndDDL(path, false)
	if err != nil {
		return nil, err
	}
	b, err := plan.NewBuilder(cfg, nil)
	if err != nil {
		return nil, err
	}
	return &Project{File: pf, Config: cfg, Builder: b}, nil
}

// loadRulesAndDDL loads the project file, its ShardingSphere rules and its
// DDL files, checking the DDL against the rules. An encrypt column the rule
// lists but the DDL dropped (schema.Config.DroppedEncryptColumns) is an
// error when typed is set (the generator would type a column the servers
// no longer have), and not for migrate, which needs the rule as it is to
// drop its physical columns.
func loadRulesAndDDL(path string, typed bool) (*schema.Project, *schema.Config, error) {
	pf, err := schema.LoadProject(path)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := schema.LoadFile(pf.Rules)
	if err != nil {
		return nil, nil, err
	}
	var errs schema.Errors
	tables, err := schema.ParseDDLFiles(pf.DDL, cfg.Encrypt)
	if err != nil {
		// A statement that did not parse leaves its table out: checking
		// the rules against the rest would report consequences of it
		// ("sharding table has no CREATE TABLE"), so only the DDL's own
		// errors are reported, as vet does.
		return nil, nil, err
	}
	collect(&errs, schema.CheckDDL(cfg, tables))
	if typed {
		errs = append(errs, cfg.DroppedEncryptColumns...)
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	return pf, cfg, nil
}

// collect adds err to errs: every *schema.Error of a schema.Errors, or err
// itself without a position.
func collect(errs *schema.Errors, err error) {
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

func relPath(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(path)
}

// stdPackages maps the package names a project file may use for standard
// library types to their import paths.
var stdPackages = map[string]string{"sql": "database/sql", "time": "time", "json": "encoding/json", "big": "math/big", "netip": "net/netip"}

// convertOverrides turns shardgen.yaml overrides into plan overrides and
// checks, with golang.org/x/tools/go/packages, that every named type exists
// in its package (the packages are loaded from the project directory, so
// the user's module resolves them).
func convertOverrides(pf *schema.Project) ([]plan.Override, error) {
	var out []plan.Override
	var errs schema.Errors
	want := map[string][]*schema.Override{} // import path → overrides naming it
	for _, o := range pf.Overrides {
		if o.GoType.Prefix != "" {
			errs.Add(o.Pos, fmt.Sprintf("go_type %q: pointer and slice types are not supported in overrides; name a type", o.GoType.Spec))
			continue
		}
		imp := o.GoType.Import
		if p, ok := stdPackages[imp]; ok {
			imp = p
		}
		t := plan.GoType{Pkg: imp, Name: o.GoType.Name, Nullable: true}
		out = append(out, plan.Override{Column: o.Column, DBType: o.DBType, Nullable: o.Nullable, Type: t})
		if imp != "" {
			want[imp] = append(want[imp], o)
		}
	}
	if len(want) > 0 {
		var paths []string
		for p := range want {
			paths = append(paths, p)
		}
		pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: pf.Dir}, paths...)
		if err != nil {
			errs.Add(pf.Pos["overrides"], "loading override types: "+err.Error())
		}
		for _, pkg := range pkgs {
			for _, o := range want[pkg.PkgPath] {
				switch {
				case len(pkg.Errors) > 0:
					errs.Add(o.Pos, fmt.Sprintf("go_type %q: cannot load package %q: %v", o.GoType.Spec, pkg.PkgPath, pkg.Errors[0]))
				case pkg.Types == nil || pkg.Types.Scope().Lookup(o.GoType.Name) == nil:
					errs.Add(o.Pos, fmt.Sprintf("go_type %q: package %q has no type %q", o.GoType.Spec, pkg.PkgPath, o.GoType.Name))
				}
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

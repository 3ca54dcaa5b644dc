package pipeline

import (
	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/templates"
)

// Generate renders the project's generated package: file name (relative to
// the project's out directory) → contents. Nothing is written.
func (p *Project) Generate(version string) (map[string][]byte, error) {
	in := templates.Input{
		Package: p.File.Package,
		Source:  relPath(p.File.Dir, p.File.File),
		Config:  p.Config,
		Emit:    p.File.Emit,
		Version: version,
	}
	for _, f := range p.Files {
		in.Files = append(in.Files, templates.QueryFile{Name: f.Path, Plans: f.Plans})
	}
	return templates.Generate(in)
}

// TypedFiles returns the project's query files with the Go types the
// generated code uses: with emit_pointers_for_null_types, *T in place of each
// database/sql null type (templates.PointerNulls). shardgen explain prints
// them. p.Files is not changed.
func (p *Project) TypedFiles() []QueryFile {
	if !p.File.Emit.PointersForNullTypes {
		return p.Files
	}
	out := make([]QueryFile, len(p.Files))
	for i, f := range p.Files {
		out[i] = QueryFile{Path: f.Path, Plans: make([]*plan.Plan, len(f.Plans))}
		for j, pl := range f.Plans {
			out[i].Plans[j] = templates.PointerNulls(pl)
		}
	}
	return out
}

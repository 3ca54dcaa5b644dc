package pipeline

import (
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

// Package migrate applies a project's DDL files (plain files, or goose /
// golang-migrate directories) to every actual table of each logic table:
// what `shardgen migrate` runs. Each file is one migration; a
// shardgen_schema_migrations table per data source records which ran, with
// a checksum, so that a second run does nothing.
//
// It is a generate-time tool: it imports schema/, plan/ and vitess's SQL
// parser, which runtime/ never does.
package migrate

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

// Table is the name of the table, one per data source, that records the
// migrations applied there.
const Table = "shardgen_schema_migrations"

// createTable creates Table: one row per project and migration. Rows of
// the layout before projects (no project column) are upgraded by upgrade.
const createTable = "CREATE TABLE IF NOT EXISTS " + Table + " (" +
	"project VARCHAR(255) NOT NULL DEFAULT '', " +
	"id VARCHAR(255) NOT NULL, " +
	"checksum CHAR(64) NOT NULL, " +
	"applied_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, " +
	"PRIMARY KEY (project, id))"

// upgradeTable adds the project column to a Table of the old layout (keyed
// by id alone); its rows get the empty project, LegacyProject.
const upgradeTable = "ALTER TABLE " + Table + " ADD COLUMN project VARCHAR(255) NOT NULL DEFAULT '' FIRST, " +
	"DROP PRIMARY KEY, ADD PRIMARY KEY (project, id)"

// LegacyProject is the project of the rows recorded before Table had a
// project column: they could belong to any project. Apply gives such a row
// to the first project that has a migration of the same id and checksum.
const LegacyProject = ""

// Migration is one DDL file: its statements, routed.
type Migration struct {
	ID       string // the file's path relative to the project directory, e.g. "migrations/00002_add_note.sql"
	Checksum string // hex SHA-256 of the file's up part
	Steps    []Step // in file order; per statement, its actual tables in data node order
}

// Step is one statement of a migration on one actual table: the JSON line
// `shardgen migrate --dry-run` prints.
type Step struct {
	DataSource string `json:"data_source"` // where it runs (a read/write group's write data source)
	Table      string `json:"table"`       // the actual table, e.g. t_order_3
	SQL        string `json:"sql"`         // the statement with the logic table name replaced by the actual one
}

// Load reads the DDL files (in order, as the project lists them) and
// routes each statement: CREATE TABLE, ALTER TABLE, CREATE INDEX, DROP
// INDEX and DROP TABLE, on a sharded, broadcast or single table. dir is the
// project directory IDs are relative to. Other statements (SET, USE, a
// mysqldump's comments) are skipped; an INSERT or a statement the parser
// refuses is an error naming file:line.
func Load(cfg *schema.Config, b *plan.Builder, dir string, files []string) ([]Migration, error) {
	p, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		up := string(schema.MigrationUp(src))
		sum := sha256.Sum256([]byte(up))
		id, err := filepath.Rel(dir, f)
		if err != nil {
			id = f
		}
		m := Migration{ID: filepath.ToSlash(id), Checksum: hex.EncodeToString(sum[:])}
		pieces, err := p.SplitStatementToPieces(up)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		offset := 0
		for _, piece := range pieces {
			at := strings.Index(up[offset:], piece) + offset
			offset = at + len(piece)
			line := strings.Count(up[:at+len(piece)-len(strings.TrimLeft(piece, " \t\r\n"))], "\n") + 1
			steps, err := route(cfg, b, p, piece)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", f, line, err)
			}
			m.Steps = append(m.Steps, steps...)
		}
		out = append(out, m)
	}
	return out, nil
}

// Statement returns one DDL statement (CREATE TABLE, ALTER TABLE, CREATE /
// DROP INDEX, DROP TABLE on a logic table) as it runs on every actual table
// of its logic table: what `shardgen migrate` applies and `shardgen preview`
// shows. Errors name what cannot be routed.
func Statement(cfg *schema.Config, b *plan.Builder, sql string) ([]Step, error) {
	return route(cfg, b, b.Parser(), sql)
}

// route rewrites one statement for every actual table of the logic table it
// names.
func route(cfg *schema.Config, b *plan.Builder, p *sqlparser.Parser, piece string) ([]Step, error) {
	stmt, err := p.Parse(piece)
	if errors.Is(err, sqlparser.ErrEmpty) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var table sqlparser.TableName
	switch st := stmt.(type) {
	case *sqlparser.CreateTable:
		if st.Select != nil {
			return nil, errors.New("CREATE TABLE ... SELECT is not a migration shardgen can route; write the columns out")
		}
		table = st.Table
		// An encrypt table in logic form gets its physical columns.
		if _, err := schema.EncryptCreateTable(encryptAsRun(cfg, st.Table), st); err != nil {
			return nil, err
		}
	case *sqlparser.AlterTable:
		table = st.Table
		// ADD / MODIFY / DROP of an encrypt table's logic column change
		// its physical columns.
		if _, err := schema.EncryptAlterTable(encryptAsRun(cfg, st.Table), st); err != nil {
			return nil, err
		}
	case *sqlparser.DropTable:
		if len(st.FromTables) != 1 {
			return nil, errors.New("DROP TABLE of several tables: drop one table per statement (each has its own data nodes)")
		}
		table = st.FromTables[0]
	case *sqlparser.Set, *sqlparser.Use, *sqlparser.CreateDatabase:
		return nil, nil
	default:
		return nil, fmt.Errorf("%s is not a migration statement: only CREATE TABLE, ALTER TABLE, CREATE/DROP INDEX and DROP TABLE are applied to the actual tables", strings.Fields(piece)[0])
	}
	logic := table.Name.String()
	nodes, err := b.ActualTables(logic)
	if err != nil {
		return nil, err
	}
	steps := make([]Step, len(nodes))
	for i, n := range nodes {
		actual := sqlparser.TableName{Name: sqlparser.NewIdentifierCS(n.Table)}
		out := sqlparser.Rewrite(sqlparser.Clone(stmt), nil, func(cur *sqlparser.Cursor) bool {
			if t, ok := cur.Node().(sqlparser.TableName); ok && strings.EqualFold(t.Name.String(), logic) {
				cur.Replace(actual)
			}
			return true
		})
		steps[i] = Step{DataSource: writeSource(cfg, n.DataSource), Table: n.Table, SQL: sqlparser.String(out)}
	}
	return steps, nil
}

// writeSource returns the write data source of a read/write group, or name.
func writeSource(cfg *schema.Config, name string) string {
	if cfg.ReadWrite != nil {
		for _, g := range cfg.ReadWrite.Groups {
			if g.Name == name {
				return g.WriteDataSource
			}
		}
	}
	return name
}

// Pools gives the *sql.DB of a data source by name (runtime.DB.Pool).
type Pools func(name string) (*sql.DB, bool)

// Report is what Apply did: the migrations it applied (or would apply) and
// those already recorded, per data source.
type Report struct {
	Applied []string // "ds_0: migrations/00001_init.sql (8 statements)"
	Skipped int      // migrations already recorded with the same checksum, counted per data source
}

// Apply runs each migration, in order, on every data source it touches
// where that data source's shardgen_schema_migrations table does not record
// it yet for project (ProjectKey): statement by statement in file order,
// then records it. A migration recorded with another checksum is an error
// (the file changed after it ran: write a new migration instead). A table
// of the old layout, without the project column, is upgraded first; a row
// of it (project LegacyProject) with the migration's id and checksum is
// taken as this project's and its project set, and one with the id and
// another checksum is an error, since it may be this project's edited
// migration or another project's (the error says how to assign it). DDL commits implicitly in
// MySQL, so a statement that fails leaves the ones before it applied: the
// error names the data node that failed, lists the data nodes this run
// already changed and the statements of the migration that ran on the failed
// data source (which records nothing, so they must be undone before the next
// run); nothing later runs.
func Apply(ctx context.Context, pools Pools, project string, ms []Migration) (Report, error) {
	if project == LegacyProject {
		return Report{}, errors.New("migrate: empty project name")
	}
	var rep Report
	sources := dataSources(ms)
	dbs := make(map[string]*sql.DB, len(sources))
	for _, ds := range sources {
		db, ok := pools(ds)
		if !ok {
			return rep, fmt.Errorf("data source %s is not configured", ds)
		}
		if _, err := db.ExecContext(ctx, createTable); err != nil {
			return rep, fmt.Errorf("data source %s: creating %s: %w", ds, Table, err)
		}
		if err := upgrade(ctx, db); err != nil {
			return rep, fmt.Errorf("data source %s: upgrading %s: %w", ds, Table, err)
		}
		dbs[ds] = db
	}
	var done []string // data nodes changed by this run
	for _, m := range ms {
		for _, ds := range sources {
			var steps []Step
			for _, s := range m.Steps {
				if s.DataSource == ds {
					steps = append(steps, s)
				}
			}
			if len(steps) == 0 {
				continue
			}
			db := dbs[ds]
			recorded, err := record(ctx, db, project, m)
			if err != nil {
				return rep, fmt.Errorf("data source %s: %w", ds, err)
			}
			if recorded {
				rep.Skipped++
				continue
			}
			var ran []string // the statements of m that ran on ds
			for _, s := range steps {
				if _, err := db.ExecContext(ctx, s.SQL); err != nil {
					err = fmt.Errorf("migration %s failed on data node %s.%s: %w (data nodes already changed by this run: %s)", m.ID, ds, s.Table, err, doneList(done))
					if len(ran) > 0 {
						// ds does not record m, so the next run starts m
						// from its first statement there again.
						err = fmt.Errorf("%w; %s does not record the migration and the next run applies all of it there again, so first undo the statements of it that ran there: %s", err, ds, strings.Join(ran, "; "))
					}
					return rep, err
				}
				if n := ds + "." + s.Table; !slices.Contains(done, n) {
					done = append(done, n)
				}
				ran = append(ran, fmt.Sprintf("%s on %s.%s", s.SQL, ds, s.Table))
			}
			if _, err := db.ExecContext(ctx, "INSERT INTO "+Table+" (project, id, checksum) VALUES (?, ?, ?)", project, m.ID, m.Checksum); err != nil {
				return rep, fmt.Errorf("data source %s: recording migration %s: %w", ds, m.ID, err)
			}
			rep.Applied = append(rep.Applied, fmt.Sprintf("%s: %s (%d statements)", ds, m.ID, len(steps)))
		}
	}
	return rep, nil
}

// upgrade adds the project column to a Table of the old layout.
func upgrade(ctx context.Context, db *sql.DB) error {
	has := func() (bool, error) {
		var n int
		err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? AND column_name = 'project'", Table).Scan(&n)
		return n > 0, err
	}
	ok, err := has()
	if err != nil || ok {
		return err
	}
	if _, err := db.ExecContext(ctx, upgradeTable); err != nil {
		if ok, _ := has(); ok { // another run upgraded it meanwhile
			return nil
		}
		return err
	}
	return nil
}

// record reports whether Table records migration m for project, claiming
// a legacy row (project LegacyProject) of the same id and checksum. A
// recorded checksum other than m's is an error.
func record(ctx context.Context, db *sql.DB, project string, m Migration) (bool, error) {
	for _, owner := range []string{project, LegacyProject} {
		var sum string
		err := db.QueryRowContext(ctx, "SELECT checksum FROM "+Table+" WHERE project = ? AND id = ?", owner, m.ID).Scan(&sum)
		switch {
		case err == sql.ErrNoRows:
			continue
		case err != nil:
			return false, fmt.Errorf("reading %s: %w", Table, err)
		case sum != m.Checksum && owner == project:
			return false, fmt.Errorf("migration %s changed since it was applied (checksum %s, now %s); add a new migration instead of editing an applied one", m.ID, sum, m.Checksum)
		case sum != m.Checksum:
			return false, fmt.Errorf("migration %s: %s records it from before migrations were kept per project, with checksum %s, not this file's %s: "+
				"if it is another project's, assign it (UPDATE %s SET project = 'that project' WHERE project = '' AND id = '%s') and run again; "+
				"if it is this project's, the file changed since it was applied: add a new migration instead", m.ID, Table, sum, m.Checksum, Table, m.ID)
		}
		if owner == LegacyProject {
			if _, err := db.ExecContext(ctx, "UPDATE "+Table+" SET project = ? WHERE project = ? AND id = ?", project, LegacyProject, m.ID); err != nil {
				return false, fmt.Errorf("assigning migration %s recorded before projects to project %s: %w", m.ID, project, err)
			}
		}
		return true, nil
	}
	return false, nil
}

func doneList(done []string) string {
	if len(done) == 0 {
		return "none"
	}
	return strings.Join(done, ", ")
}

// dataSources returns the data sources the migrations touch, in order of
// first use.
func dataSources(ms []Migration) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for _, s := range m.Steps {
			if !seen[s.DataSource] {
				seen[s.DataSource] = true
				out = append(out, s.DataSource)
			}
		}
	}
	return out
}

// ProjectKey returns the name under which p's migrations are recorded:
// p.MigrationsProject when set, else the Go import path of p.Out (the
// module path of the nearest go.mod in or above Out's directory, joined
// with Out's path inside that module), else, with no go.mod, Out relative
// to the project file's directory in slash form. A go.mod that cannot be
// read or has no module line is an error naming it.
func ProjectKey(p *schema.Project) (string, error) {
	if p.MigrationsProject != "" {
		return p.MigrationsProject, nil
	}
	out, err := filepath.Abs(p.Out)
	if err != nil {
		return "", err
	}
	for dir := out; ; dir = filepath.Dir(dir) {
		gomod := filepath.Join(dir, "go.mod")
		src, err := os.ReadFile(gomod)
		if err == nil {
			mod := modfile.ModulePath(src)
			if mod == "" {
				return "", fmt.Errorf("%s: no module line; set migrations_project: in the project file", gomod)
			}
			rel, err := filepath.Rel(dir, out)
			if err != nil {
				return "", err
			}
			return path.Join(mod, filepath.ToSlash(rel)), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	rel, err := filepath.Rel(p.Dir, p.Out)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// encryptAsRun is the !ENCRYPT rule a statement on table runs under:
// without the columns of table that were plain columns encrypted later
// (schema.EncryptRuleAsRun), whose statements run as written.
func encryptAsRun(cfg *schema.Config, table sqlparser.TableName) *schema.EncryptRule {
	return schema.EncryptRuleAsRun(cfg.Encrypt, cfg.Tables[strings.ToLower(table.Name.String())])
}

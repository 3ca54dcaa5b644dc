package proxy

import (
	"errors"
	"fmt"
	"strings"

	"vitess.io/vitess/go/mysql/sqlerror"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

// PreviewShow returns where the proxy runs the SHOW or DESCRIBE statement
// q over the rules cfg and what it sends there, as the proxy's PREVIEW
// shows it, from the rules and the planner's tables b alone (no data
// source is contacted; `shardgen preview`): SHOW CREATE TABLE, SHOW
// [FULL] COLUMNS, SHOW INDEX, DESCRIBE / EXPLAIN of a logic table run on
// its first actual table; SHOW VARIABLES and SHOW STATUS on the first
// data source. ok is false when q is not a SHOW, DESCRIBE or EXPLAIN of a
// table. Errors: a table the DDL does not define, a database other than
// the logic database, and SHOW statements the proxy answers itself (SHOW
// TABLES, TABLE STATUS, DATABASES) or does not run.
func PreviewShow(cfg *schema.Config, b *plan.Builder, q string) (dataSource, sql string, ok bool, err error) {
	q = trimStatement(q)
	switch leadingWords(q, 1)[0] {
	case "show", "describe", "desc", "explain":
	default:
		return "", "", false, nil
	}
	switch leadingWords(q, 2)[1] {
	case "select", "insert", "update", "delete", "replace", "with", "(", "format", "extended", "partitions", "analyze":
		return "", "", false, nil // EXPLAIN SELECT …: not a table's
	}
	if t, isTable := parseShowTable(describeText(q)); isTable {
		for _, db := range append(t.dbs, cfg.DatabaseName) {
			if !strings.EqualFold(db, cfg.DatabaseName) {
				return "", "", true, fmt.Errorf("database %q is not the logic database %q", db, cfg.DatabaseName)
			}
		}
		if b.Table(t.logic) == nil {
			return "", "", true, fmt.Errorf("table %q is not defined: no CREATE TABLE for it in the DDL", t.logic)
		}
		nodes, _, err := dataNodesOf(cfg, b, t.logic)
		if err != nil {
			return "", "", true, err
		}
		text, _, err := t.actualText(cfg, b.Parser(), nodes[0].table)
		return nodes[0].ds, text, true, err
	}
	text, err := showOnFirstSource(b.Parser(), q)
	var se *sqlerror.SQLError
	if errors.As(err, &se) {
		return "", "", true, errors.New(se.Message)
	}
	return cfg.LogicDataSources[0], text, true, nil
}

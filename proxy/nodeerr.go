package proxy

import (
	"errors"
	"slices"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// actualDatabases returns, by data source name, the database of each data
// source whose URL names one other than the data source's own name
// (jdbc:mysql://host/ds_0_real for ds_0).
func actualDatabases(cfg *Config) map[string]string {
	out := map[string]string{}
	for _, ds := range cfg.Deploy.DataSources {
		dsn, err := ds.Config.DriverDSN()
		if err != nil {
			continue
		}
		c, err := gomysql.ParseDSN(dsn)
		if err != nil || c.DBName == "" || c.DBName == ds.Name {
			continue
		}
		out[ds.Name] = c.DBName
	}
	return out
}

// nodeError is err, a data node's error, with the data source's actual
// database that its message names ("Table 'ds_0_real.t_order_1' doesn't
// exist") replaced by the data source's name, as users name data nodes
// ("Table 'ds_0.t_order_1' doesn't exist": data source ds_0, actual table
// t_order_1); the error code and SQL state are the server's. Other errors
// are returned as they are.
func (s *Server) nodeError(err error) error {
	if err == nil || len(s.actualDB) == 0 {
		return err
	}
	// Only where sqlError relays the server's error as it is.
	var se *sqlerror.SQLError
	if errors.As(err, &se) || connectError(err) || errors.Is(err, runtime.ErrLocalPartialCommit) || errors.Is(err, runtime.ErrXAIncomplete) {
		return err
	}
	var ne *runtime.NodeError
	var me *gomysql.MySQLError
	if !errors.As(err, &ne) || !errors.As(ne.Err, &me) {
		return err
	}
	msg := s.nodeMessage(ne.DataSource, me.Message)
	if msg == me.Message {
		return err
	}
	state := string(me.SQLState[:])
	if me.SQLState == [5]byte{} {
		state = sqlerror.SSUnknownSQLState
	}
	return sqlerror.NewSQLError(sqlerror.ErrorCode(me.Number), state, msg)
}

// backendNodeError is nodeError of a back end's ERR packet relayed by the
// fast path from data source ds (backendError).
func (s *Server) backendNodeError(ds string, err error) error {
	var se *sqlerror.SQLError
	if len(s.actualDB) == 0 || !errors.As(err, &se) {
		return err
	}
	if msg := s.nodeMessage(ds, se.Message); msg != se.Message {
		return sqlerror.NewSQLError(sqlerror.ErrorCode(se.Number()), se.SQLState(), msg)
	}
	return err
}

// nodeMessage replaces, in a message of data source ds, its actual
// database where the message names it ('db.table', 'db', `db`.) by ds.
func (s *Server) nodeMessage(ds, msg string) string {
	db := s.actualDB[ds]
	if db == "" {
		return msg
	}
	return strings.NewReplacer("'"+db+".", "'"+ds+".", "'"+db+"'", "'"+ds+"'", "`"+db+"`.", "`"+ds+"`.").Replace(msg)
}

// writeNodeError is err, the error of a write of p that ran on several
// data nodes (units), with the data node whose back end failed named in a
// back end's message: "Duplicate entry '1' for key 'PRIMARY' (data node
// ds_1.t_order_1)", its error code and SQL state MariaDB's. The data node
// is the unit of the failing data source whose SQL names its actual table
// (the data source alone when that cannot be told). Other errors are
// returned as they are.
func writeNodeError(p *plan.Plan, err error) error {
	var ne *runtime.NodeError
	var me *gomysql.MySQLError
	if !errors.As(err, &ne) || !errors.As(ne.Err, &me) || connectErrors[me.Number] {
		return err
	}
	node := ne.DataSource
	var found []string
	for _, u := range p.Route.Units {
		ds, table, ok := strings.Cut(u.Node, ".")
		if !ok || ds != ne.DataSource || slices.Contains(found, u.Node) {
			continue
		}
		if ne.SQL == "" || namesTable(ne.SQL, table) {
			found = append(found, u.Node)
		}
	}
	if len(found) == 1 {
		node = found[0]
	}
	named := *me
	named.Message = me.Message + " (data node " + node + ")"
	return &runtime.NodeError{DataSource: ne.DataSource, SQL: ne.SQL, Err: &named}
}

// namesTable reports whether sql names table as a whole identifier (not
// a prefix of t_order_10 for t_order_1).
func namesTable(sql, table string) bool {
	for i := 0; ; {
		k := strings.Index(sql[i:], table)
		if k < 0 {
			return false
		}
		at, end := i+k, i+k+len(table)
		if (at == 0 || !identByte(sql[at-1])) && (end == len(sql) || !identByte(sql[end])) {
			return true
		}
		i = at + 1
	}
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

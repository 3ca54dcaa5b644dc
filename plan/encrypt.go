package plan

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// encTable is what the planner knows of one encrypted logic table: its
// physical DDL (with cipher, assisted-query, like-query and 5.1 plain
// columns) and its encrypted logic columns.
type encTable struct {
	physical *schema.Table
	columns  map[string]*schema.EncryptColumn // by lower-case logic column
	// queryWithCipher: reads use the cipher column (decrypted); false (5.1
	// queryWithCipherColumn: false) reads and filters on the plain column.
	queryWithCipher bool
}

// logicView builds the logic table an application sees over an encrypted
// physical table: every derived column (cipher, assisted, like, plain) is
// replaced by its logic column, at the cipher column's place. The logic
// column takes the plain column's type when there is one, else a string as
// long as the cipher column (LONGTEXT for a TEXT cipher column).
func logicView(phys *schema.Table, et *schema.EncryptTable) *schema.Table {
	derived := map[string]*schema.EncryptColumn{}
	cipherOf := map[string]*schema.EncryptColumn{}
	for _, c := range et.Columns {
		cipherOf[strings.ToLower(c.Cipher.Column)] = c
		for _, d := range []string{c.Cipher.Column, c.Plain, derivedName(c.AssistedQuery), derivedName(c.LikeQuery)} {
			if d != "" {
				derived[strings.ToLower(d)] = c
			}
		}
	}
	logic := *phys
	logic.Columns = nil
	for _, col := range phys.Columns {
		lc := strings.ToLower(col.Name)
		if ec, ok := cipherOf[lc]; ok {
			v := &schema.Column{Name: ec.Name, Type: "varchar", Nullable: col.Nullable, Invisible: col.Invisible, Pos: col.Pos}
			if col.Length != nil && (strings.EqualFold(col.Type, "varchar") || strings.EqualFold(col.Type, "char")) {
				// The plain text is shorter than its cipher text: the
				// cipher column's length holds it (a federation's
				// temporary table needs a length: VARCHAR alone is a
				// syntax error).
				n := *col.Length
				v.Length = &n
			} else {
				v.Type = "longtext"
			}
			if ec.Plain != "" {
				if pc := phys.Column(ec.Plain); pc != nil {
					c := *pc
					c.Name = ec.Name
					c.Nullable = pc.Nullable || col.Nullable
					c.Invisible = col.Invisible
					v = &c
				}
			}
			logic.Columns = append(logic.Columns, v)
			continue
		}
		if _, ok := derived[lc]; ok {
			continue
		}
		logic.Columns = append(logic.Columns, col)
	}
	return &logic
}

func derivedName(d *schema.EncryptDerived) string {
	if d == nil {
		return ""
	}
	return d.Column
}

// encArg is a placeholder the encryption rewrite added: the value of a
// parameter (or of a literal), transformed by an encryptor (Encrypt "" for
// a plain column).
type encArg struct {
	param   int
	literal *runtime.Value
	encrypt string
}

// encryptRewrite rewrites the statement to be printed (the per-node merge
// statement or the original) over physical columns: projections of an
// encrypted column read its cipher column (or the plain one), filters
// compare the assisted-query (else cipher) column, LIKE the like-query
// column, and INSERT / UPDATE write every derived column; each value is a
// new placeholder bound to the parameter and the encryptor. It returns nil
// when the statement touches no encrypted column. Source: ShardingSphere's
// encrypt rewrite (../shared/spec §5.D).
func (p *planner) encryptRewrite() error {
	touched := false
	for _, r := range p.allRefs {
		if r.info.enc != nil {
			touched = true
		}
	}
	if !touched {
		return nil
	}
	if len(p.scopes) > 1 || len(p.allRefs) > len(p.refs) {
		return p.errorf(-1, "a statement with subqueries or derived tables over an encrypted table is not supported yet")
	}
	src := p.stmt
	if p.nodeStmt != nil {
		// A refusal names what the user wrote: check the statement as
		// written first. The per-node statement has clauses the merge
		// added (COUNT(DISTINCT x) becomes GROUP BY x on every node).
		if _, err := p.encryptStatement(p.stmt); err != nil {
			return err
		}
		src = p.nodeStmt
	}
	out, err := p.encryptStatement(src)
	if err != nil {
		return err
	}
	p.encStmt = out
	return nil
}

// encryptStatement returns a copy of src rewritten over physical columns
// (see encryptRewrite), with p.encArgs binding the placeholders it added.
func (p *planner) encryptStatement(src sqlparser.Statement) (sqlparser.Statement, error) {
	stmt := sqlparser.Clone(src)
	// Map the clone's column names back to their resolution: the clone
	// has new *ColName nodes, so resolve them again.
	p.encArgs = map[string]encArg{}
	var err error
	fail := func(e error) bool {
		if err == nil {
			err = e
		}
		return false
	}
	encOf := func(c *sqlparser.ColName) (*colRef, *schema.EncryptColumn) {
		r, e := p.resolve(c, p.root)
		if e != nil || r == nil || r.ref.info.enc == nil {
			return nil, nil
		}
		return r, r.ref.info.enc.columns[strings.ToLower(r.col.Name)]
	}
	newArg := func(a sqlparser.Expr, encryptor string, col string) sqlparser.Expr {
		arg, ok := a.(*sqlparser.Argument)
		if !ok {
			if _, isNull := a.(*sqlparser.NullVal); isNull || encryptor == "" {
				return a // NULL stays NULL; a plain column keeps the literal
			}
			lit, ok := p.operand(a)
			if !ok || lit.Literal == nil {
				fail(p.errorf(-1, "encrypted column %q must be compared with or set to a parameter or a literal, not %s", col, sqlparser.String(a)))
				return a
			}
			// The literal is encrypted at run time, with the run time's key:
			// keys never reach generated code.
			name := "enc_" + itoa(len(p.encArgs)+1)
			p.encArgs[name] = encArg{param: -1, literal: lit.Literal, encrypt: encryptor}
			return sqlparser.NewArgument(name)
		}
		param := -1
		if i := argIndex(arg); i >= 0 && i < len(p.plan.Args) {
			param = p.plan.Args[i]
		} else if ea, ok := p.encArgs[arg.Name]; ok {
			param = ea.param
		}
		name := "enc_" + itoa(len(p.encArgs)+1)
		p.encArgs[name] = encArg{param: param, encrypt: encryptor}
		return sqlparser.NewArgument(name)
	}
	filterColumn := func(ec *schema.EncryptColumn, q bool) (string, string) {
		if !q && ec.Plain != "" {
			return ec.Plain, ""
		}
		if ec.AssistedQuery != nil {
			return ec.AssistedQuery.Column, ec.AssistedQuery.Encryptor
		}
		return ec.Cipher.Column, ec.Cipher.Encryptor
	}
	rename := func(c *sqlparser.ColName, to string) *sqlparser.ColName {
		return &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(to), Qualifier: c.Qualifier}
	}
	switch s := stmt.(type) {
	case *sqlparser.Insert:
		p.encryptInsert(s, newArg, &err)
	case *sqlparser.Update:
		var exprs sqlparser.UpdateExprs
		for _, ue := range s.Exprs {
			cr, ec := encOf(ue.Name)
			if ec == nil {
				exprs = append(exprs, ue)
				continue
			}
			for _, d := range writeColumns(ec) {
				e := ue.Expr
				if d.encryptor != "" {
					e = newArg(ue.Expr, d.encryptor, ec.Name)
				} else if a, ok := ue.Expr.(*sqlparser.Argument); ok {
					e = newArg(a, "", ec.Name)
				}
				exprs = append(exprs, &sqlparser.UpdateExpr{Name: rename(ue.Name, d.column), Expr: e})
			}
			_ = cr
		}
		s.Exprs = exprs
	}
	// Projections, filters and everything else.
	out := sqlparser.Rewrite(stmt, func(cur *sqlparser.Cursor) bool {
		if err != nil {
			return false
		}
		switch n := cur.Node().(type) {
		case *sqlparser.Insert, *sqlparser.UpdateExpr:
			return false // done above
		case *sqlparser.Order:
			// ORDER BY an alias or a position of a column read as cipher
			// text would sort by the cipher text.
			if name := p.cipherResult(n.Expr); name != "" {
				return fail(p.errorf(-1, "encrypted column %q cannot be used in ORDER BY: %s", name, cipherOnly))
			}
		case *sqlparser.StarExpr:
			return p.encryptStar(cur, n, &err)
		case *sqlparser.AliasedExpr:
			c, ok := n.Expr.(*sqlparser.ColName)
			if !ok {
				return true
			}
			cr, ec := encOf(c)
			if ec == nil {
				return true
			}
			col := ec.Cipher.Column
			if !cr.ref.info.enc.queryWithCipher && ec.Plain != "" {
				col = ec.Plain
			}
			as := n.As
			if as.IsEmpty() {
				as = sqlparser.NewIdentifierCI(ec.Name)
			}
			cur.Replace(&sqlparser.AliasedExpr{Expr: rename(c, col), As: as})
			return false
		case *sqlparser.ComparisonExpr:
			l, lok := n.Left.(*sqlparser.ColName)
			if !lok {
				if r, rok := n.Right.(*sqlparser.ColName); rok {
					if _, ec := encOf(r); ec != nil {
						fail(p.errorf(-1, "put encrypted column %q on the left of %s", ec.Name, sqlparser.String(n)))
					}
				}
				return true
			}
			cr, ec := encOf(l)
			if ec == nil {
				return true
			}
			q := cr.ref.info.enc.queryWithCipher
			switch n.Operator {
			case sqlparser.EqualOp, sqlparser.NotEqualOp, sqlparser.NullSafeEqualOp, sqlparser.InOp, sqlparser.NotInOp:
				col, enc := filterColumn(ec, q)
				right := n.Right
				if t, ok := right.(sqlparser.ValTuple); ok {
					nt := make(sqlparser.ValTuple, len(t))
					for i, v := range t {
						nt[i] = newArg(v, enc, ec.Name)
					}
					right = nt
				} else {
					right = newArg(right, enc, ec.Name)
				}
				cur.Replace(&sqlparser.ComparisonExpr{Operator: n.Operator, Left: rename(l, col), Right: right})
				return false
			case sqlparser.LikeOp, sqlparser.NotLikeOp:
				if !q && ec.Plain != "" {
					cur.Replace(&sqlparser.ComparisonExpr{Operator: n.Operator, Left: rename(l, ec.Plain), Right: newArg(n.Right, "", ec.Name), Escape: n.Escape})
					return false
				}
				if ec.LikeQuery == nil {
					return fail(p.errorf(-1, "LIKE on encrypted column %q needs a like-query column (likeQuery) in its !ENCRYPT rule", ec.Name))
				}
				cur.Replace(&sqlparser.ComparisonExpr{Operator: n.Operator, Left: rename(l, ec.LikeQuery.Column), Right: newArg(n.Right, ec.LikeQuery.Encryptor, ec.Name), Escape: n.Escape})
				return false
			default:
				return fail(p.errorf(-1, "encrypted column %q cannot be compared with %s: its cipher text does not keep the order of the values", ec.Name, n.Operator.ToString()))
			}
		case *sqlparser.IsExpr:
			c, ok := n.Left.(*sqlparser.ColName)
			if !ok {
				return true
			}
			if _, ec := encOf(c); ec != nil {
				cur.Replace(&sqlparser.IsExpr{Left: rename(c, ec.Cipher.Column), Right: n.Right})
				return false
			}
		case *sqlparser.ColName:
			if _, ec := encOf(n); ec != nil {
				return fail(p.errorf(-1, "encrypted column %q cannot be used in %s: %s", ec.Name, contextOf(cur), cipherOnly))
			}
		}
		return true
	}, nil)
	if err != nil {
		return nil, err
	}
	return out.(sqlparser.Statement), nil
}

// cipherOnly says what works on cipher text, for refusals.
const cipherOnly = "only projections, =, <>, IN, IS [NOT] NULL and LIKE (with a like-query column) work on cipher text"

// cipherResult returns the logic column of the result column that e, an
// ORDER BY item, names by its alias or position when that column is read
// as cipher text (Column.Decrypt), "" otherwise.
func (p *planner) cipherResult(e sqlparser.Expr) string {
	idx := -1
	switch x := e.(type) {
	case *sqlparser.Literal:
		if x.Type == sqlparser.IntVal {
			if n, err := strconv.Atoi(x.Val); err == nil {
				idx = n - 1
			}
		}
	case *sqlparser.ColName:
		if r, err := p.resolve(x, p.root); err == nil && r == nil && x.Qualifier.IsEmpty() { // a select-list alias
			for i, c := range p.plan.Columns {
				if strings.EqualFold(c.Name, x.Name.String()) {
					idx = i
					break
				}
			}
		}
	}
	if idx < 0 || idx >= len(p.plan.Columns) || p.plan.Columns[idx].Decrypt == "" {
		return ""
	}
	_, col, _ := strings.Cut(p.plan.Columns[idx].Origin, ".")
	return col
}

// contextOf names the clause or expression a column sits in, for error
// messages, as the statement spells it: "ORDER BY", "GROUP BY",
// "arithmetic", "BETWEEN", an aggregate or function call such as
// "COUNT(DISTINCT phone)" or "LENGTH(phone)".
func contextOf(cur *sqlparser.Cursor) string {
	switch n := cur.Parent().(type) {
	case *sqlparser.Order:
		return "ORDER BY"
	case *sqlparser.GroupBy:
		return "GROUP BY"
	case *sqlparser.BinaryExpr:
		return "arithmetic"
	case *sqlparser.BetweenExpr:
		return "BETWEEN"
	case sqlparser.AggrFunc:
		// vitess prints aggregates in lower case: COUNT(DISTINCT x) as the
		// user wrote it.
		s := sqlparser.String(n)
		name, args, ok := strings.Cut(s, "(")
		if !ok {
			return s
		}
		if rest, ok := strings.CutPrefix(args, "distinct "); ok {
			args = "DISTINCT " + rest
		}
		return strings.ToUpper(name) + "(" + args
	case sqlparser.SQLNode:
		return strings.TrimSpace(sqlparser.String(n))
	}
	return "this place"
}

// writeColumn is one physical column an encrypted logic column writes.
type writeColumn struct {
	column    string
	encryptor string // "" for the 5.1 plain column (the value itself)
}

// writeColumns lists what INSERT and UPDATE write for an encrypted column:
// cipher, assisted query, like query (ShardingSphere's order), then the
// 5.1 plain column.
func writeColumns(ec *schema.EncryptColumn) []writeColumn {
	out := []writeColumn{{ec.Cipher.Column, ec.Cipher.Encryptor}}
	if ec.AssistedQuery != nil {
		out = append(out, writeColumn{ec.AssistedQuery.Column, ec.AssistedQuery.Encryptor})
	}
	if ec.LikeQuery != nil {
		out = append(out, writeColumn{ec.LikeQuery.Column, ec.LikeQuery.Encryptor})
	}
	if ec.Plain != "" {
		out = append(out, writeColumn{ec.Plain, ""})
	}
	return out
}

// encryptInsert expands each encrypted column of the INSERT's column list
// and of every row into its physical columns.
func (p *planner) encryptInsert(s *sqlparser.Insert, newArg func(sqlparser.Expr, string, string) sqlparser.Expr, err *error) {
	info := p.refs[0].info
	if info.enc == nil {
		return
	}
	cols := s.Columns
	if len(cols) == 0 {
		for _, c := range info.ddl.VisibleColumns() {
			cols = append(cols, sqlparser.NewIdentifierCI(c.Name))
		}
	}
	var outCols sqlparser.Columns
	rows := s.Rows.(sqlparser.Values)
	outRows := make(sqlparser.Values, len(rows))
	for i, c := range cols {
		ec := info.enc.columns[strings.ToLower(c.String())]
		if ec == nil {
			outCols = append(outCols, c)
			for r := range rows {
				outRows[r] = append(outRows[r], rows[r][i])
			}
			continue
		}
		for _, d := range writeColumns(ec) {
			outCols = append(outCols, sqlparser.NewIdentifierCI(d.column))
			for r := range rows {
				outRows[r] = append(outRows[r], newArg(rows[r][i], d.encryptor, ec.Name))
			}
		}
	}
	for i, ue := range s.OnDup {
		if ec := info.enc.columns[strings.ToLower(ue.Name.Name.String())]; ec != nil && *err == nil {
			*err = p.errorf(-1, "ON DUPLICATE KEY UPDATE of encrypted column %q is not supported yet", ec.Name)
		}
		_ = i
	}
	s.Columns = outCols
	s.Rows = outRows
}

// encryptStar expands `*` / `t.*` over an encrypted table into its logic
// columns, each encrypted one read from its cipher (or plain) column.
func (p *planner) encryptStar(cur *sqlparser.Cursor, n *sqlparser.StarExpr, err *error) bool {
	q := n.TableName.Name.String()
	var exprs []sqlparser.SelectExpr
	expanded := false
	for _, r := range p.refs {
		if q != "" && !(strings.EqualFold(r.alias, q) || r.alias == "" && strings.EqualFold(r.info.name, q)) {
			continue
		}
		qual := r.alias
		if qual == "" {
			qual = r.info.name
		}
		for _, c := range r.info.ddl.VisibleColumns() {
			cn := sqlparser.NewColNameWithQualifier(c.Name, sqlparser.NewTableName(qual))
			ae := &sqlparser.AliasedExpr{Expr: cn}
			if r.info.enc != nil {
				if ec := r.info.enc.columns[strings.ToLower(c.Name)]; ec != nil {
					col := ec.Cipher.Column
					if !r.info.enc.queryWithCipher && ec.Plain != "" {
						col = ec.Plain
					}
					ae = &sqlparser.AliasedExpr{Expr: sqlparser.NewColNameWithQualifier(col, sqlparser.NewTableName(qual)), As: sqlparser.NewIdentifierCI(c.Name)}
					expanded = true
				}
			}
			exprs = append(exprs, ae)
		}
	}
	if !expanded {
		return false
	}
	se, ok := cur.Parent().(*sqlparser.SelectExprs)
	if !ok {
		*err = p.errorf(-1, "cannot expand * over an encrypted table here")
		return false
	}
	var out []sqlparser.SelectExpr
	for _, e := range se.Exprs {
		if e == sqlparser.SelectExpr(n) {
			out = append(out, exprs...)
		} else {
			out = append(out, e)
		}
	}
	se.Exprs = out
	return false
}

func itoa(i int) string { return strconv.Itoa(i) }

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
	// store: the value is written to this logic column (INSERT, UPDATE).
	store *runtime.TextColumn
}

// markStore sets the column a written value of encrypted column ec (an
// argument newArg returned) is stored in, for the character set check
// before encryption, when that column's character set is one
// runtime.TextColumn checks; row counts from 1.
func (p *planner) markStore(e sqlparser.Expr, info *tableInfo, ec *schema.EncryptColumn, row int) {
	a, ok := e.(*sqlparser.Argument)
	if !ok || info.enc == nil {
		return
	}
	ea, ok := p.encArgs[a.Name]
	if !ok || ea.encrypt == "" {
		return
	}
	col := info.enc.physical.Column(ec.Cipher.Column)
	if col == nil {
		return
	}
	cs := storeCharset(info.enc.physical, col)
	switch cs {
	case "utf8mb3", "latin1", "ascii":
	default:
		return // utf8mb4 holds every value; the repertoire of others is not known
	}
	ea.store = &runtime.TextColumn{Table: info.name, Column: ec.Name, Charset: cs, Row: row}
	p.encArgs[a.Name] = ea
}

// storeCharset returns the character set of column c of t: its own, else
// its collation's, else the table's, else utf8mb4 (utf8 is utf8mb3).
func storeCharset(t *schema.Table, c *schema.Column) string {
	cs, coll := c.Charset, c.Collation
	if cs == "" && coll == "" {
		cs, coll = t.Charset, t.Collation
	}
	if cs == "" && coll != "" {
		cs, _, _ = strings.Cut(coll, "_")
	}
	switch cs {
	case "":
		return "utf8mb4"
	case "utf8":
		return "utf8mb3"
	}
	return cs
}

// readsTable reports whether n names a table other than DUAL at any depth.
// A derived table that names none (literal rows, such as the lookup rows
// bound in place of a correlated subquery, lookupSpec) holds no cipher
// text.
func readsTable(n sqlparser.SQLNode) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if t, ok := n.(*sqlparser.AliasedTableExpr); ok {
			if tn, ok := t.Expr.(sqlparser.TableName); !ok || !strings.EqualFold(tn.Name.String(), "dual") {
				found = true
			}
		}
		return !found, nil
	}, n)
	return found
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
	for node, sc := range p.scopes {
		if sc.kind == scopeDerived && readsTable(node) {
			// The derived table's columns are no encrypted logic columns:
			// the enclosing level would read the cipher text as values.
			return p.errorf(p.findWordFrom("SELECT", p.findWord("FROM")), "a derived table (a subquery in FROM) in a statement over an encrypted table is not supported yet: select from %s directly", encryptedTables(p.allRefs))
		}
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
	// Columns resolve in their own query level: the clone's SELECTs map
	// to the levels of the statement's, which they match one to one.
	levels := cloneLevels(p, src, stmt)
	stack := []*scope{p.root}
	encOf := func(c *sqlparser.ColName) (*colRef, *schema.EncryptColumn) {
		r, e := p.resolve(c, stack[len(stack)-1])
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
				fail(p.errorOn(a, "encrypted column %q must be compared with or set to a parameter or a literal, not %s", col, sqlparser.String(a)))
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
	if err := p.checkEncryptedUnion(src); err != nil {
		return nil, err
	}
	switch s := stmt.(type) {
	case *sqlparser.Insert:
		if sel, ok := s.Rows.(sqlparser.TableStatement); ok {
			if err := p.encryptInsertSelect(s, sel, levels, newArg); err != nil {
				return nil, err
			}
			break
		}
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
					p.markStore(e, cr.ref.info, ec, 1)
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
		if sel, ok := cur.Node().(*sqlparser.Select); ok && levels[sel] != nil {
			stack = append(stack, levels[sel])
		}
		switch n := cur.Node().(type) {
		case *sqlparser.Insert:
			if _, values := n.Rows.(sqlparser.Values); values {
				return false // done above
			}
			return true // INSERT … SELECT: its SELECT's filters
		case *sqlparser.UpdateExpr:
			return false // done above
		case *sqlparser.Order:
			// ORDER BY an alias or a position of a column read as cipher
			// text would sort by the cipher text.
			if name := p.cipherResult(n.Expr); name != "" {
				return fail(p.errorIn("ORDER", n.Expr, "encrypted column %q cannot be used in ORDER BY: %s", name, cipherOnly))
			}
		case *sqlparser.SelectExprs:
			// Before its items are visited: expanding * changes the list.
			if e := p.encryptStars(n, stack[len(stack)-1]); e != nil {
				return fail(e)
			}
		case *sqlparser.AliasedExpr:
			c, ok := n.Expr.(*sqlparser.ColName)
			if !ok {
				return true
			}
			cr, ec := encOf(c)
			if ec == nil {
				return true
			}
			if sc := stack[len(stack)-1]; sc.kind == scopeSubquery {
				// A subquery's values are compared, not returned: its
				// cipher text would be compared with values.
				return fail(p.errorOn(n, "encrypted column %q cannot be selected by a subquery: its values would be compared as cipher text; compare it with = or IN in the subquery's WHERE instead", ec.Name))
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
			if r, rok := n.Right.(*sqlparser.ColName); lok && rok {
				lr, lec := encOf(l)
				rr, rec := encOf(r)
				if lec == nil && rec == nil {
					return true
				}
				cmp, e := p.encryptedColumns(n, lr, lec, rr, rec)
				if e != nil {
					return fail(e)
				}
				cur.Replace(cmp)
				return false
			}
			if !lok {
				if r, rok := n.Right.(*sqlparser.ColName); rok {
					if _, ec := encOf(r); ec != nil {
						fail(p.errorOn(n, "put encrypted column %q on the left of %s", ec.Name, sqlparser.String(n)))
					}
				}
				return true
			}
			cr, ec := encOf(l)
			if ec == nil {
				return true
			}
			if sub, ok := n.Right.(*sqlparser.Subquery); ok {
				// x IN (SELECT y …): both sides compare their stored
				// text, when one encryptor writes both.
				if e := p.encryptedSubquery(n, cr, ec, sub, levels); e != nil {
					return fail(e)
				}
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
					return fail(p.errorOn(n, "LIKE on encrypted column %q needs a like-query column (likeQuery) in its !ENCRYPT rule", ec.Name))
				}
				cur.Replace(&sqlparser.ComparisonExpr{Operator: n.Operator, Left: rename(l, ec.LikeQuery.Column), Right: newArg(n.Right, ec.LikeQuery.Encryptor, ec.Name), Escape: n.Escape})
				return false
			default:
				return fail(p.errorOn(n, "encrypted column %q cannot be compared with %s: its cipher text does not keep the order of the values", ec.Name, n.Operator.ToString()))
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
				if _, ok := cur.Parent().(*sqlparser.WeightStringFuncExpr); ok {
					// A merge key over several data nodes (UNION, a join
					// key, DISTINCT, ORDER BY): the steps compare it.
					return fail(p.errorOn(n, "encrypted column %q cannot be compared across data nodes (a UNION's deduplication, a join key, DISTINCT or ORDER BY): its cipher text does not compare as its values; use UNION ALL, or join on a plain column", ec.Name))
				}
				return fail(p.errorf(p.usedAt(cur, n), "encrypted column %q cannot be used in %s: %s", ec.Name, contextOf(cur), cipherOnly))
			}
		}
		return true
	}, func(cur *sqlparser.Cursor) bool {
		if sel, ok := cur.Node().(*sqlparser.Select); ok && levels[sel] != nil {
			stack = stack[:len(stack)-1]
		}
		return true
	})
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

// usedAt is where an error about column n, the node at cur, points: its
// ORDER BY or GROUP BY item, else the expression around it, else n.
func (p *planner) usedAt(cur *sqlparser.Cursor, n *sqlparser.ColName) int {
	off := -1
	switch par := cur.Parent().(type) {
	case *sqlparser.Order:
		off = p.clauseNode("ORDER", n)
	case *sqlparser.GroupBy:
		off = p.clauseNode("GROUP", n)
	case sqlparser.Expr:
		off = p.nodeOffset(par, 0)
	}
	if off < 0 {
		off = p.nodeOffset(n, 0)
	}
	return off
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
				e := newArg(rows[r][i], d.encryptor, ec.Name)
				p.markStore(e, info, ec, r+1)
				outRows[r] = append(outRows[r], e)
			}
		}
	}
	for i, ue := range s.OnDup {
		if ec := info.enc.columns[strings.ToLower(ue.Name.Name.String())]; ec != nil && *err == nil {
			*err = p.errorIn("DUPLICATE", ue, "ON DUPLICATE KEY UPDATE of encrypted column %q is not supported yet; update it with an UPDATE statement of its own", ec.Name)
		}
		_ = i
	}
	s.Columns = outCols
	s.Rows = outRows
}

// encryptStars expands each `*` / `t.*` of list, a select list of level
// sc, over an encrypted table into its logic columns, each encrypted one
// read from its cipher (or plain) column under its logic name.
func (p *planner) encryptStars(list *sqlparser.SelectExprs, sc *scope) error {
	var out []sqlparser.SelectExpr
	changed := false
	for _, se := range list.Exprs {
		n, ok := se.(*sqlparser.StarExpr)
		if !ok {
			out = append(out, se)
			continue
		}
		q := n.TableName.Name.String()
		var exprs []sqlparser.SelectExpr
		expanded := false
		for _, r := range sc.refs {
			if q != "" && !(strings.EqualFold(r.alias, q) || r.alias == "" && strings.EqualFold(r.info.name, q)) {
				continue
			}
			qual := r.alias
			if qual == "" {
				qual = r.info.name
			}
			for _, c := range r.info.ddl.VisibleColumns() {
				ae := &sqlparser.AliasedExpr{Expr: sqlparser.NewColNameWithQualifier(c.Name, sqlparser.NewTableName(qual))}
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
			out = append(out, se)
			continue
		}
		if sc.using {
			return p.errorAt("USING", "cannot expand * over an encrypted table in a JOIN … USING: list the columns")
		}
		out = append(out, exprs...)
		changed = true
	}
	if changed {
		list.Exprs = out
	}
	return nil
}

func itoa(i int) string { return strconv.Itoa(i) }

// cloneLevels maps each SELECT of clone, a copy of src (the statement or
// its per-node form), to the query level of the matching SELECT of src:
// the copies have new nodes, visited in the same order. The top SELECT of
// a per-node statement is the statement's level.
func cloneLevels(p *planner, src, clone sqlparser.Statement) map[*sqlparser.Select]*scope {
	selects := func(n sqlparser.SQLNode) []*sqlparser.Select {
		var out []*sqlparser.Select
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if s, ok := n.(*sqlparser.Select); ok {
				out = append(out, s)
			}
			return true, nil
		}, n)
		return out
	}
	from, to := selects(src), selects(clone)
	levels := map[*sqlparser.Select]*scope{}
	if len(from) != len(to) {
		return levels
	}
	for i, s := range from {
		sc := p.scopes[s]
		if sc == nil && sqlparser.SQLNode(s) == src {
			sc = p.root
		}
		if sc != nil {
			levels[to[i]] = sc
		}
	}
	return levels
}

// encryptedTables names the encrypted tables among refs, for messages.
func encryptedTables(refs []*tableRef) string {
	var names []string
	for _, r := range refs {
		if r.info.enc != nil && !containsFold(names, r.info.name) {
			names = append(names, r.info.name)
		}
	}
	return strings.Join(names, ", ")
}

// unionSelects returns the SELECTs of a UNION in order and whether any of
// its operators is UNION DISTINCT.
func unionSelects(st sqlparser.TableStatement) (sels []*sqlparser.Select, distinct bool) {
	switch s := st.(type) {
	case *sqlparser.Select:
		return []*sqlparser.Select{s}, false
	case *sqlparser.Union:
		l, ld := unionSelects(s.Left)
		r, rd := unionSelects(s.Right)
		return append(l, r...), ld || rd || s.Distinct
	}
	return nil, false
}

// projectedCipher returns the encryptor that decrypts the value a select
// expression of level sc reads ("" for a value that is not cipher text)
// and the encrypted logic column it reads (nil for none).
func (p *planner) projectedCipher(se sqlparser.SelectExpr, sc *scope) (string, *schema.EncryptColumn) {
	ae, ok := se.(*sqlparser.AliasedExpr)
	if !ok {
		return "", nil
	}
	c, ok := ae.Expr.(*sqlparser.ColName)
	if !ok {
		return "", nil
	}
	r, err := p.resolve(c, sc)
	if err != nil || r == nil || r.ref.info.enc == nil {
		return "", nil
	}
	ec := r.ref.info.enc.columns[strings.ToLower(r.col.Name)]
	if ec == nil {
		return "", nil
	}
	if !r.ref.info.enc.queryWithCipher && ec.Plain != "" {
		return "", ec
	}
	return ec.Cipher.Encryptor, ec
}

// checkEncryptedUnion refuses a UNION (the statement src, or an INSERT's
// SELECT) whose SELECTs return an encrypted column where another SELECT
// returns something else at that place, or deduplicate one (UNION
// DISTINCT): the result column decrypts one encryptor's cipher text, and
// the data node would compare cipher text instead of values.
func (p *planner) checkEncryptedUnion(src sqlparser.Statement) error {
	var ts sqlparser.TableStatement
	switch s := src.(type) {
	case *sqlparser.Union:
		ts = s
	case *sqlparser.Insert:
		if u, ok := s.Rows.(*sqlparser.Union); ok {
			ts = u
		}
	}
	if ts == nil {
		return nil
	}
	sels, distinct := unionSelects(ts)
	var first []string
	for i, sel := range sels {
		sc := p.scopes[sel]
		if sc == nil {
			sc = p.root
		}
		for k, se := range sel.SelectExprs.Exprs {
			if _, star := se.(*sqlparser.StarExpr); star && encryptedTables(sc.refs) != "" {
				return p.errorOn(se, "SELECT %d of the UNION selects * of encrypted table %s: list its columns", i+1, encryptedTables(sc.refs))
			}
			dec, ec := p.projectedCipher(se, sc)
			if ec != nil && distinct {
				return p.errorAt("UNION", "UNION DISTINCT over encrypted column %q would compare its cipher text, not its values: use UNION ALL", ec.Name)
			}
			if i == 0 {
				first = append(first, dec)
				continue
			}
			if k < len(first) && first[k] != dec {
				name := sqlparser.String(se)
				if ec != nil {
					name = ec.Name
				}
				return p.errorOn(se, "column %d of the UNION is encrypted in one SELECT and not alike in another (SELECT %d: %s): a result column decrypts one encryptor's cipher text; select the same encrypted column in every SELECT", k+1, i+1, name)
			}
		}
	}
	return nil
}

// encryptedColumns rewrites a comparison of two columns at least one of
// which is encrypted (a join's ON, a WHERE across tables): equality of two
// encrypted columns whose filter columns one encryptor writes compares
// those (assisted-query, else cipher, columns), as ShardingSphere does;
// anything else cannot be exact and is refused with the reason.
func (p *planner) encryptedColumns(n *sqlparser.ComparisonExpr, lr *colRef, lec *schema.EncryptColumn, rr *colRef, rec *schema.EncryptColumn) (sqlparser.Expr, error) {
	l, r := n.Left.(*sqlparser.ColName), n.Right.(*sqlparser.ColName)
	if lec == nil || rec == nil {
		ec, plain := lec, r
		if ec == nil {
			ec, plain = rec, l
		}
		return nil, p.errorOn(n, "encrypted column %q cannot be compared with plain column %s: the data node holds its cipher text", ec.Name, sqlparser.String(plain))
	}
	switch n.Operator {
	case sqlparser.EqualOp, sqlparser.NotEqualOp, sqlparser.NullSafeEqualOp:
	default:
		return nil, p.errorOn(n, "encrypted columns %q and %q cannot be compared with %s: their cipher text does not keep the order of the values", lec.Name, rec.Name, n.Operator.ToString())
	}
	filter := func(cr *colRef, ec *schema.EncryptColumn) (string, string) {
		if !cr.ref.info.enc.queryWithCipher && ec.Plain != "" {
			return ec.Plain, ""
		}
		if ec.AssistedQuery != nil {
			return ec.AssistedQuery.Column, ec.AssistedQuery.Encryptor
		}
		return ec.Cipher.Column, ec.Cipher.Encryptor
	}
	lcol, lenc := filter(lr, lec)
	rcol, renc := filter(rr, rec)
	if lenc != renc {
		what := func(e string) string {
			if e == "" {
				return "its plain column"
			}
			return "encryptor " + e
		}
		return nil, p.errorOn(n, "encrypted columns %s and %s cannot be compared: their data nodes hold them through different encryptors (%s, %s), so equal values have different stored text; compare each with a value instead",
			sqlparser.String(l), sqlparser.String(r), what(lenc), what(renc))
	}
	return &sqlparser.ComparisonExpr{Operator: n.Operator,
		Left:  &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(lcol), Qualifier: l.Qualifier},
		Right: &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(rcol), Qualifier: r.Qualifier}}, nil
}

// encryptedSubquery rewrites `x IN (SELECT y …)` (or =, <> ... of a
// subquery) of encrypted column x (cr, ec) to compare the filter columns
// of x and of the subquery's encrypted column y when one encryptor writes
// both, in place; anything else is refused.
func (p *planner) encryptedSubquery(n *sqlparser.ComparisonExpr, cr *colRef, ec *schema.EncryptColumn, sub *sqlparser.Subquery, levels map[*sqlparser.Select]*scope) error {
	refuse := func() error {
		return p.errorOn(n, "encrypted column %q can be compared with a subquery only when the subquery selects one encrypted column that the same encryptors write: %s", ec.Name, sqlparser.String(n))
	}
	switch n.Operator {
	case sqlparser.EqualOp, sqlparser.NotEqualOp, sqlparser.InOp, sqlparser.NotInOp:
	default:
		return refuse()
	}
	sel, ok := sub.Select.(*sqlparser.Select)
	if !ok || levels[sel] == nil || len(sel.SelectExprs.Exprs) != 1 {
		return refuse()
	}
	ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return refuse()
	}
	c, ok := ae.Expr.(*sqlparser.ColName)
	if !ok {
		return refuse()
	}
	r, err := p.resolve(c, levels[sel])
	if err != nil || r == nil || r.ref.info.enc == nil || r.ref.info.enc.columns[strings.ToLower(r.col.Name)] == nil {
		return refuse()
	}
	cmp, err := p.encryptedColumns(&sqlparser.ComparisonExpr{Operator: sqlparser.EqualOp, Left: n.Left, Right: c}, cr, ec, r, r.ref.info.enc.columns[strings.ToLower(r.col.Name)])
	if err != nil {
		return err
	}
	eq := cmp.(*sqlparser.ComparisonExpr)
	n.Left = eq.Left
	ae.Expr = eq.Right
	return nil
}

// encryptInsertSelect rewrites INSERT … SELECT over encrypted tables: a
// target encrypted column takes the physical columns of a selected
// encrypted column that the same encryptors write (its stored text is
// then already right), as ShardingSphere requires; the proxy cannot
// encrypt values a SELECT reads on a data node, nor write cipher text into
// a plain column, and refuses those with the column.
func (p *planner) encryptInsertSelect(s *sqlparser.Insert, rows sqlparser.TableStatement, levels map[*sqlparser.Select]*scope, newArg func(sqlparser.Expr, string, string) sqlparser.Expr) error {
	info := p.refs[0].info
	sel, ok := rows.(*sqlparser.Select)
	if !ok {
		sels, _ := unionSelects(rows)
		for _, x := range sels {
			sc := levels[x]
			if sc == nil {
				sc = p.root
			}
			for _, se := range x.SelectExprs.Exprs {
				if _, ec := p.projectedCipher(se, sc); ec != nil || info.enc != nil {
					return p.errorAt("UNION", "INSERT … SELECT … UNION over an encrypted table is not supported yet: insert each SELECT's rows with a statement of its own")
				}
			}
		}
		return nil
	}
	sc := levels[sel]
	if sc == nil {
		return p.errorf(-1, "INSERT … SELECT: the SELECT's query level is not known")
	}
	cols := s.Columns
	if len(cols) == 0 {
		for _, c := range info.ddl.VisibleColumns() {
			cols = append(cols, sqlparser.NewIdentifierCI(c.Name))
		}
	}
	exprs := sel.SelectExprs.Exprs
	for _, se := range exprs {
		if _, star := se.(*sqlparser.StarExpr); star {
			return p.errorOn(se, "INSERT … SELECT * over an encrypted table: list the selected columns")
		}
	}
	if len(exprs) != len(cols) {
		return p.errorAt("SELECT", "INSERT … SELECT: %d columns, %d selected", len(cols), len(exprs))
	}
	var outCols sqlparser.Columns
	var outExprs []sqlparser.SelectExpr
	for i, c := range cols {
		var tec *schema.EncryptColumn
		if info.enc != nil {
			tec = info.enc.columns[strings.ToLower(c.String())]
		}
		_, sec := p.projectedCipher(exprs[i], sc)
		switch {
		case tec == nil && sec == nil:
			outCols = append(outCols, c)
			outExprs = append(outExprs, exprs[i])
			continue
		case tec == nil:
			return p.errorAt("SELECT", "INSERT … SELECT would write the cipher text of encrypted column %q into plain column %q of %s; select it through the proxy and insert the values instead", sec.Name, c.String(), info.name)
		case sec == nil && isValue(exprs[i]):
			// A value the statement holds (not one the SELECT reads):
			// encrypted here, as a VALUES row's.
			v := exprs[i].(*sqlparser.AliasedExpr).Expr
			for _, d := range writeColumns(tec) {
				outCols = append(outCols, sqlparser.NewIdentifierCI(d.column))
				e := newArg(v, d.encryptor, tec.Name)
				p.markStore(e, info, tec, 1)
				outExprs = append(outExprs, &sqlparser.AliasedExpr{Expr: e})
			}
			continue
		case sec == nil:
			return p.errorAt("SELECT", "INSERT … SELECT into encrypted column %q of %s needs a value (a literal or a parameter) or a selected encrypted column with the same encryptors (%s): the proxy cannot encrypt values the SELECT reads on a data node; insert them with VALUES instead", tec.Name, info.name, encryptorList(tec))
		}
		tw, sw := writeColumns(tec), writeColumns(sec)
		same := len(tw) == len(sw)
		for k := 0; same && k < len(tw); k++ {
			same = tw[k].encryptor == sw[k].encryptor && (tw[k].encryptor != "" || sw[k].column == sec.Plain)
		}
		same = same && (tec.AssistedQuery == nil) == (sec.AssistedQuery == nil) && (tec.LikeQuery == nil) == (sec.LikeQuery == nil)
		if !same {
			return p.errorAt("SELECT", "INSERT … SELECT into encrypted column %q of %s from encrypted column %q: their encryptors differ (%s; %s), so the stored text cannot be copied; the proxy cannot encrypt values the SELECT reads on a data node",
				tec.Name, info.name, sec.Name, encryptorList(tec), encryptorList(sec))
		}
		src := exprs[i].(*sqlparser.AliasedExpr).Expr.(*sqlparser.ColName)
		for k := range tw {
			outCols = append(outCols, sqlparser.NewIdentifierCI(tw[k].column))
			outExprs = append(outExprs, &sqlparser.AliasedExpr{Expr: &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(sw[k].column), Qualifier: src.Qualifier}})
		}
	}
	s.Columns = outCols
	sel.SelectExprs.Exprs = outExprs
	return nil
}

// isValue reports whether a select expression is a literal, NULL or a
// placeholder.
func isValue(se sqlparser.SelectExpr) bool {
	ae, ok := se.(*sqlparser.AliasedExpr)
	if !ok {
		return false
	}
	switch ae.Expr.(type) {
	case *sqlparser.Literal, *sqlparser.NullVal, *sqlparser.Argument:
		return true
	}
	return false
}

// encryptorList names what writes an encrypted column, for messages:
// "cipher aes, assisted query md5".
func encryptorList(ec *schema.EncryptColumn) string {
	out := "cipher " + ec.Cipher.Encryptor
	if ec.AssistedQuery != nil {
		out += ", assisted query " + ec.AssistedQuery.Encryptor
	}
	if ec.LikeQuery != nil {
		out += ", like query " + ec.LikeQuery.Encryptor
	}
	if ec.Plain != "" {
		out += ", plain column"
	}
	return out
}

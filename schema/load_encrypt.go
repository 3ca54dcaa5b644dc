package schema

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// encryptorTypes are the encryptor types accepted in !ENCRYPT (5.1–5.3 core
// plus CHAR_DIGEST_LIKE; 5.4+ core has only AES and MD5). They are checked
// syntactically here; runtime implements them.
var encryptorTypes = []string{"AES", "MD5", "CHAR_DIGEST_LIKE", "RC4", "SM3", "SM4"}

// encryptorProps lists the props an encryptor type knows, where shardgen
// checks them (AESEncryptAlgorithm, MD5 assisted encryptor).
var encryptorProps = map[string][]string{
	"AES": {"aes-key-value", "digest-algorithm-name"},
	"MD5": {"salt"},
}

// encryptState is a parsed !ENCRYPT rule.
type encryptState struct {
	rule     *EncryptRule
	encs     map[string]*algState
	encOrder []*algState
	refs     []encryptorRef
}

// encryptorRef is one use of an encryptor name by a column.
type encryptorRef struct {
	name    string
	node    *yaml.Node
	path    string
	role    string // "cipher", "assistedQuery" or "likeQuery"
	shape54 bool
}

// Column keys of the two !ENCRYPT shapes.
var (
	encryptColumnKeys51 = []string{
		"cipherColumn", "assistedQueryColumn", "likeQueryColumn", "plainColumn", "encryptorName",
		"assistedQueryEncryptorName", "likeQueryEncryptorName", "logicColumn",
	}
	encryptColumnKeys54 = []string{"name", "cipher", "assistedQuery", "likeQuery"}
)

// loadEncrypt parses !ENCRYPT in the 5.1–5.3 shape (cipherColumn,
// assistedQueryColumn, likeQueryColumn, plainColumn and encryptor names per
// column; queryWithCipherColumn on the rule and tables) or the 5.4+ shape
// (cipher / assistedQuery / likeQuery sub-objects {name, encryptorName}),
// detected per column. See spec §5.
func (l *loader) loadEncrypt(st *state, item, body *yaml.Node) {
	o := l.object(body, "!ENCRYPT", "tables", "encryptors", "queryWithCipherColumn")
	if o == nil {
		return
	}
	es := &encryptState{
		rule: &EncryptRule{Pos: l.pos(item), Encryptors: map[string]*AlgorithmSpec{}},
		encs: map[string]*algState{},
	}
	st.encrypt = es
	st.cfg.Encrypt = es.rule
	es.rule.QueryWithCipherColumn = l.boolean(o, "queryWithCipherColumn", true)
	es.encOrder = l.algorithms(o.get("encryptors"), "encryptors", es.encs, es.rule.Encryptors)

	seen := map[string]*yaml.Node{}
	for _, e := range l.entries(o.get("tables"), "tables") {
		name := strings.TrimSpace(e.key.Value)
		path := "!ENCRYPT tables." + name
		to := l.object(e.val, path, "name", "columns", "queryWithCipherColumn")
		if to == nil || name == "" {
			continue
		}
		if first := seen[strings.ToLower(name)]; first != nil {
			l.errorf(e.key, "%s: table %q is already configured at line %d (table names are case-insensitive)", path, name, first.Line)
			continue
		}
		seen[strings.ToLower(name)] = e.key
		if n := l.str(to, "name"); n != "" && !strings.EqualFold(n, name) {
			l.errorf(to.get("name"), "%s: name %q differs from the table's key %q", path, n, name)
		}
		t := &EncryptTable{Name: name, Pos: l.pos(e.key)}
		if to.has("queryWithCipherColumn") {
			q := l.boolean(to, "queryWithCipherColumn", true)
			t.QueryWithCipherColumn = &q
		}
		cols := l.entries(to.get("columns"), path+".columns")
		if len(cols) == 0 {
			l.errorf(to.at("columns"), "%s: columns is required", path)
		}
		for _, c := range cols {
			if col := l.encryptColumn(es, c, path+".columns."+strings.TrimSpace(c.key.Value)); col != nil {
				t.Columns = append(t.Columns, col)
			}
		}
		es.rule.Tables = append(es.rule.Tables, t)
	}
}

// encryptColumn parses one logic column in either shape.
func (l *loader) encryptColumn(es *encryptState, c pair, path string) *EncryptColumn {
	name := strings.TrimSpace(c.key.Value)
	shape54 := false
	if m := c.val; m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if contains(encryptColumnKeys54, m.Content[i].Value) {
				shape54 = true
			}
		}
	}
	col := &EncryptColumn{Name: name, Pos: l.pos(c.key)}
	if shape54 {
		o := l.object(c.val, path, encryptColumnKeys54...)
		if o == nil {
			return nil
		}
		if n := l.str(o, "name"); n != "" && !strings.EqualFold(n, name) {
			l.errorf(o.get("name"), "%s: name %q differs from the column's key %q", path, n, name)
		}
		if !o.has("cipher") {
			l.errorf(o.at("cipher"), "%s: cipher is required", path)
			return nil
		}
		d := l.encryptDerived(es, o.get("cipher"), path+".cipher", "cipher")
		if d == nil {
			return nil
		}
		col.Cipher = *d
		if o.has("assistedQuery") {
			col.AssistedQuery = l.encryptDerived(es, o.get("assistedQuery"), path+".assistedQuery", "assistedQuery")
		}
		if o.has("likeQuery") {
			col.LikeQuery = l.encryptDerived(es, o.get("likeQuery"), path+".likeQuery", "likeQuery")
		}
		return col
	}
	o := l.object(c.val, path, encryptColumnKeys51...)
	if o == nil {
		return nil
	}
	if n := l.str(o, "logicColumn"); n != "" && !strings.EqualFold(n, name) {
		l.errorf(o.get("logicColumn"), "%s: logicColumn %q differs from the column's key %q", path, n, name)
	}
	cipher := l.reqStr(o, "cipherColumn")
	enc := l.reqStr(o, "encryptorName")
	col.Cipher = EncryptDerived{Column: cipher, Encryptor: enc, Pos: l.pos(o.at("cipherColumn"))}
	if enc != "" {
		es.refs = append(es.refs, encryptorRef{name: enc, node: o.get("encryptorName"), path: path, role: "cipher"})
	}
	col.Plain = l.str(o, "plainColumn")
	// assistedQueryColumn: 5.1 fills it with the cipher encryptor's
	// assisted-query function; 5.3 names its own encryptor.
	for _, q := range []struct {
		col, enc, role string
		dst            **EncryptDerived
		def            string
	}{
		{"assistedQueryColumn", "assistedQueryEncryptorName", "assistedQuery", &col.AssistedQuery, enc},
		{"likeQueryColumn", "likeQueryEncryptorName", "likeQuery", &col.LikeQuery, ""},
	} {
		column, encName := l.str(o, q.col), l.str(o, q.enc)
		switch {
		case column == "" && encName != "":
			l.errorf(o.get(q.enc), "%s: %s is set but %s is not", path, q.enc, q.col)
		case column == "":
		default:
			if encName == "" {
				encName = q.def
			}
			if encName == "" {
				l.errorf(o.get(q.col), "%s: %s needs %s", path, q.col, q.enc)
				continue
			}
			at := o.get(q.enc)
			if at == nil {
				at = o.get("encryptorName")
			}
			*q.dst = &EncryptDerived{Column: column, Encryptor: encName, Pos: l.pos(o.get(q.col))}
			es.refs = append(es.refs, encryptorRef{name: encName, node: at, path: path, role: q.role})
		}
	}
	return col
}

// encryptDerived parses a 5.4+ {name, encryptorName} sub-object.
func (l *loader) encryptDerived(es *encryptState, n *yaml.Node, path, role string) *EncryptDerived {
	o := l.object(n, path, "name", "encryptorName")
	if o == nil {
		return nil
	}
	column, enc := l.reqStr(o, "name"), l.reqStr(o, "encryptorName")
	if column == "" || enc == "" {
		return nil
	}
	es.refs = append(es.refs, encryptorRef{name: enc, node: o.get("encryptorName"), path: path, role: role, shape54: true})
	return &EncryptDerived{Column: column, Encryptor: enc, Pos: l.pos(n)}
}

// resolveEncrypt checks the encryptors and every reference to one.
func (l *loader) resolveEncrypt(st *state) {
	es := st.encrypt
	if es == nil {
		return
	}
	for _, a := range es.encOrder {
		typ := a.spec.Type
		if typ == "" {
			continue
		}
		if !contains(encryptorTypes, typ) {
			l.errorf(a.typeNode, "encryptor %q: unknown type %q (known: %s)", a.spec.Name, typ, strings.Join(encryptorTypes, ", "))
			continue
		}
		if known, ok := encryptorProps[typ]; ok {
			for _, k := range sortedKeys(a.spec.Props) {
				if !contains(known, k) {
					l.errorAt(a.spec.PropsPos[k], "encryptor %q: unknown %s prop %q%s (known: %s)", a.spec.Name, typ, k, didYouMean(k, known), strings.Join(known, ", "))
				}
			}
		}
		if typ == "AES" && strings.TrimSpace(a.spec.Props["aes-key-value"]) == "" {
			at := a.typeNode
			if p, ok := a.spec.PropsPos["aes-key-value"]; ok {
				l.errorAt(p, "encryptor %q: AES needs props aes-key-value", a.spec.Name)
			} else {
				l.errorf(at, "encryptor %q: AES needs props aes-key-value", a.spec.Name)
			}
		}
		for _, k := range sortedKeys(a.spec.Props) {
			l.checkEnvRefs(a.vals[k], "encryptor "+strconv.Quote(a.spec.Name)+": "+k, a.spec.Props[k])
		}
	}
	for _, r := range es.refs {
		a := es.encs[r.name]
		if a == nil {
			l.errorf(r.node, "%s: encryptor %q is not defined in encryptors%s", r.path, r.name, didYouMean(r.name, sortedKeys(es.encs)))
			continue
		}
		a.used = true
		typ := a.spec.Type
		switch {
		case r.role == "likeQuery" && typ != "CHAR_DIGEST_LIKE" && contains(encryptorTypes, typ):
			l.errorf(r.node, "%s: likeQuery needs a like encryptor (CHAR_DIGEST_LIKE), but %q is %s", r.path, r.name, typ)
		case r.role != "likeQuery" && typ == "CHAR_DIGEST_LIKE":
			l.errorf(r.node, "%s: %s cannot use the like encryptor %q (CHAR_DIGEST_LIKE)", r.path, r.role, r.name)
		case r.role == "cipher" && r.shape54 && typ == "MD5":
			l.errorf(r.node, "%s: cipher needs an encryptor that can decrypt, but %q is MD5 (5.4+ allows MD5 only for assistedQuery)", r.path, r.name)
		}
	}
	for _, a := range es.encOrder {
		if !a.used {
			l.warnf(a.key, "encryptor %q is defined but no column uses it", a.spec.Name)
		}
	}
}

package schema

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// readWriteState is a parsed !READWRITE_SPLITTING rule.
type readWriteState struct {
	rule    *ReadWriteRule
	raw     []*rwGroupRaw
	groups  map[string]*ReadWriteGroup // by expanded group name
	lbs     map[string]*algState
	lbOrder []*algState
}

// rwShape is the YAML shape a read/write group is written in.
type rwShape uint8

const (
	rwShape51   rwShape = iota // type: Static, props: {write-data-source-name, read-data-source-names}
	rwShape52                  // staticStrategy: {writeDataSourceName, readDataSourceNames}
	rwShapeFlat                // 5.0 and 5.4+: writeDataSourceName, readDataSourceNames (+ transactionalReadQueryStrategy)
)

// rwGroupRaw is one group as written, before inline expansion.
type rwGroupRaw struct {
	key       *yaml.Node
	path      string
	shape     rwShape
	write     *yaml.Node   // write data source name (expression)
	reads     []*yaml.Node // 5.2+: one expression per list item
	reads51   *yaml.Node   // 5.1: "r0,r1"
	lbName    string
	lbNode    *yaml.Node
	tx        string
	txNode    *yaml.Node
	readsNode *yaml.Node // the list, for positions
}

// transactionalReadQueryStrategies are the 5.4+ values.
var transactionalReadQueryStrategies = []string{"PRIMARY", "FIXED", "DYNAMIC"}

// loadBalancerTypes are the load balancer types shardgen implements.
var loadBalancerTypes = []string{"ROUND_ROBIN", "RANDOM", "WEIGHT"}

// loadReadWrite parses !READWRITE_SPLITTING in any of its shapes (spec §6):
// 5.1 `dataSources.<g>: {type: Static, props: {write-data-source-name,
// read-data-source-names}, loadBalancerName}`; 5.2/5.3
// `dataSources.<g>: {staticStrategy: {writeDataSourceName,
// readDataSourceNames}, loadBalancerName}`; 5.4+ `dataSourceGroups.<g>:
// {writeDataSourceName, readDataSourceNames, transactionalReadQueryStrategy,
// loadBalancerName}` (5.0 and 5.4.0 wrote the same under dataSources).
func (l *loader) loadReadWrite(st *state, item, body *yaml.Node) {
	o := l.object(body, "!READWRITE_SPLITTING", "dataSourceGroups", "dataSources", "loadBalancers")
	if o == nil {
		return
	}
	rw := &readWriteState{
		rule:   &ReadWriteRule{Pos: l.pos(item), LoadBalancers: map[string]*AlgorithmSpec{}},
		groups: map[string]*ReadWriteGroup{},
		lbs:    map[string]*algState{},
	}
	st.rw = rw
	st.cfg.ReadWrite = rw.rule
	groupsKey := "dataSourceGroups"
	if o.present("dataSources") {
		if o.present("dataSourceGroups") {
			l.errorf(o.key("dataSources"), "!READWRITE_SPLITTING: give dataSourceGroups (5.4+) or dataSources (5.1–5.3), not both")
		} else {
			groupsKey = "dataSources"
		}
	}
	for _, e := range l.entries(o.get(groupsKey), groupsKey) {
		if g := l.parseRWGroup(e, groupsKey); g != nil {
			rw.raw = append(rw.raw, g)
		}
	}
	rw.lbOrder = l.algorithms(o.get("loadBalancers"), "loadBalancers", rw.lbs, rw.rule.LoadBalancers)
	for _, a := range rw.lbOrder {
		if a.spec.Type != "" && !contains(loadBalancerTypes, a.spec.Type) {
			l.errorf(a.typeNode, "load balancer %q: unknown type %q (known: %s)", a.spec.Name, a.spec.Type, strings.Join(loadBalancerTypes, ", "))
		}
	}
}

// parseRWGroup parses one group, detecting its shape from its keys.
func (l *loader) parseRWGroup(e pair, groupsKey string) *rwGroupRaw {
	name := strings.TrimSpace(e.key.Value)
	path := groupsKey + "." + name
	g := &rwGroupRaw{key: e.key, path: path, shape: rwShapeFlat}
	if m := e.val; m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			switch m.Content[i].Value {
			case "type", "props":
				g.shape = rwShape51
			case "staticStrategy", "dynamicStrategy":
				g.shape = rwShape52
			}
		}
	}
	var o *object
	switch g.shape {
	case rwShape51:
		o = l.object(e.val, path, "type", "props", "loadBalancerName")
		if o == nil {
			return nil
		}
		typ := l.reqStr(o, "type")
		switch strings.ToUpper(typ) {
		case "STATIC":
		case "DYNAMIC":
			l.errorf(o.get("type"), "%s: Dynamic read/write splitting (database discovery) is not supported by shardgen", path)
			return nil
		case "":
			return nil
		default:
			l.errorf(o.get("type"), "%s: type must be Static or Dynamic, got %q", path, typ)
			return nil
		}
		po := l.object(o.child("props"), path+".props", "write-data-source-name", "read-data-source-names")
		if po == nil {
			return nil
		}
		if l.reqStr(po, "write-data-source-name") == "" || l.reqStr(po, "read-data-source-names") == "" {
			return nil
		}
		g.write, g.reads51 = po.get("write-data-source-name"), po.get("read-data-source-names")
		g.tx = "PRIMARY" // 5.1 reads from the primary inside a transaction
	case rwShape52:
		o = l.object(e.val, path, "staticStrategy", "dynamicStrategy", "loadBalancerName")
		if o == nil {
			return nil
		}
		if o.present("dynamicStrategy") {
			l.errorf(o.key("dynamicStrategy"), "%s: dynamicStrategy (database discovery) is not supported by shardgen", path)
			return nil
		}
		so := l.object(o.child("staticStrategy"), path+".staticStrategy", "writeDataSourceName", "readDataSourceNames")
		if so == nil || !l.rwNames(g, so, path+".staticStrategy") {
			return nil
		}
		g.tx = "PRIMARY" // 5.2/5.3 default FIXED_PRIMARY; a load balancer prop may change it
	default:
		o = l.object(e.val, path, "writeDataSourceName", "readDataSourceNames", "transactionalReadQueryStrategy", "loadBalancerName")
		if o == nil || !l.rwNames(g, o, path) {
			return nil
		}
		g.tx = "DYNAMIC"
		if o.has("transactionalReadQueryStrategy") {
			tx := strings.ToUpper(l.str(o, "transactionalReadQueryStrategy"))
			if !contains(transactionalReadQueryStrategies, tx) {
				l.errorf(o.get("transactionalReadQueryStrategy"), "%s: transactionalReadQueryStrategy must be one of %s, got %q", path, strings.Join(transactionalReadQueryStrategies, ", "), l.str(o, "transactionalReadQueryStrategy"))
			} else {
				g.tx, g.txNode = tx, o.get("transactionalReadQueryStrategy")
			}
		}
	}
	g.lbName = l.str(o, "loadBalancerName")
	g.lbNode = o.at("loadBalancerName")
	return g
}

// rwNames reads writeDataSourceName and readDataSourceNames (5.2+).
func (l *loader) rwNames(g *rwGroupRaw, o *object, path string) bool {
	if l.reqStr(o, "writeDataSourceName") == "" {
		return false
	}
	g.write = o.get("writeDataSourceName")
	if !o.has("readDataSourceNames") {
		l.errorf(o.at("readDataSourceNames"), "%s: readDataSourceNames is required", path)
		return false
	}
	g.readsNode = o.get("readDataSourceNames")
	for _, r := range l.strList(g.readsNode, path+".readDataSourceNames") {
		g.reads = append(g.reads, r.node)
	}
	return len(g.reads) > 0
}

// resolveReadWrite expands the groups' inline names (5.2+: the group name,
// the write name and each read item expand to lists of one length, zipped
// into that many groups, as ReadwriteSplittingRule does), checks the data
// sources they name and the load balancers.
func (l *loader) resolveReadWrite(st *state) {
	rw := st.rw
	if rw == nil {
		return
	}
	writer := map[string]string{} // data source -> group using it as write
	reader := map[string]string{} // data source -> group using it as read
	for _, g := range rw.raw {
		var groups []*ReadWriteGroup
		if g.shape == rwShape51 {
			w, _ := l.scalar(g.write, g.path+": write-data-source-name")
			rs, _ := l.scalar(g.reads51, g.path+": read-data-source-names")
			grp := &ReadWriteGroup{Name: strings.TrimSpace(g.key.Value), WriteDataSource: strings.TrimSpace(w), Pos: l.pos(g.key)}
			for _, r := range strings.Split(rs, ",") {
				grp.ReadDataSources = append(grp.ReadDataSources, strings.TrimSpace(r))
			}
			groups = append(groups, grp)
		} else {
			groups = l.expandRWGroup(g)
		}
		for _, grp := range groups {
			grp.TransactionalReadQuery = g.tx
			grp.LoadBalancerName = g.lbName
			l.checkRWGroup(st, g, grp, writer, reader)
			if _, dup := rw.groups[grp.Name]; dup {
				l.errorf(g.key, "%s: read/write group %q is defined twice", g.path, grp.Name)
				continue
			}
			rw.groups[grp.Name] = grp
			rw.rule.Groups = append(rw.rule.Groups, grp)
		}
	}
	for _, a := range rw.lbOrder {
		l.checkLoadBalancer(rw, a)
	}
}

// expandRWGroup expands a 5.2+ group's names.
func (l *loader) expandRWGroup(g *rwGroupRaw) []*ReadWriteGroup {
	names, ok := l.expandInline(g.key, g.path+": group name")
	if !ok {
		return nil
	}
	writes, ok := l.expandInline(g.write, g.path+": writeDataSourceName")
	if !ok {
		return nil
	}
	if len(writes) != len(names) {
		l.errorf(g.write, "%s: writeDataSourceName expands to %d names but the group name to %d", g.path, len(writes), len(names))
		return nil
	}
	reads := make([][]string, len(g.reads))
	for i, r := range g.reads {
		if reads[i], ok = l.expandInline(r, g.path+": readDataSourceNames"); !ok {
			return nil
		}
		if len(reads[i]) != len(names) {
			l.errorf(r, "%s: read data source %q expands to %d names but the group name to %d (list each read data source of a group as its own item)", g.path, r.Value, len(reads[i]), len(names))
			return nil
		}
	}
	out := make([]*ReadWriteGroup, len(names))
	for i, n := range names {
		grp := &ReadWriteGroup{Name: strings.TrimSpace(n), WriteDataSource: strings.TrimSpace(writes[i]), Pos: l.pos(g.key)}
		for _, r := range reads {
			grp.ReadDataSources = append(grp.ReadDataSources, strings.TrimSpace(r[i]))
		}
		out[i] = grp
	}
	return out
}

// checkRWGroup checks that a group's data sources exist and that no data
// source is the write (or a read) data source of two groups
// (ReadwriteSplittingRuleConfigurationChecker).
func (l *loader) checkRWGroup(st *state, g *rwGroupRaw, grp *ReadWriteGroup, writer, reader map[string]string) {
	wAt, rAt := g.write, g.readsNode
	if g.shape == rwShape51 {
		rAt = g.reads51
	}
	if rAt == nil {
		rAt = g.key
	}
	if _, ok := st.dsByName[grp.WriteDataSource]; !ok {
		l.errorf(wAt, "%s: write data source %q is not defined in dataSources", g.path, grp.WriteDataSource)
	} else if other, dup := writer[grp.WriteDataSource]; dup {
		l.errorf(wAt, "%s: data source %q is already the write data source of group %q", g.path, grp.WriteDataSource, other)
	} else {
		writer[grp.WriteDataSource] = grp.Name
	}
	seen := map[string]bool{}
	for _, r := range grp.ReadDataSources {
		switch {
		case r == "":
			l.errorf(rAt, "%s: empty read data source name", g.path)
		case seen[r]:
			l.errorf(rAt, "%s: read data source %q is listed twice", g.path, r)
		case st.dsByName[r] == nil:
			l.errorf(rAt, "%s: read data source %q is not defined in dataSources", g.path, r)
		case reader[r] != "":
			l.errorf(rAt, "%s: data source %q is already a read data source of group %q", g.path, r, reader[r])
		default:
			reader[r] = grp.Name
		}
		seen[r] = true
	}
	if grp.LoadBalancerName != "" {
		a := st.rw.lbs[grp.LoadBalancerName]
		if a == nil {
			l.errorf(g.lbNode, "%s: load balancer %q is not defined in loadBalancers%s", g.path, grp.LoadBalancerName, didYouMean(grp.LoadBalancerName, sortedKeys(st.rw.lbs)))
			return
		}
		a.used = true
		if g.shape == rwShape52 {
			if v, ok := a.spec.Props["transaction-read-query-strategy"]; ok {
				switch strings.ToUpper(strings.TrimSpace(v)) {
				case "FIXED_PRIMARY":
				case "FIXED_REPLICA":
					grp.TransactionalReadQuery = "FIXED"
				case "DYNAMIC_REPLICA":
					grp.TransactionalReadQuery = "DYNAMIC"
				default:
					l.errorf(a.vals["transaction-read-query-strategy"], "load balancer %q: transaction-read-query-strategy must be FIXED_PRIMARY, FIXED_REPLICA or DYNAMIC_REPLICA, got %q", a.spec.Name, v)
				}
			}
		}
	}
}

// checkLoadBalancer checks a load balancer's props: WEIGHT names read data
// sources of every group that uses it, with numeric weights
// (WeightLoadBalanceAlgorithm).
func (l *loader) checkLoadBalancer(rw *readWriteState, a *algState) {
	if !a.used {
		l.warnf(a.key, "load balancer %q is defined but no group uses it", a.spec.Name)
	}
	if a.spec.Type != "WEIGHT" {
		return
	}
	if len(a.spec.Props) == 0 {
		l.errorf(a.typeNode, "load balancer %q: WEIGHT needs a weight for each read data source in props", a.spec.Name)
		return
	}
	for _, k := range sortedKeys(a.spec.Props) {
		if k == "transaction-read-query-strategy" {
			continue
		}
		v := a.spec.Props[k]
		if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			l.errorf(a.vals[k], "load balancer %q: weight of %q must be a number, got %q", a.spec.Name, k, v)
		}
		for _, g := range rw.rule.Groups {
			if g.LoadBalancerName == a.spec.Name && !contains(g.ReadDataSources, k) {
				l.errorAt(a.spec.PropsPos[k], "load balancer %q: %q is not a read data source of group %q (read: %s)", a.spec.Name, k, g.Name, strings.Join(g.ReadDataSources, ", "))
			}
		}
	}
}

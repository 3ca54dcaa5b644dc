package runtime

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// TxReadStrategy is where a read/write group sends the reads of a
// transaction (ShardingSphere 5.4+ transactionalReadQueryStrategy,
// ../shared/spec/shardingsphere.md §6).
type TxReadStrategy uint8

const (
	// TxReadDynamic (DYNAMIC, the 5.4+ default): each read of a
	// transaction goes to a replica chosen by the load balancer.
	TxReadDynamic TxReadStrategy = iota
	// TxReadPrimary (PRIMARY; 5.1–5.3 always): every read of a transaction
	// goes to the write data source, in the transaction.
	TxReadPrimary
	// TxReadFixed (FIXED): the first read of a transaction picks a replica
	// with the load balancer; the transaction's later reads reuse it.
	TxReadFixed
)

// String returns the YAML spelling: PRIMARY, FIXED or DYNAMIC.
func (s TxReadStrategy) String() string {
	switch s {
	case TxReadPrimary:
		return "PRIMARY"
	case TxReadFixed:
		return "FIXED"
	case TxReadDynamic:
		return "DYNAMIC"
	}
	return "TxReadStrategy(" + strconv.Itoa(int(s)) + ")"
}

// MarshalJSON returns the String form, quoted.
func (s TxReadStrategy) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(s.String())), nil }

// ReadWriteGroupConfig is one group of a !READWRITE_SPLITTING rule: a logic
// data source name (what sharding data nodes and DB.Sources may name) that
// stands for one write data source and its read replicas.
//
// Both YAML shapes give this (spec §6):
//
//	# 5.4+
//	dataSourceGroups:
//	  readwrite_ds:
//	    writeDataSourceName: write_ds
//	    readDataSourceNames: [read_ds_0, read_ds_1]
//	    transactionalReadQueryStrategy: FIXED   # default DYNAMIC
//	    loadBalancerName: lb                    # default: ROUND_ROBIN
//	# 5.1 (transactions always read the primary)
//	dataSources:
//	  readwrite_ds:
//	    type: Static
//	    props: {write-data-source-name: write_ds, read-data-source-names: "read_ds_0,read_ds_1"}
//	    loadBalancerName: lb
//
// The 5.2/5.3 `staticStrategy: {writeDataSourceName, readDataSourceNames}`
// shape is read too. A group name, write name and read names may be inline
// expressions (`rw_${0..1}`, `ds_${0..1}`, `ds_${0..1}_r`): they must
// expand to as many names as the group name, the i-th of each going to the
// i-th group.
type ReadWriteGroupConfig struct {
	Name             string
	WriteDataSource  string
	ReadDataSources  []string
	TxReads          TxReadStrategy
	LoadBalancerName string // "" : ROUND_ROBIN
}

// NamedLoadBalancer is one entry of the rule's loadBalancers: name, type
// (ROUND_ROBIN, RANDOM, WEIGHT) and props (WEIGHT: `<read data source>:
// <weight>`).
type NamedLoadBalancer struct {
	Name  string
	Type  string
	Props Props
}

// readWrite reads the !READWRITE_SPLITTING rule of rules, if any.
func (p *deployParser) readWrite(rules *yaml.Node) ([]ReadWriteGroupConfig, []NamedLoadBalancer) {
	if rules.Kind != yaml.SequenceNode {
		return nil, nil
	}
	var groups []ReadWriteGroupConfig
	var lbs []NamedLoadBalancer
	for _, r := range rules.Content {
		r = resolve(r)
		if r.Tag != "!READWRITE_SPLITTING" || r.Kind != yaml.MappingNode {
			continue
		}
		for _, kv := range p.pairs(r, "!READWRITE_SPLITTING") {
			switch kv.key.Value {
			case "dataSourceGroups", "dataSources":
				if kv.value.Kind != yaml.MappingNode {
					p.errorf(kv.value, "!READWRITE_SPLITTING "+kv.key.Value+" must be a mapping of group names to groups")
					continue
				}
				for _, g := range p.pairs(kv.value, kv.key.Value) {
					groups = append(groups, p.rwGroup(g)...)
				}
			case "loadBalancers":
				if kv.value.Kind != yaml.MappingNode {
					p.errorf(kv.value, "!READWRITE_SPLITTING loadBalancers must be a mapping")
					continue
				}
				for _, e := range p.pairs(kv.value, "loadBalancers") {
					lb := NamedLoadBalancer{Name: e.key.Value}
					if e.value.Kind != yaml.MappingNode {
						p.errorf(e.value, "load balancer "+strconv.Quote(lb.Name)+" must be a mapping with type and props")
						continue
					}
					for _, f := range p.pairs(e.value, "load balancer "+strconv.Quote(lb.Name)) {
						switch f.key.Value {
						case "type":
							lb.Type, _ = p.scalar(f.value, "load balancer "+strconv.Quote(lb.Name)+" type")
						case "props":
							lb.Props = p.props(f.value)
						}
					}
					lbs = append(lbs, lb)
				}
			}
		}
	}
	return groups, lbs
}

// rwGroup reads one group in any shape and expands its inline expressions.
func (p *deployParser) rwGroup(g yamlPair) []ReadWriteGroupConfig {
	where := "read/write group " + strconv.Quote(g.key.Value)
	if g.value.Kind != yaml.MappingNode {
		p.errorf(g.value, where+" must be a mapping")
		return nil
	}
	var (
		write, lb string
		reads     []string
		tx        = TxReadDynamic
		typ       string
		ok        = true
	)
	str := func(n *yaml.Node, what string) string {
		s, good := p.scalar(n, where+": "+what)
		if !good {
			ok = false
		}
		return strings.TrimSpace(s)
	}
	list := func(n *yaml.Node, what string) []string {
		if n.Kind == yaml.SequenceNode {
			var out []string
			for _, it := range n.Content {
				out = append(out, str(resolve(it), what))
			}
			return out
		}
		return []string{str(n, what)}
	}
	names := func(m *yaml.Node, writeKey, readKey string) {
		for _, f := range p.pairs(m, where) {
			switch f.key.Value {
			case writeKey:
				write = str(f.value, writeKey)
			case readKey:
				reads = list(f.value, readKey)
			}
		}
	}
	for _, f := range p.pairs(g.value, where) {
		switch f.key.Value {
		case "writeDataSourceName":
			write = str(f.value, f.key.Value)
		case "readDataSourceNames":
			reads = list(f.value, f.key.Value)
		case "transactionalReadQueryStrategy":
			switch s := strings.ToUpper(str(f.value, f.key.Value)); s {
			case "PRIMARY":
				tx = TxReadPrimary
			case "FIXED":
				tx = TxReadFixed
			case "DYNAMIC", "":
				tx = TxReadDynamic
			default:
				p.errorf(f.value, where+": transactionalReadQueryStrategy must be PRIMARY, FIXED or DYNAMIC, got "+strconv.Quote(s))
				ok = false
			}
		case "loadBalancerName":
			lb = str(f.value, f.key.Value)
		case "type":
			typ = str(f.value, "type")
			tx = TxReadPrimary // 5.1: transactions read the primary
		case "props":
			if f.value.Kind == yaml.MappingNode {
				names(f.value, "write-data-source-name", "read-data-source-names")
			}
		case "staticStrategy":
			tx = TxReadPrimary // 5.2/5.3 default FIXED_PRIMARY
			if f.value.Kind == yaml.MappingNode {
				names(f.value, "writeDataSourceName", "readDataSourceNames")
			}
		case "dynamicStrategy":
			p.errorf(f.key, where+": dynamicStrategy (database discovery) is not supported")
			ok = false
		}
	}
	if typ != "" && !strings.EqualFold(typ, "Static") {
		p.errorf(g.value, where+": type must be Static, got "+strconv.Quote(typ)+" (Dynamic read/write splitting is not supported)")
		return nil
	}
	if write == "" && ok {
		p.errorf(g.key, where+": the write data source name is required")
		return nil
	}
	if !ok {
		return nil
	}
	groupNames, err := ExpandInlineList(strings.TrimSpace(g.key.Value))
	if err != nil || len(groupNames) == 0 {
		p.errorf(g.key, where+": bad group name: "+errText(err))
		return nil
	}
	n := len(groupNames)
	expand := func(expr, what string) []string {
		out, err := ExpandInlineList(expr)
		if err != nil {
			p.errorf(g.value, where+": "+what+" "+strconv.Quote(expr)+": "+err.Error())
			return nil
		}
		if len(out) == n {
			return out
		}
		if n == 1 && what != "writeDataSourceName" { // one group: "r0,r1" or r_${0..1} lists its replicas
			return out
		}
		p.errorf(g.value, where+": "+what+" "+strconv.Quote(expr)+" gives "+strconv.Itoa(len(out))+
			" names for "+strconv.Itoa(n)+" groups")
		return nil
	}
	writes := expand(write, "writeDataSourceName")
	if writes == nil {
		return nil
	}
	out := make([]ReadWriteGroupConfig, n)
	for i := range out {
		out[i] = ReadWriteGroupConfig{Name: groupNames[i], WriteDataSource: writes[i], TxReads: tx, LoadBalancerName: lb}
	}
	for _, r := range reads {
		rs := expand(r, "readDataSourceNames")
		if rs == nil {
			return nil
		}
		for i := range out {
			if n == 1 {
				out[0].ReadDataSources = append(out[0].ReadDataSources, rs...)
			} else {
				out[i].ReadDataSources = append(out[i].ReadDataSources, rs[i])
			}
		}
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return "no name"
	}
	return err.Error()
}

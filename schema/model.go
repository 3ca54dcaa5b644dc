package schema

import (
	"fmt"

	"github.com/shardgen/shardgen/runtime"
)

// Pos is a position in a user's file: 1-based line and column. The zero Pos
// means "no position" (e.g. a value synthesised from a default).
type Pos struct {
	File string
	Line int
	Col  int
}

// String formats p as file:line:col, dropping the parts that are unknown.
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Config is one loaded ShardingSphere 5.x configuration (a JDBC YAML or a
// proxy database-*.yaml): the logic database, its data sources and rules.
// Slices keep the order of the YAML so output is deterministic.
type Config struct {
	File         string
	DatabaseName string // databaseName (5.1.0/5.1.1: schemaName); default "logic_db"
	DataSources  []*DataSource
	Sharding     *ShardingRule     // nil when there is no !SHARDING rule
	Broadcast    *BroadcastRule    // !BROADCAST, or 5.1 broadcastTables inside !SHARDING
	Single       *SingleRule       // !SINGLE
	Encrypt      *EncryptRule      // !ENCRYPT
	ReadWrite    *ReadWriteRule    // !READWRITE_SPLITTING
	Props        runtime.Props     // props:, values as text
	PropsPos     map[string]Pos    // position of each props key
	Tables       map[string]*Table // DDL, by lower-case logic table name; filled by AttachDDL

	// LogicDataSources are the data source names as the sharding, broadcast
	// and single rules see them: read/write groups (in rule order) replace
	// their members, followed by the other data sources in YAML order
	// (ShardingSphere's aggregated data sources). Tables without
	// actualDataNodes and broadcast tables live on each of them.
	LogicDataSources []string
	// Warnings are problems ShardingSphere accepts but that are probably
	// mistakes, e.g. an algorithm defined but never used. Nil when none.
	Warnings Errors
	// DroppedEncryptColumns are the encrypt columns the !ENCRYPT rule
	// lists whose column an ALTER TABLE of the DDL dropped (CheckDDL), one
	// problem each, naming the statement. CheckDDL does not return them:
	// shardgen migrate needs the rule as it is to drop the physical
	// columns on the servers; the generator refuses them. Nil when none.
	DroppedEncryptColumns Errors
}

// DataSource is one entry of dataSources: a MySQL database reached through
// one connection pool.
type DataSource struct {
	Name   string
	Config runtime.DataSourceConfig
	Pos    Pos
}

// ShardingRule is the !SHARDING rule.
type ShardingRule struct {
	Tables                  []*TableRule // tables: then autoTables:, in YAML order
	BindingGroups           []*BindingGroup
	DefaultDatabaseStrategy *Strategy // nil: none
	DefaultTableStrategy    *Strategy // nil: none
	DefaultKeyGenerate      *KeyGenerateStrategy
	DefaultShardingColumn   string
	Algorithms              map[string]*AlgorithmSpec // shardingAlgorithms by name
	KeyGenerators           map[string]*AlgorithmSpec // keyGenerators by name
	Auditors                map[string]*AlgorithmSpec
	DefaultAuditStrategy    *AuditStrategy
	Pos                     Pos
}

// TableRule is one logic table of a !SHARDING rule (tables: or autoTables:).
type TableRule struct {
	LogicTable       string
	DataNodes        []DataNode // expanded actualDataNodes (or the autoTables layout), in order
	DatabaseStrategy *Strategy  // effective: own, else the default; nil means none (every data source)
	TableStrategy    *Strategy  // effective: own, else the default; nil means none (every table)
	KeyGenerate      *KeyGenerateStrategy
	Audit            *AuditStrategy
	Auto             bool // from autoTables: (one shardingStrategy, auto algorithm)
	Pos              Pos
}

// DataNode is one actual table on one data source: ShardingSphere's
// "ds_0.t_order_0".
type DataNode struct {
	DataSource string
	Table      string
}

// String returns "ds.table".
func (n DataNode) String() string { return n.DataSource + "." + n.Table }

// StrategyKind is the kind of a sharding strategy.
type StrategyKind uint8

const (
	StrategyNone     StrategyKind = iota // `none:` — every target
	StrategyStandard                     // `standard:` — one sharding column
	StrategyComplex                      // `complex:` — several sharding columns
	StrategyHint                         // `hint:` — values from a hint, not SQL
)

var strategyNames = [...]string{"none", "standard", "complex", "hint"}

// String returns the YAML key of the kind, e.g. "standard".
func (k StrategyKind) String() string { return strategyNames[k] }

// MarshalJSON encodes the kind as its name.
func (k StrategyKind) MarshalJSON() ([]byte, error) { return []byte(`"` + k.String() + `"`), nil }

// Strategy is a databaseStrategy, tableStrategy or (autoTables)
// shardingStrategy.
type Strategy struct {
	Kind          StrategyKind
	Columns       []string       // standard: one; complex: the shardingColumns list; hint: none
	AlgorithmName string         // key into ShardingRule.Algorithms
	Algorithm     *AlgorithmSpec // resolved
	Pos           Pos
}

// AlgorithmSpec is one named algorithm (sharding, key generator or auditor)
// with its props, validated by constructing it.
type AlgorithmSpec struct {
	Name     string
	Type     string // upper case, e.g. "MOD"
	Props    runtime.Props
	PropsPos map[string]Pos
	Pos      Pos
	// Sharding is the configured algorithm for shardingAlgorithms entries
	// (nil for key generators and auditors).
	Sharding runtime.Algorithm
}

// KeyGenerateStrategy is keyGenerateStrategy: which column gets generated
// keys and from which generator.
type KeyGenerateStrategy struct {
	Column        string
	GeneratorName string
	Generator     *AlgorithmSpec
	Pos           Pos
}

// AuditStrategy is auditStrategy / defaultAuditStrategy.
type AuditStrategy struct {
	AuditorNames     []string
	AllowHintDisable bool
	Pos              Pos
}

// BindingGroup is one entry of bindingTables: logic tables whose rows with the
// same sharding value live on data nodes of the same index.
type BindingGroup struct {
	Name   string   // 5.4+ "name:t_a, t_b" form; empty otherwise
	Tables []string // logic table names as configured, in order
	Pos    Pos
}

// BroadcastRule lists tables copied identically to every data source.
type BroadcastRule struct {
	Tables []string
	Pos    Pos
}

// SingleRule is !SINGLE: unsharded tables on one data source.
type SingleRule struct {
	Tables            []string // "ds.t", "ds.*", "*.*" as written
	DefaultDataSource string
	Pos               Pos
}

// EncryptRule is !ENCRYPT in either the 5.1 or the 5.4+ shape, normalised.
type EncryptRule struct {
	Tables                []*EncryptTable
	Encryptors            map[string]*AlgorithmSpec
	QueryWithCipherColumn bool // 5.1 rule level; default true
	Pos                   Pos
}

// EncryptTable is the encryption of one logic table.
type EncryptTable struct {
	Name                  string
	Columns               []*EncryptColumn
	QueryWithCipherColumn *bool // 5.1 table level; nil inherits the rule's
	Pos                   Pos
}

// EncryptColumn is one logic column stored encrypted.
type EncryptColumn struct {
	Name          string
	Cipher        EncryptDerived  // required
	AssistedQuery *EncryptDerived // optional
	LikeQuery     *EncryptDerived // optional
	Plain         string          // 5.1 plainColumn, optional
	Pos           Pos
}

// EncryptDerived is a physical column derived from the logic column by an
// encryptor (cipher, assisted query or like query column).
type EncryptDerived struct {
	Column    string
	Encryptor string // key into EncryptRule.Encryptors
	Pos       Pos
}

// ReadWriteRule is !READWRITE_SPLITTING in either shape, normalised.
type ReadWriteRule struct {
	Groups        []*ReadWriteGroup
	LoadBalancers map[string]*AlgorithmSpec
	Pos           Pos
}

// ReadWriteGroup is one read/write data source group: a logic data source
// name that sharding data nodes may refer to.
type ReadWriteGroup struct {
	Name                   string
	WriteDataSource        string
	ReadDataSources        []string
	TransactionalReadQuery string // PRIMARY | FIXED | DYNAMIC (default DYNAMIC)
	LoadBalancerName       string
	Pos                    Pos
}

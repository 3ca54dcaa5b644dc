package runtime

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	propStrategy           = "strategy"
	propAlgorithmClassName = "algorithmClassName"
)

// ClassBasedStrategy is the `strategy` property of a CLASS_BASED algorithm:
// which kind of sharding strategy the user's algorithm serves.
type ClassBasedStrategy uint8

const (
	// ClassBasedStandard: the user's value implements StandardShardingFunc.
	ClassBasedStandard ClassBasedStrategy = iota
	// ClassBasedComplex: the user's value implements ComplexShardingFunc.
	ClassBasedComplex
	// ClassBasedHint: the user's value implements HintShardingFunc.
	ClassBasedHint
)

var classBasedStrategyNames = [...]string{"STANDARD", "COMPLEX", "HINT"}

// String returns the strategy as ShardingSphere spells it, e.g. "STANDARD".
func (s ClassBasedStrategy) String() string {
	if int(s) < len(classBasedStrategyNames) {
		return classBasedStrategyNames[s]
	}
	return fmt.Sprintf("ClassBasedStrategy(%d)", uint8(s))
}

// MarshalJSON encodes the strategy as its name.
func (s ClassBasedStrategy) MarshalJSON() ([]byte, error) {
	return []byte(`"` + s.String() + `"`), nil
}

// StandardShardingFunc is a user-written standard sharding algorithm, the Go
// form of ShardingSphere's StandardShardingAlgorithm. targets are the
// available target names in data node order (data sources for a database
// strategy, actual tables of one data source for a table strategy); the
// slice is shared and must not be modified. Implementations must be safe
// for concurrent use.
type StandardShardingFunc interface {
	// DoSharding returns the target name for one sharding value (from = or
	// one IN item); v is never NULL. Java: doSharding(Collection,
	// PreciseShardingValue).
	DoSharding(targets []string, v Value) (string, error)
	// DoRangeSharding returns the target names a range may reach. Java:
	// doSharding(Collection, RangeShardingValue).
	DoRangeSharding(targets []string, r Range) ([]string, error)
}

// ComplexShardingValue is the sharding condition handed to a
// ComplexShardingFunc, the Go form of ComplexKeysShardingValue: Values[i]
// (= and IN values) and Ranges[i] belong to Columns[i]; both nil means the
// statement has no condition on that column. The slices are shared and must
// not be modified.
type ComplexShardingValue struct {
	Columns []string
	Values  [][]Value
	Ranges  []*Range
}

// ComplexShardingFunc is a user-written complex sharding algorithm, the Go
// form of ShardingSphere's ComplexKeysShardingAlgorithm. Implementations
// must be safe for concurrent use and must not modify targets.
type ComplexShardingFunc interface {
	DoSharding(targets []string, v ComplexShardingValue) ([]string, error)
}

// HintShardingFunc is a user-written hint sharding algorithm, the Go form of
// ShardingSphere's HintShardingAlgorithm. It is called only with at least
// one value (no hint value routes to every target without calling it).
// Implementations must be safe for concurrent use and must not modify
// targets or values.
type HintShardingFunc interface {
	DoSharding(targets []string, values []Value) ([]string, error)
}

// ShardingFuncInit is implemented by a user algorithm that wants the
// algorithm's props, like ShardingSphere's ShardingAlgorithm.init(Properties).
// Use calls Init once, before the algorithm is bound.
type ShardingFuncInit interface {
	Init(props Props) error
}

// ClassBasedAlgorithm is ShardingSphere's CLASS_BASED algorithm: routing is
// delegated to a user-written algorithm. In ShardingSphere
// `algorithmClassName` is a Java class; in shardgen it names a Go value as
// "import/path.Name" (e.g. "example.com/app/shard.OrderAlgorithm"), which
// the generator resolves and type-checks against the interface the strategy
// needs; generated code then attaches it with Use.
//
// Props:
//   - strategy (required): STANDARD, COMPLEX or HINT, case-insensitive.
//   - algorithmClassName (required): "import/path.Name", Name exported.
//   - anything else is kept and handed to ShardingFuncInit.Init.
//
// Source: ShardingSphere ClassBasedShardingAlgorithm
// (https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#class-based-sharding-algorithm).
type ClassBasedAlgorithm struct {
	strategy   ClassBasedStrategy
	className  string
	importPath string
	name       string
	props      Props
	impl       any
}

var (
	_ StandardAlgorithm = (*ClassBasedAlgorithm)(nil)
	_ ComplexAlgorithm  = (*ClassBasedAlgorithm)(nil)
	_ HintAlgorithm     = (*ClassBasedAlgorithm)(nil)
)

func newClassBasedAlgorithm(props Props) (Algorithm, error) {
	s, err := props.Required(propStrategy)
	if err != nil {
		return nil, err
	}
	strategy := slices.Index(classBasedStrategyNames[:], strings.ToUpper(s))
	if strategy < 0 {
		return nil, &PropError{Prop: propStrategy, Msg: fmt.Sprintf("must be STANDARD, COMPLEX or HINT, got %q", s)}
	}
	className, err := props.Required(propAlgorithmClassName)
	if err != nil {
		return nil, err
	}
	path, name, err := splitGoName(className)
	if err != nil {
		return nil, &PropError{Prop: propAlgorithmClassName, Msg: err.Error()}
	}
	return &ClassBasedAlgorithm{
		strategy:   ClassBasedStrategy(strategy),
		className:  className,
		importPath: path,
		name:       name,
		props:      maps.Clone(props),
	}, nil
}

// splitGoName splits "import/path.Name" and checks its form: the import path
// is one or more '/'-separated elements of letters, digits and ._~+-
// (not "." or ".."), and Name is an exported Go identifier.
func splitGoName(s string) (path, name string, err error) {
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || dot < strings.LastIndexByte(s, '/') {
		return "", "", fmt.Errorf("must name a Go value as \"import/path.Name\", got %q", s)
	}
	path, name = s[:dot], s[dot+1:]
	for _, elem := range strings.Split(path, "/") {
		if elem == "" || elem == "." || elem == ".." || strings.IndexFunc(elem, func(r rune) bool {
			return !(r < utf8.RuneSelf && (isIdentPart(byte(r)) || strings.ContainsRune(".~+-", r)))
		}) >= 0 {
			return "", "", fmt.Errorf("has an invalid import path %q in %q", path, s)
		}
	}
	first, _ := utf8.DecodeRuneInString(name)
	if name == "" || !unicode.IsUpper(first) || strings.IndexFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) >= 0 {
		return "", "", fmt.Errorf("must end in an exported Go identifier, got %q in %q", name, s)
	}
	return path, name, nil
}

// Type returns "CLASS_BASED".
func (a *ClassBasedAlgorithm) Type() string { return "CLASS_BASED" }

// Strategy returns the `strategy` property.
func (a *ClassBasedAlgorithm) Strategy() ClassBasedStrategy { return a.strategy }

// ClassName returns algorithmClassName as configured, trimmed.
func (a *ClassBasedAlgorithm) ClassName() string { return a.className }

// GoName returns algorithmClassName split into its import path and
// identifier, e.g. ("example.com/app/shard", "OrderAlgorithm").
func (a *ClassBasedAlgorithm) GoName() (importPath, name string) { return a.importPath, a.name }

// Props returns a copy of every property, strategy and algorithmClassName
// included (ShardingSphere hands the class the whole Properties).
func (a *ClassBasedAlgorithm) Props() Props { return maps.Clone(a.props) }

// Use attaches the user's algorithm. impl must implement the interface the
// strategy needs (StandardShardingFunc, ComplexShardingFunc or
// HintShardingFunc); if it also implements ShardingFuncInit, Init is called
// with Props() and its error returned. Call Use before binding; routers
// already bound keep the implementation they were bound with. Not safe for
// concurrent use with itself or the Bind methods.
func (a *ClassBasedAlgorithm) Use(impl any) error {
	ok := false
	switch a.strategy {
	case ClassBasedStandard:
		_, ok = impl.(StandardShardingFunc)
	case ClassBasedComplex:
		_, ok = impl.(ComplexShardingFunc)
	case ClassBasedHint:
		_, ok = impl.(HintShardingFunc)
	}
	if !ok {
		return fmt.Errorf("CLASS_BASED %s: strategy %s needs a value implementing runtime.%s, got %T",
			a.className, a.strategy, [...]string{"StandardShardingFunc", "ComplexShardingFunc", "HintShardingFunc"}[a.strategy], impl)
	}
	if in, ok := impl.(ShardingFuncInit); ok {
		if err := in.Init(a.Props()); err != nil {
			return fmt.Errorf("CLASS_BASED %s: Init: %w", a.className, err)
		}
	}
	a.impl = impl
	return nil
}

// ready checks the strategy and that Use was called.
func (a *ClassBasedAlgorithm) ready(want ClassBasedStrategy) error {
	if a.strategy != want {
		return fmt.Errorf("CLASS_BASED %s has strategy %s and cannot serve a %s sharding strategy",
			a.className, a.strategy, strings.ToLower(want.String()))
	}
	if a.impl == nil {
		return fmt.Errorf("CLASS_BASED %s: no implementation attached (call Use before binding)", a.className)
	}
	return nil
}

// BindStandard binds a STANDARD algorithm over targets.
func (a *ClassBasedAlgorithm) BindStandard(column string, targets []string) (StandardRouter, error) {
	if err := a.ready(ClassBasedStandard); err != nil {
		return nil, err
	}
	return &classStandardRouter{classTargets: newClassTargets(a.className, targets), impl: a.impl.(StandardShardingFunc)}, nil
}

// BindComplex binds a COMPLEX algorithm to columns over targets.
func (a *ClassBasedAlgorithm) BindComplex(columns []string, targets []string) (ComplexRouter, error) {
	if err := a.ready(ClassBasedComplex); err != nil {
		return nil, err
	}
	return &classComplexRouter{classTargets: newClassTargets(a.className, targets), impl: a.impl.(ComplexShardingFunc),
		columns: slices.Clone(columns)}, nil
}

// BindHint binds a HINT algorithm over targets.
func (a *ClassBasedAlgorithm) BindHint(targets []string) (HintRouter, error) {
	if err := a.ready(ClassBasedHint); err != nil {
		return nil, err
	}
	return &classHintRouter{classTargets: newClassTargets(a.className, targets), impl: a.impl.(HintShardingFunc)}, nil
}

// classTargets maps the names a user algorithm returns back to indexes.
type classTargets struct {
	className string
	names     []string // the router's own copy, handed to the user algorithm
	index     targetIndex
}

func newClassTargets(className string, targets []string) classTargets {
	return classTargets{className: className, names: slices.Clone(targets), index: newTargetIndex(targets)}
}

// appendNames appends the indexes of names to dst, sorted and without
// duplicates; an unknown name is ErrNoTarget.
func (t *classTargets) appendNames(dst []int, names []string, err error) ([]int, error) {
	if err != nil {
		return dst, fmt.Errorf("CLASS_BASED %s: %w", t.className, err)
	}
	start := len(dst)
	for _, n := range names {
		i, ok := t.index.m[n]
		if !ok {
			return dst[:start], fmt.Errorf("%w: CLASS_BASED %s returned %q, which is not an available target", ErrNoTarget, t.className, n)
		}
		dst = append(dst, i)
	}
	return sortUniqueFrom(dst, start), nil
}

type classStandardRouter struct {
	classTargets
	impl StandardShardingFunc
}

// Precise refuses NULL (the StandardRouter contract), then maps the name the
// user algorithm returns to its index.
func (r *classStandardRouter) Precise(v Value) (int, error) {
	if v.Kind == KindNull {
		return 0, ErrNullShardingValue
	}
	name, err := r.impl.DoSharding(r.names, v)
	if err != nil {
		return 0, fmt.Errorf("CLASS_BASED %s: %w", r.className, err)
	}
	i, ok := r.index.m[name]
	if !ok {
		return 0, fmt.Errorf("%w: CLASS_BASED %s returned %q, which is not an available target", ErrNoTarget, r.className, name)
	}
	return i, nil
}

// Range maps the names DoRangeSharding returns to indexes, ascending and
// without duplicates.
func (r *classStandardRouter) Range(dst []int, rg Range) ([]int, error) {
	names, err := r.impl.DoRangeSharding(r.names, rg)
	return r.appendNames(dst, names, err)
}

type classComplexRouter struct {
	classTargets
	impl    ComplexShardingFunc
	columns []string
}

// Route hands the conditions to the user algorithm as they are (NULL values
// included, as ShardingSphere does) and maps the names it returns to
// indexes.
func (r *classComplexRouter) Route(dst []int, values [][]Value, ranges []*Range) ([]int, error) {
	if len(values) != len(r.columns) || len(ranges) != len(r.columns) {
		return dst, errors.New("CLASS_BASED " + r.className + ": values and ranges must have one entry per sharding column")
	}
	names, err := r.impl.DoSharding(r.names, ComplexShardingValue{Columns: r.columns, Values: values, Ranges: ranges})
	return r.appendNames(dst, names, err)
}

type classHintRouter struct {
	classTargets
	impl HintShardingFunc
}

// Route gives every target for no values (ShardingSphere's route engine
// does not call the algorithm then), else the user algorithm's targets.
func (r *classHintRouter) Route(dst []int, values []Value) ([]int, error) {
	if len(values) == 0 {
		for i := range r.names {
			dst = append(dst, i)
		}
		return dst, nil
	}
	names, err := r.impl.DoSharding(r.names, values)
	return r.appendNames(dst, names, err)
}

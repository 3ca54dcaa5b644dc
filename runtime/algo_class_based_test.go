package runtime

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// modFunc is a StandardShardingFunc: target = prefix + v % n; with Init it
// reads "sharding-count" from the props.
type modFunc struct {
	n    int64
	seen Props
}

func (f *modFunc) Init(props Props) error {
	f.seen = props
	n, err := props.RequiredInt64("sharding-count")
	f.n = n
	return err
}

func (f *modFunc) DoSharding(targets []string, v Value) (string, error) {
	if v.Kind != KindLong && v.Kind != KindInt {
		return "", errors.New("want an integer")
	}
	return "t_" + strconv.FormatInt(v.Int%f.n, 10), nil
}

func (f *modFunc) DoRangeSharding(targets []string, r Range) ([]string, error) {
	if !r.HasLower || !r.HasUpper {
		return targets, nil
	}
	var out []string
	for i := r.Lower.Int; i <= r.Upper.Int; i++ {
		out = append(out, "t_"+strconv.FormatInt(i%f.n, 10))
	}
	return out, nil
}

type complexFunc struct{}

func (complexFunc) DoSharding(targets []string, v ComplexShardingValue) ([]string, error) {
	var out []string
	for i, c := range v.Columns {
		if v.Ranges[i] != nil {
			return targets, nil
		}
		for _, x := range v.Values[i] {
			out = append(out, c+"_"+x.Text())
		}
	}
	return out, nil
}

type hintFunc struct{}

func (hintFunc) DoSharding(targets []string, values []Value) ([]string, error) {
	out := make([]string, 0, len(values))
	for _, v := range values {
		out = append(out, v.Text())
	}
	return out, nil
}

func newClassBased(t *testing.T, props Props) *ClassBasedAlgorithm {
	t.Helper()
	a, err := NewAlgorithm("CLASS_BASED", props)
	require.NoError(t, err)
	require.Equal(t, "CLASS_BASED", a.Type())
	return a.(*ClassBasedAlgorithm)
}

func TestClassBasedProps(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props Props
		err   string
	}{
		{"no strategy", Props{"algorithmClassName": "example.com/x.Algo"}, `property "strategy" is required`},
		{"bad strategy", Props{"strategy": "AUTO", "algorithmClassName": "example.com/x.Algo"}, `property "strategy" must be STANDARD, COMPLEX or HINT, got "AUTO"`},
		{"no class", Props{"strategy": "standard"}, `property "algorithmClassName" is required`},
		{"no path", Props{"strategy": "standard", "algorithmClassName": "Algo"}, `property "algorithmClassName" must name a Go value as "import/path.Name", got "Algo"`},
		{"no name", Props{"strategy": "standard", "algorithmClassName": "example.com/x"}, `property "algorithmClassName" must name a Go value as "import/path.Name", got "example.com/x"`},
		{"unexported", Props{"strategy": "standard", "algorithmClassName": "example.com/x.algo"}, `property "algorithmClassName" must end in an exported Go identifier, got "algo" in "example.com/x.algo"`},
		{"bad name", Props{"strategy": "standard", "algorithmClassName": "example.com/x.Al-go"}, `property "algorithmClassName" must end in an exported Go identifier, got "Al-go" in "example.com/x.Al-go"`},
		{"empty element", Props{"strategy": "standard", "algorithmClassName": "example.com//x.Algo"}, `property "algorithmClassName" has an invalid import path "example.com//x" in "example.com//x.Algo"`},
		{"dot dot", Props{"strategy": "standard", "algorithmClassName": "example.com/../x.Algo"}, `property "algorithmClassName" has an invalid import path "example.com/../x" in "example.com/../x.Algo"`},
		{"space", Props{"strategy": "standard", "algorithmClassName": "example.com/a b.Algo"}, `property "algorithmClassName" has an invalid import path "example.com/a b" in "example.com/a b.Algo"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAlgorithm("CLASS_BASED", tc.props)
			require.EqualError(t, err, tc.err)
		})
	}

	a := newClassBased(t, Props{"strategy": " Complex ", "algorithmClassName": " example.com/app/shard.OrderAlgo ", "custom": "1"})
	require.Equal(t, ClassBasedComplex, a.Strategy())
	require.Equal(t, "COMPLEX", a.Strategy().String())
	b, err := json.Marshal(a.Strategy())
	require.NoError(t, err)
	require.Equal(t, `"COMPLEX"`, string(b))
	require.Equal(t, "ClassBasedStrategy(9)", ClassBasedStrategy(9).String())
	require.Equal(t, "example.com/app/shard.OrderAlgo", a.ClassName())
	path, name := a.GoName()
	require.Equal(t, "example.com/app/shard", path)
	require.Equal(t, "OrderAlgo", name)
	require.Equal(t, "1", a.Props()["custom"])
}

func TestClassBasedStandard(t *testing.T) {
	a := newClassBased(t, Props{"strategy": "STANDARD", "algorithmClassName": "example.com/x.Mod", "sharding-count": "4"})
	_, err := a.BindStandard("id", tableNames("t_", 4))
	require.EqualError(t, err, "CLASS_BASED example.com/x.Mod: no implementation attached (call Use before binding)")

	require.EqualError(t, a.Use(hintFunc{}), "CLASS_BASED example.com/x.Mod: strategy STANDARD needs a value implementing runtime.StandardShardingFunc, got runtime.hintFunc")
	require.EqualError(t, a.Use(nil), "CLASS_BASED example.com/x.Mod: strategy STANDARD needs a value implementing runtime.StandardShardingFunc, got <nil>")

	f := &modFunc{}
	require.NoError(t, a.Use(f))
	require.Equal(t, int64(4), f.n)
	require.Equal(t, "example.com/x.Mod", f.seen["algorithmClassName"])

	_, err = a.BindComplex([]string{"id"}, tableNames("t_", 4))
	require.EqualError(t, err, "CLASS_BASED example.com/x.Mod has strategy STANDARD and cannot serve a complex sharding strategy")
	_, err = a.BindHint(tableNames("t_", 4))
	require.EqualError(t, err, "CLASS_BASED example.com/x.Mod has strategy STANDARD and cannot serve a hint sharding strategy")

	r, err := a.BindStandard("id", []string{"t_0", "t_1", "t_2"})
	require.NoError(t, err)
	i, err := r.Precise(Long(6))
	require.NoError(t, err)
	require.Equal(t, 2, i)
	_, err = r.Precise(Long(7))
	require.EqualError(t, err, `no data node matches the sharding value: CLASS_BASED example.com/x.Mod returned "t_3", which is not an available target`)
	require.True(t, errors.Is(err, ErrNoTarget))
	_, err = r.Precise(String("x"))
	require.EqualError(t, err, "CLASS_BASED example.com/x.Mod: want an integer")
	_, err = r.Precise(Null)
	require.True(t, errors.Is(err, ErrNullShardingValue))

	got, err := r.Range([]int{5}, Range{Lower: Long(0), HasLower: true, Upper: Long(5), HasUpper: true})
	require.EqualError(t, err, `no data node matches the sharding value: CLASS_BASED example.com/x.Mod returned "t_3", which is not an available target`)
	require.Equal(t, []int{5}, got)
	got, err = r.Range([]int{5}, Range{Lower: Long(4), HasLower: true, Upper: Long(6), HasUpper: true})
	require.NoError(t, err)
	require.Equal(t, []int{5, 0, 1, 2}, got)
	got, err = r.Range(nil, Range{Lower: Long(4), HasLower: true})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 2}, got)

	g := newClassBased(t, Props{"strategy": "STANDARD", "algorithmClassName": "example.com/x.Mod"})
	require.EqualError(t, g.Use(&modFunc{}), `CLASS_BASED example.com/x.Mod: Init: property "sharding-count" is required`)
}

func TestClassBasedComplexAndHint(t *testing.T) {
	c := newClassBased(t, Props{"strategy": "complex", "algorithmClassName": "example.com/x.C"})
	require.NoError(t, c.Use(complexFunc{}))
	r, err := c.BindComplex([]string{"a", "b"}, []string{"a_1", "b_2", "a_3"})
	require.NoError(t, err)
	got, err := r.Route(nil, [][]Value{{Long(3), Long(1), Long(3)}, nil}, []*Range{nil, nil})
	require.NoError(t, err)
	require.Equal(t, []int{0, 2}, got)
	got, err = r.Route(nil, [][]Value{nil, nil}, []*Range{nil, {}})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 2}, got)
	_, err = r.Route(nil, [][]Value{{Long(9)}, nil}, []*Range{nil, nil})
	require.EqualError(t, err, `no data node matches the sharding value: CLASS_BASED example.com/x.C returned "a_9", which is not an available target`)
	_, err = r.Route(nil, [][]Value{{Long(9)}}, []*Range{nil})
	require.EqualError(t, err, "CLASS_BASED example.com/x.C: values and ranges must have one entry per sharding column")

	h := newClassBased(t, Props{"strategy": "HINT", "algorithmClassName": "example.com/x.H"})
	require.EqualError(t, h.Use(complexFunc{}), "CLASS_BASED example.com/x.H: strategy HINT needs a value implementing runtime.HintShardingFunc, got runtime.complexFunc")
	require.NoError(t, h.Use(hintFunc{}))
	hr, err := h.BindHint([]string{"ds_0", "ds_1"})
	require.NoError(t, err)
	got, err = hr.Route([]int{}, []Value{String("ds_1"), String("ds_0"), String("ds_1")})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1}, got)
	got, err = hr.Route([]int{}, nil)
	require.NoError(t, err)
	require.Equal(t, []int{0, 1}, got)
	_, err = h.BindStandard("x", nil)
	require.EqualError(t, err, "CLASS_BASED example.com/x.H has strategy HINT and cannot serve a standard sharding strategy")
}

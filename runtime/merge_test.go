package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	goruntime "runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Column kinds used by the merge tests.
var (
	kInt     = ColumnKind{Type: ColumnInt}
	kUint    = ColumnKind{Type: ColumnUint}
	kDec     = ColumnKind{Type: ColumnDecimal}
	kFloat   = ColumnKind{Type: ColumnFloat}
	kTime    = ColumnKind{Type: ColumnTime}
	kBytes   = ColumnKind{Type: ColumnBytes}
	kGeneral = ColumnKind{Type: ColumnString, Collation: CollationUTF8MB4GeneralCI}
	kBin     = ColumnKind{Type: ColumnString, Collation: CollationUTF8MB4Bin}
)

// mdec marks a test value as DECIMAL text.
type mdec string

// mrow builds a row from test values: nil is NULL, int/int64 Int, uint64
// Uint, float64 Float, float32 FLOAT, string a string, mdec a DECIMAL,
// time.Time a time.
func mrow(vals ...any) []Cell {
	out := make([]Cell, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
		case int:
			out[i] = IntCell(int64(v))
		case int64:
			out[i] = IntCell(v)
		case uint64:
			out[i] = UintCell(v)
		case float64:
			out[i] = FloatCell(v)
		case float32:
			out[i] = Float32Cell(v)
		case string:
			out[i] = StringCell(v)
		case mdec:
			c, err := DecimalCell([]byte(v))
			if err != nil {
				panic(err)
			}
			out[i] = c
		case time.Time:
			out[i] = TimeCell(v)
		default:
			panic(fmt.Sprintf("mrow: unsupported test value %T", v))
		}
	}
	return out
}

// msrc is a source over the given rows.
func msrc(r ...[]Cell) RowSource { return NewBufferedRows(r) }

// cellText renders a cell as MySQL prints it, for comparing with the
// expected answers of the cases: NULL as "NULL", FLOAT with float32
// precision, a time at midnight as a DATE.
func cellText(c Cell) string {
	if c.Kind() == CellTime {
		t := c.Time()
		if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
			return t.Format("2006-01-02")
		}
		return t.Format("2006-01-02 15:04:05")
	}
	return c.String()
}

// mergeText merges sources by spec and returns every row as text.
func mergeText(t testing.TB, spec *MergeSpec, args []any, sources ...RowSource) [][]string {
	t.Helper()
	m, err := Merge(spec, args, sources)
	require.NoError(t, err)
	got, err := ReadAll(m)
	require.NoError(t, err)
	out := [][]string{}
	for _, r := range got {
		s := make([]string, len(r))
		for i, c := range r {
			s[i] = cellText(c)
		}
		out = append(out, s)
	}
	return out
}

// mdate is a DATE value.
func mdate(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// driverRow decodes values as go-sql-driver returns them into a row.
func driverRow(t testing.TB, kinds []ColumnKind, vals ...any) []Cell {
	t.Helper()
	out := make([]Cell, len(vals))
	for i, v := range vals {
		c, err := DecodeCell(kinds[i], v)
		require.NoError(t, err)
		out[i] = c
	}
	return out
}

func TestMergeSpecValidate(t *testing.T) {
	base := func() MergeSpec {
		return MergeSpec{Columns: 3, Visible: 2, Kinds: []ColumnKind{kInt, kGeneral, kDec}, Count: NoLimit}
	}
	for _, tc := range []struct {
		name string
		edit func(*MergeSpec)
		want string
	}{
		{"no columns", func(s *MergeSpec) { s.Columns = 0 }, "runtime.Merge: Columns is 0, want at least 1"},
		{"visible 0", func(s *MergeSpec) { s.Visible = 0 }, "runtime.Merge: Visible is 0, want 1..3 (Columns)"},
		{"visible > columns", func(s *MergeSpec) { s.Visible = 4 }, "runtime.Merge: Visible is 4, want 1..3 (Columns)"},
		{"kinds count", func(s *MergeSpec) { s.Kinds = s.Kinds[:2] }, "runtime.Merge: 2 kinds for 3 columns"},
		{"zero kind", func(s *MergeSpec) { s.Kinds[2] = ColumnKind{} }, "runtime.Merge: column 2: unknown column type ColumnType(0)"},
		{"string without collation", func(s *MergeSpec) { s.Kinds[1].Collation = CollationNone }, "runtime.Merge: column 1: String column has no collation and no weight column"},
		{"weight out of range", func(s *MergeSpec) { s.Kinds[1] = ColumnKind{Type: ColumnString, Weight: 2} }, "runtime.Merge: column 1: weight column 2 out of range (3 columns, and the pad column after it)"},
		{"weight and collation", func(s *MergeSpec) { s.Kinds[1].Weight = 2 }, "runtime.Merge: column 1: String column has both a collation and a weight column"},
		{"weight not bytes", func(s *MergeSpec) {
			s.Kinds[0] = ColumnKind{Type: ColumnString, Weight: 1}
			s.Kinds[1] = kBytes
		}, "runtime.Merge: column 0: weight columns 1 and 2 must be Bytes"},
		{"weight on an int", func(s *MergeSpec) { s.Kinds[0].Weight = 1 }, "runtime.Merge: column 0: Int column cannot have a weight column"},
		{"bad collation", func(s *MergeSpec) { s.Kinds[1].Collation = 200 }, "runtime.Merge: column 1: unknown collation Collation(200)"},
		{"int with collation", func(s *MergeSpec) { s.Kinds[0].Collation = CollationUTF8MB4Bin }, "runtime.Merge: column 0: Int column cannot have collation utf8mb4_bin"},
		{"order by range", func(s *MergeSpec) { s.OrderBy = []SortKey{{Column: 0}, {Column: 3}} }, "runtime.Merge: ORDER BY key 1: column 3 out of range (3 columns)"},
		{"order by negative", func(s *MergeSpec) { s.OrderBy = []SortKey{{Column: -1}} }, "runtime.Merge: ORDER BY key 0: column -1 out of range (3 columns)"},
		{"group by range", func(s *MergeSpec) { s.GroupBy = []int{5} }, "runtime.Merge: GROUP BY item 0: column 5 out of range (3 columns)"},
		{"group by twice", func(s *MergeSpec) { s.GroupBy = []int{1, 1} }, "runtime.Merge: GROUP BY item 1: column 1 is already GROUP BY item 0"},
		{"unknown func", func(s *MergeSpec) { s.Aggregates = []AggregateSpec{{Column: 0}} }, "runtime.Merge: aggregate 0: unknown function AggFunc(0)"},
		{"agg range", func(s *MergeSpec) { s.Aggregates = []AggregateSpec{{Column: 3, Func: AggMax}} }, "runtime.Merge: aggregate 0 (Max): column 3 out of range (3 columns)"},
		{"agg on group column", func(s *MergeSpec) {
			s.GroupBy = []int{0}
			s.Aggregates = []AggregateSpec{{Column: 0, Func: AggCount}}
		}, "runtime.Merge: aggregate 0 (Count): column 0 is already GROUP BY item 0"},
		{"two aggs one column", func(s *MergeSpec) {
			s.Aggregates = []AggregateSpec{{Column: 0, Func: AggCount}, {Column: 0, Func: AggMax}}
		}, "runtime.Merge: aggregate 1 (Max): column 0 is already aggregate 0"},
		{"count of string", func(s *MergeSpec) { s.Aggregates = []AggregateSpec{{Column: 1, Func: AggCount}} }, "runtime.Merge: aggregate 0 (Count): column 1 is String, want Int, Uint or Decimal"},
		{"sum of string", func(s *MergeSpec) { s.Aggregates = []AggregateSpec{{Column: 1, Func: AggSum}} }, "runtime.Merge: aggregate 0 (Sum): column 1 is String, want Int, Uint, Decimal or Float"},
		{"sum distinct of string", func(s *MergeSpec) { s.Aggregates = []AggregateSpec{{Column: 1, Func: AggSumDistinct}} }, "runtime.Merge: aggregate 0 (SumDistinct): column 1 is String, want Int, Uint, Decimal or Float"},
		{"avg sum range", func(s *MergeSpec) {
			s.Aggregates = []AggregateSpec{{Column: 0, Func: AggAvg, SumColumn: 7, CountColumn: 2}}
		}, "runtime.Merge: aggregate 0 (Avg): SumColumn 7 out of range (3 columns)"},
		{"avg count range", func(s *MergeSpec) {
			s.Aggregates = []AggregateSpec{{Column: 0, Func: AggAvg, SumColumn: 2, CountColumn: -1}}
		}, "runtime.Merge: aggregate 0 (Avg): CountColumn -1 out of range (3 columns)"},
		{"avg itself", func(s *MergeSpec) {
			s.Aggregates = []AggregateSpec{{Column: 0, Func: AggAvg, SumColumn: 0, CountColumn: 2}}
		}, "runtime.Merge: aggregate 0 (Avg): SumColumn is the AVG column itself"},
		{"avg same columns", func(s *MergeSpec) {
			s.Aggregates = []AggregateSpec{{Column: 0, Func: AggAvg, SumColumn: 2, CountColumn: 2}}
		}, "runtime.Merge: aggregate 0 (Avg): SumColumn and CountColumn are both column 2"},
		{"avg sum string", func(s *MergeSpec) {
			s.Aggregates = []AggregateSpec{{Column: 0, Func: AggAvg, SumColumn: 1, CountColumn: 2}}
		}, "runtime.Merge: aggregate 0 (Avg): SumColumn 1 is String, want Int, Uint, Decimal or Float"},
		{"avg scale", func(s *MergeSpec) {
			s.Kinds[1] = kInt
			s.Aggregates = []AggregateSpec{{Column: 0, Func: AggAvg, SumColumn: 2, CountColumn: 1, Scale: 39}}
		}, "runtime.Merge: aggregate 0 (Avg): scale 39 out of range 0..38"},
		{"stream group without grouping", func(s *MergeSpec) { s.StreamGroup = true }, "runtime.Merge: StreamGroup without GROUP BY, aggregates or DISTINCT"},
		{"stream group short order", func(s *MergeSpec) {
			s.GroupBy, s.StreamGroup, s.OrderBy = []int{0, 1}, true, []SortKey{{Column: 0}}
		}, "runtime.Merge: StreamGroup needs the first 2 ORDER BY keys to be the grouping columns, have 1 keys"},
		{"stream group other order", func(s *MergeSpec) {
			s.GroupBy, s.StreamGroup, s.OrderBy = []int{0}, true, []SortKey{{Column: 1}, {Column: 0}}
		}, "runtime.Merge: StreamGroup: grouping column 0 is not among the first 1 ORDER BY keys"},
		{"stream distinct", func(s *MergeSpec) {
			s.Distinct, s.StreamGroup, s.OrderBy = true, true, []SortKey{{Column: 1}, {Column: 2}}
		}, "runtime.Merge: StreamGroup: grouping column 0 is not among the first 2 ORDER BY keys"},
		{"negative offset", func(s *MergeSpec) { s.Offset = LimitValue{Value: -1} }, "runtime.Merge: LIMIT offset -1 is negative"},
		{"negative param", func(s *MergeSpec) { s.Count = LimitValue{Value: -2, Param: true} }, "runtime.Merge: LIMIT parameter index -2 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			s.Kinds = append([]ColumnKind(nil), s.Kinds...)
			tc.edit(&s)
			require.EqualError(t, s.Validate(), tc.want)
			_, err := Merge(&s, nil, nil)
			require.EqualError(t, err, tc.want)
		})
	}
	ok := base()
	require.NoError(t, ok.Validate())
	_, err := Merge(nil, nil, nil)
	require.EqualError(t, err, "runtime.Merge: nil MergeSpec")
	_, err = Merge(&ok, nil, []RowSource{msrc(), nil})
	require.EqualError(t, err, "runtime.Merge: source 1 is nil")
	// A scalar aggregate is one group: StreamGroup is accepted and ignored.
	scalar := MergeSpec{Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, Aggregates: []AggregateSpec{{Column: 0, Func: AggCount}}, StreamGroup: true, Count: NoLimit}
	require.Equal(t, [][]string{{"0"}}, mergeText(t, &scalar, nil))
}

func TestMergeSpecJSON(t *testing.T) {
	spec := MergeSpec{
		Columns: 4, Visible: 1,
		Kinds:       []ColumnKind{kDec, kInt, kDec, kGeneral},
		OrderBy:     []SortKey{{Column: 3, Desc: true}},
		GroupBy:     []int{3},
		Aggregates:  []AggregateSpec{{Column: 0, Func: AggAvg, SumColumn: 2, CountColumn: 1, Scale: 4}},
		Offset:      LimitValue{Value: 0, Param: true},
		Count:       LimitValue{Value: 10},
		StreamGroup: true,
	}
	b, err := json.Marshal(&spec)
	require.NoError(t, err)
	require.JSONEq(t, `{"columns":4,"visible":1,
		"kinds":[{"type":"Decimal"},{"type":"Int"},{"type":"Decimal"},{"type":"String","collation":"utf8mb4_general_ci"}],
		"order_by":[{"column":3,"desc":true}],"group_by":[3],
		"aggregates":[{"column":0,"func":"Avg","sum_column":2,"count_column":1,"scale":4}],
		"offset":{"value":0,"param":true},"count":{"value":10},"stream_group":true}`, string(b))
	var back MergeSpec
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, spec, back)

	// The planner's spelling decodes too.
	var f AggFunc
	require.NoError(t, json.Unmarshal([]byte(`"count_distinct"`), &f))
	require.Equal(t, AggCountDistinct, f)
	var c Collation
	require.NoError(t, json.Unmarshal([]byte(`"UTF8MB3_GENERAL_CI"`), &c))
	require.Equal(t, CollationUTF8MB4GeneralCI, c)
	var ct ColumnType
	require.NoError(t, json.Unmarshal([]byte(`"decimal"`), &ct))
	require.Equal(t, ColumnDecimal, ct)
	for _, tc := range []struct {
		in   string
		into any
		want string
	}{
		{`"Money"`, &ct, `runtime: unknown ColumnType "Money"`},
		{`3`, &ct, `runtime: ColumnType must be a JSON string, got 3`},
		{`"Median"`, &f, `runtime: unknown AggFunc "Median"`},
		{`1`, &f, `runtime: AggFunc must be a JSON string, got 1`},
		{`"latin1_swedish_ci"`, &c, `runtime: collation "latin1_swedish_ci" is not supported by the merge engine`},
		{`1`, &c, `runtime: Collation must be a JSON string, got 1`},
	} {
		require.EqualError(t, json.Unmarshal([]byte(tc.in), tc.into), tc.want, tc.in)
	}
	require.Equal(t, "AggFunc(99)", AggFunc(99).String())
	require.Equal(t, "ColumnType(9)", ColumnType(9).String())
	require.Equal(t, "CellKind(9)", CellKind(9).String())
	kb, err := json.Marshal(CellDecimal)
	require.NoError(t, err)
	require.Equal(t, `"Decimal"`, string(kb))
}

// TestMergeCases feeds the real failure cases of ../shared/cases/cases.json
// that concern the merge to Merge as per-node results, computed by hand
// from each case's placement rule, and checks the exact expected answer.
func TestMergeCases(t *testing.T) {
	t.Run("C01 pagination across shards", func(t *testing.T) {
		// SELECT id, r_regionkey, r_name, r_comment FROM test_shard ORDER
		// BY id LIMIT 2, 3 over ds_${0..3}, MOD 4 on id: ds_0={4},
		// ds_1={1,5}, ds_2={2,6}, ds_3={3}. Every node runs ORDER BY id
		// LIMIT 0, 5 (offset+count) and returns its rows sorted; the merge
		// sorts them all and skips 2, takes 3. r_regionkey is FLOAT (the
		// driver gives float32), r_comment DATE (time.Time, or NULL).
		kinds := []ColumnKind{kInt, kFloat, kGeneral, kTime}
		r := func(vals ...any) []Cell { return driverRow(t, kinds, vals...) }
		node := func() []RowSource {
			return []RowSource{
				msrc(r(int64(4), float32(4), []byte("a"), mdate(1967, 9, 12))),
				msrc(r(int64(1), float32(1), []byte("a sting"), nil), r(int64(5), float32(3), []byte(""), mdate(1776, 4, 30))),
				msrc(r(int64(2), float32(1), []byte("a"), nil), r(int64(6), float32(4), []byte("b"), mdate(1963, 12, 9))),
				msrc(r(int64(3), float32(3), []byte(""), mdate(1983, 1, 1))),
			}
		}
		want := [][]string{{"3", "3", "", "1983-01-01"}, {"4", "4", "a", "1967-09-12"}, {"5", "3", "", "1776-04-30"}}
		spec := MergeSpec{Columns: 4, Visible: 4, Kinds: kinds, OrderBy: []SortKey{{Column: 0}}, Offset: LimitValue{Value: 2}, Count: LimitValue{Value: 3}}
		require.Equal(t, want, mergeText(t, &spec, nil, node()...))
		// LIMIT ?, ? with params [2, 3] (and LIMIT 3 OFFSET 2, the same spec).
		param := spec
		param.Offset, param.Count = LimitValue{Value: 0, Param: true}, LimitValue{Value: 1, Param: true}
		require.Equal(t, want, mergeText(t, &param, []any{int64(2), 3}, node()...))
	})

	c02 := func(stream bool) MergeSpec {
		// AVG(val2), then the derived COUNT(val2), SUM(val2) and val1 (the
		// GROUP BY item not selected).
		return MergeSpec{
			Columns: 4, Visible: 1, Kinds: []ColumnKind{kDec, kInt, kDec, kGeneral},
			OrderBy: []SortKey{{Column: 3}}, GroupBy: []int{3},
			Aggregates:  []AggregateSpec{{Column: 0, Func: AggAvg, SumColumn: 2, CountColumn: 1, Scale: 4}},
			StreamGroup: stream, Count: NoLimit,
		}
	}
	t.Run("C02 AVG", func(t *testing.T) {
		// SELECT AVG(val2) FROM aggr_test GROUP BY val1 ORDER BY val1, MOD 2
		// on id: ds_0 holds ids 2,4,6 = (a,20),(b,5),(c,7); ds_1 ids 1,3,5 =
		// (a,10),(a,25),(b,NULL). Per node, grouped and ordered by val1:
		// AVG, COUNT(val2), SUM(val2), val1. Merged: a = 55/3, b = 5/1 (the
		// NULL is not counted), c = 7/1, DECIMAL scale 0+4.
		sources := func() []RowSource {
			return []RowSource{
				msrc(mrow(mdec("20.0000"), 1, mdec("20"), "a"), mrow(mdec("5.0000"), 1, mdec("5"), "b"), mrow(mdec("7.0000"), 1, mdec("7"), "c")),
				msrc(mrow(mdec("17.5000"), 2, mdec("35"), "a"), mrow(nil, 0, nil, "b")),
			}
		}
		want := [][]string{{"18.3333"}, {"5.0000"}, {"7.0000"}}
		for _, stream := range []bool{true, false} {
			spec := c02(stream)
			require.Equal(t, want, mergeText(t, &spec, nil, sources()...), "stream %v", stream)
		}
	})

	c03 := MergeSpec{
		// COUNT(DISTINCT val), SUM(DISTINCT val) arrive as val itself (the
		// nodes GROUP BY val), then COUNT(val), SUM(val), AVG(val),
		// MAX(val), and AVG's derived COUNT and SUM.
		Columns: 8, Visible: 6, Kinds: []ColumnKind{kInt, kInt, kInt, kDec, kDec, kInt, kInt, kDec},
		Aggregates: []AggregateSpec{
			{Column: 0, Func: AggCountDistinct}, {Column: 1, Func: AggSumDistinct},
			{Column: 2, Func: AggCount}, {Column: 3, Func: AggSum},
			{Column: 4, Func: AggAvg, SumColumn: 7, CountColumn: 6, Scale: 4}, {Column: 5, Func: AggMax},
		},
		Count: NoLimit,
	}
	t.Run("C03 NULL and empty input", func(t *testing.T) {
		// SELECT COUNT(DISTINCT val), SUM(DISTINCT val), COUNT(val),
		// SUM(val), AVG(val), MAX(val) FROM testing, MOD 2 on id: (1,NULL)
		// on ds_1, (2,NULL) on ds_0. Each node's one group (val NULL) has
		// COUNT 0 and NULL sums.
		nullGroup := func() []Cell { return mrow(nil, nil, 0, nil, nil, nil, 0, nil) }
		want := [][]string{{"0", "NULL", "0", "NULL", "NULL", "NULL"}}
		require.Equal(t, want, mergeText(t, &c03, nil, msrc(nullGroup()), msrc(nullGroup())))
		// After DELETE FROM testing: no node returns a row, and a scalar
		// aggregate still answers one row.
		require.Equal(t, want, mergeText(t, &c03, nil, msrc(), msrc()))
		require.Equal(t, want, mergeText(t, &c03, nil))
	})

	t.Run("C04 GROUP BY and ORDER BY differ, LIMIT", func(t *testing.T) {
		// SELECT val2, COUNT(*) FROM aggr_test2 GROUP BY val2 ORDER BY
		// COUNT(*), val2 LIMIT 3, MOD 2 on id. Even ids (ds_0) hold val2
		// 1,2,3,4,4,5,5; odd ids (ds_1) 1,1,1,2,2,2,3,3,4,5. The groups
		// merge in memory, so every node returns all its groups (no
		// LIMIT): ds_0 (1,1),(2,1),(3,1),(4,2),(5,2); ds_1
		// (1,3),(2,3),(3,2),(4,1),(5,1). Totals 1→4, 2→4, 3→3, 4→3, 5→3.
		spec := MergeSpec{
			Columns: 2, Visible: 2, Kinds: []ColumnKind{kInt, kInt},
			GroupBy: []int{0}, Aggregates: []AggregateSpec{{Column: 1, Func: AggCount}},
			OrderBy: []SortKey{{Column: 1}, {Column: 0}}, Count: LimitValue{Value: 3},
		}
		got := mergeText(t, &spec, nil,
			msrc(mrow(1, 1), mrow(2, 1), mrow(3, 1), mrow(4, 2), mrow(5, 2)),
			msrc(mrow(1, 3), mrow(2, 3), mrow(3, 2), mrow(4, 1), mrow(5, 1)))
		require.Equal(t, [][]string{{"3", "3"}, {"4", "3"}, {"5", "3"}}, got)
	})

	t.Run("C05 OR/AND routing", func(t *testing.T) {
		// WHERE id = 2 OR name = 'a' AND id = 1 routes to both tables of
		// ds_0 (MOD 2 on id): test_shard_hash_0000 returns (2,'abc',1.2),
		// _0001 holds id 1 with name 'abc' and returns nothing. The
		// iterator merge concatenates; DECIMAL text stays "1.2".
		spec := MergeSpec{Columns: 3, Visible: 3, Kinds: []ColumnKind{kInt, kGeneral, kDec}, Count: NoLimit}
		got := mergeText(t, &spec, nil, msrc(mrow(2, "abc", mdec("1.2"))), msrc())
		require.Equal(t, [][]string{{"2", "abc", "1.2"}}, got)
	})

	t.Run("C06 batch INSERT then ORDER BY", func(t *testing.T) {
		// The three rows (order_id 10, 11, 12) land on ds_(id%2) by their
		// generated snowflake id and on tb_order_(order_id%2). The ids'
		// parities are not known in advance, so try all 8: the four units
		// (ds_0.tb_order_0, ds_0.tb_order_1, ds_1.tb_order_0,
		// ds_1.tb_order_1) each return their rows ORDER BY order_id, and
		// the merge must give 10, 11, 12 whatever the placement.
		spec := MergeSpec{Columns: 2, Visible: 2, Kinds: []ColumnKind{kInt, kGeneral}, OrderBy: []SortKey{{Column: 0}}, Count: NoLimit}
		notes := []string{"a", "b", "c"}
		for parity := range 8 {
			units := make([][][]Cell, 4)
			for i, orderID := range []int{10, 11, 12} {
				ds := parity >> i & 1
				u := ds*2 + orderID%2
				units[u] = append(units[u], mrow(orderID, notes[i]))
			}
			sources := make([]RowSource, 4)
			for i := range units {
				sources[i] = msrc(units[i]...)
			}
			got := mergeText(t, &spec, nil, sources...)
			require.Equal(t, [][]string{{"10", "a"}, {"11", "b"}, {"12", "c"}}, got, "parity %03b", parity)
		}
	})

	t.Run("C07 broadcast read", func(t *testing.T) {
		// t_config is a broadcast table with a copy on ds_0, ds_1, ds_2. A
		// read goes to one data source, so the merge sees one unit and
		// returns (1,'a','y') once, not once per copy.
		spec := MergeSpec{Columns: 3, Visible: 3, Kinds: []ColumnKind{kInt, kGeneral, kGeneral}, Count: NoLimit}
		got := mergeText(t, &spec, nil, msrc(mrow(1, "a", "y")))
		require.Equal(t, [][]string{{"1", "a", "y"}}, got)
	})

	t.Run("C10 leading comment, ORDER BY id LIMIT 1", func(t *testing.T) {
		// MOD 2 on id: ds_0={2:'b'}, ds_1={1:'a',3:'c'}. Each node runs
		// ORDER BY id LIMIT 1 and returns its least row.
		spec := MergeSpec{Columns: 2, Visible: 2, Kinds: []ColumnKind{kInt, kGeneral}, OrderBy: []SortKey{{Column: 0}}, Count: LimitValue{Value: 1}}
		got := mergeText(t, &spec, nil, msrc(mrow(2, "b")), msrc(mrow(1, "a")))
		require.Equal(t, [][]string{{"1", "a"}}, got)
	})
}

// errSource returns its rows, then err.
type errSource struct {
	rows [][]Cell
	err  error
	n    int // calls
}

func (e *errSource) Next() ([]Cell, error) {
	e.n++
	if len(e.rows) > 0 {
		r := e.rows[0]
		e.rows = e.rows[1:]
		return r, nil
	}
	return nil, e.err
}

func TestMergeSourceErrors(t *testing.T) {
	boom := &NodeError{DataSource: "ds_1", SQL: "SELECT 1", Err: errors.New("connection reset")}
	specs := map[string]MergeSpec{
		"iterator":     {Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, Count: NoLimit},
		"order by":     {Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, OrderBy: []SortKey{{Column: 0}}, Count: NoLimit},
		"memory group": {Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, GroupBy: []int{0}, Count: NoLimit},
		"stream group": {Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, GroupBy: []int{0}, OrderBy: []SortKey{{Column: 0}}, StreamGroup: true, Count: NoLimit},
		"scalar":       {Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, Aggregates: []AggregateSpec{{Column: 0, Func: AggCount}}, Count: NoLimit},
		"distinct":     {Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, Distinct: true, Count: NoLimit},
		"group+distinct": {Columns: 2, Visible: 1, Kinds: []ColumnKind{kInt, kInt}, GroupBy: []int{1},
			Aggregates: []AggregateSpec{{Column: 0, Func: AggCount}}, Distinct: true, Count: NoLimit},
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			one := make([]Cell, spec.Columns)
			m, err := Merge(&spec, nil, []RowSource{msrc(one), &errSource{rows: [][]Cell{one}, err: boom}})
			require.NoError(t, err)
			var got error
			for range 5 {
				if _, got = m.Next(); got != nil {
					break
				}
			}
			var ne *NodeError
			require.ErrorAs(t, got, &ne, "the source's error comes back unchanged")
			require.Equal(t, "data node ds_1: connection reset", got.Error())
			_, again := m.Next()
			require.Equal(t, got, again, "the error is sticky")

			// A row of the wrong width is an error, not a panic.
			m, err = Merge(&spec, nil, []RowSource{msrc(one), msrc(make([]Cell, spec.Columns+1))})
			require.NoError(t, err)
			_, err = ReadAll(m)
			require.EqualError(t, err, "runtime.Merge: source 1 returned a row of "+strconv.Itoa(spec.Columns+1)+" columns, want "+strconv.Itoa(spec.Columns))
		})
	}
}

// genSource generates n rows (v, "row") with v = start, start+step, ...,
// reusing one row buffer: a node result that costs no memory per row.
type genSource struct {
	n, i        int
	start, step int64
	row         []Cell
	onRow       func()
}

var genText = []byte("payload of a generated row")

func (g *genSource) Next() ([]Cell, error) {
	if g.i >= g.n {
		return nil, io.EOF
	}
	g.row[0] = IntCell(g.start + int64(g.i)*g.step)
	g.row[1] = BytesCell(genText)
	g.i++
	if g.onRow != nil {
		g.onRow()
	}
	return g.row, nil
}

func newGenSources(sources, perSource int, onRow func()) []RowSource {
	out := make([]RowSource, sources)
	for s := range out {
		out[s] = &genSource{n: perSource, start: int64(s), step: int64(sources), row: make([]Cell, 2), onRow: onRow}
	}
	return out
}

// TestMergeSortMemory checks that ORDER BY + LIMIT over 4 sources × 250,000
// rows keeps O(sources) rows: the heap holds one row per source, and the
// pagination decorator stops reading once it has its rows. The skipping
// variant (LIMIT 999990, 10) reads all 1,000,000 rows and still must not
// grow the heap.
func TestMergeSortMemory(t *testing.T) {
	const sources, perSource = 4, 250_000
	spec := MergeSpec{Columns: 2, Visible: 1, Kinds: []ColumnKind{kInt, kGeneral}, OrderBy: []SortKey{{Column: 0}}}
	for _, tc := range []struct {
		offset, count int64
		first         int64
	}{{0, 10, 0}, {sources*perSource - 10, 10, sources*perSource - 10}} {
		var ms goruntime.MemStats
		var peak uint64
		read := 0
		sample := func() {
			read++
			if read%50_000 == 0 {
				goruntime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
		goruntime.GC()
		var before goruntime.MemStats
		goruntime.ReadMemStats(&before)
		peak = before.HeapAlloc
		spec.Offset, spec.Count = LimitValue{Value: tc.offset}, LimitValue{Value: tc.count}
		m, err := Merge(&spec, nil, newGenSources(sources, perSource, sample))
		require.NoError(t, err)
		n := 0
		for {
			r, err := m.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			require.Equal(t, tc.first+int64(n), r[0].Int())
			n++
		}
		var after goruntime.MemStats
		goruntime.ReadMemStats(&after)
		peak = max(peak, after.HeapAlloc)
		require.Equal(t, 10, n)
		growth := int64(peak) - int64(before.HeapAlloc)
		t.Logf("LIMIT %d, %d: read %d source rows, heap before %d B, peak %d B (growth %d B), %d mallocs",
			tc.offset, tc.count, read, before.HeapAlloc, peak, growth, after.Mallocs-before.Mallocs)
		require.Less(t, growth, int64(1<<20), "heap growth must not depend on the number of rows")
		require.Less(t, after.Mallocs-before.Mallocs, uint64(1000), "no allocation per row")
		if tc.offset == 0 {
			require.LessOrEqual(t, read, 10+sources, "LIMIT stops reading")
		} else {
			require.Equal(t, sources*perSource, read)
		}
	}
}

// BenchmarkMergeSort is the order-by stream merge of 4 sorted sources of
// 100,000 rows each (buffered, as QueryUnits returns them).
func BenchmarkMergeSort(b *testing.B) {
	const sources, perSource = 4, 100_000
	data := make([][][]Cell, sources)
	for s := range data {
		data[s] = make([][]Cell, perSource)
		for i := range data[s] {
			data[s][i] = mrow(int64(i*sources+s), "name")
		}
	}
	spec := MergeSpec{Columns: 2, Visible: 2, Kinds: []ColumnKind{kInt, kGeneral}, OrderBy: []SortKey{{Column: 0}}, Count: NoLimit}
	srcs := make([]RowSource, sources)
	bufs := make([]BufferedRows, sources)
	b.ReportAllocs()
	for b.Loop() {
		for s := range srcs {
			bufs[s] = BufferedRows{rows: data[s]}
			srcs[s] = &bufs[s]
		}
		m, err := Merge(&spec, nil, srcs)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			if _, err := m.Next(); err != nil {
				break
			}
			n++
		}
		if n != sources*perSource {
			b.Fatal(n)
		}
	}
}

// BenchmarkMergeGroup is the in-memory group-by of 100 groups over 4
// sources of 10,000 partial rows: GROUP BY an INT (and, in the second
// case, a utf8mb4_general_ci string), COUNT and SUM.
func BenchmarkMergeGroup(b *testing.B) {
	const sources, perSource, groups = 4, 10_000, 100
	for _, tc := range []struct {
		name string
		kind ColumnKind
		key  func(int) any
	}{
		{"int key", kInt, func(g int) any { return int64(g) }},
		{"general_ci key", kGeneral, func(g int) any { return "Group Name " + strconv.Itoa(g) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			data := make([][][]Cell, sources)
			for s := range data {
				data[s] = make([][]Cell, perSource)
				for i := range data[s] {
					data[s][i] = mrow(tc.key(i%groups), int64(3), mdec("12.50"))
				}
			}
			spec := MergeSpec{
				Columns: 3, Visible: 3, Kinds: []ColumnKind{tc.kind, kInt, kDec},
				GroupBy:    []int{0},
				Aggregates: []AggregateSpec{{Column: 1, Func: AggCount}, {Column: 2, Func: AggSum}},
				Count:      NoLimit,
			}
			srcs := make([]RowSource, sources)
			b.ReportAllocs()
			for b.Loop() {
				for s := range srcs {
					srcs[s] = NewBufferedRows(data[s])
				}
				m, err := Merge(&spec, nil, srcs)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					if _, err := m.Next(); err != nil {
						break
					}
					n++
				}
				if n != groups {
					b.Fatal(n)
				}
			}
		})
	}
}

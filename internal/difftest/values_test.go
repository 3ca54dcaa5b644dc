package difftest

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
)

var valuesSize = flag.Int("values", 400, "number of sharding-value queries TestShardingValues runs on each path (the interpreter, the proxy's text protocol, its binary protocol)")

// The sharding-value tables: dv_user by a BIGINT (HASH_MOD over data
// sources, which hashes the Java type, and MOD over tables), dv_day by a
// DATE and dv_log by a DATETIME (INTERVAL by month), dv_code by a VARCHAR
// and dv_char by a CHAR under PAD SPACE collations (HASH_MOD of the
// string: 'ab' must find 'ab ').
const valuesRules = `rules:
- !SHARDING
  tables:
    dv_user:
      actualDataNodes: ds_${0..3}.dv_user_${0..1}
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: user_hash}}
      tableStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: user_mod}}
    dv_day:
      actualDataNodes: ds_${0..1}.dv_day_${['202601', '202602', '202603']}
      databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: id_mod}}
      tableStrategy: {standard: {shardingColumn: day, shardingAlgorithmName: day_month}}
    dv_log:
      actualDataNodes: ds_${0..1}.dv_log_${['202601', '202602', '202603']}
      databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: id_mod}}
      tableStrategy: {standard: {shardingColumn: at, shardingAlgorithmName: at_month}}
    dv_code:
      actualDataNodes: ds_${0..3}.dv_code
      databaseStrategy: {standard: {shardingColumn: code, shardingAlgorithmName: user_hash}}
    dv_char:
      actualDataNodes: ds_${0..1}.dv_char_${0..1}
      databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: id_mod}}
      tableStrategy: {standard: {shardingColumn: code, shardingAlgorithmName: code_hash}}
  shardingAlgorithms:
    code_hash: {type: HASH_MOD, props: {sharding-count: 2}}
    user_hash: {type: HASH_MOD, props: {sharding-count: 4}}
    user_mod: {type: MOD, props: {sharding-count: 2}}
    id_mod: {type: MOD, props: {sharding-count: 2}}
    day_month:
      type: INTERVAL
      props: {datetime-pattern: "yyyy-MM-dd", datetime-lower: "2026-01-01", datetime-upper: "2026-03-31",
        sharding-suffix-pattern: yyyyMM, datetime-interval-amount: 1, datetime-interval-unit: MONTHS}
    at_month:
      type: INTERVAL
      props: {datetime-pattern: "yyyy-MM-dd HH:mm:ss", datetime-lower: "2026-01-01 00:00:00", datetime-upper: "2026-03-31 23:59:59",
        sharding-suffix-pattern: yyyyMM, datetime-interval-amount: 1, datetime-interval-unit: MONTHS}
`

const valuesDDL = `CREATE TABLE dv_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) NOT NULL);
CREATE TABLE dv_day (id BIGINT NOT NULL PRIMARY KEY, day DATE NOT NULL);
CREATE TABLE dv_log (id BIGINT NOT NULL PRIMARY KEY, at DATETIME NOT NULL);
CREATE TABLE dv_code (id BIGINT NOT NULL PRIMARY KEY, code VARCHAR(16) COLLATE utf8mb4_bin NOT NULL);
CREATE TABLE dv_char (id BIGINT NOT NULL PRIMARY KEY, code CHAR(8) COLLATE latin1_swedish_ci NOT NULL)`

// codes are the text sharding values of dv_code and dv_char; each is
// written with 0 to 3 trailing spaces (and queried with others).
var codes = []string{"a", "ab", "abc", "x y", "Z", "q9", "", "m n o"}

// codeLiteral is code c with n trailing spaces, as an SQL string literal.
func codeLiteral(c string, n int) string { return "'" + c + strings.Repeat(" ", n) + "'" }

// bigIDs are integers where a double cannot tell neighbours apart (2^53
// and up) or that leave int32 (negative too: java.lang.Long either way).
var bigIDs = []int64{9007199254740992, 9007199254740993, 9007199254740994, 4294967295, -4294967296}

// negIDs are negative int32 values, which HASH_MOD would hash differently
// as a java.lang.Integer literal and a java.lang.Long parameter: shardgen
// routes both as a Long (plan.asLong), so rows written one way are found
// the other way.
var negIDs = []int64{-1, -2, -3, -7, -8, -11, -2147483648}

// valueQuery is one statement with its parameters (Go values, sent as the
// client sends them).
type valueQuery struct {
	sql    string
	params []any
}

// seedValues inserts the same rows on both sides, each sharding value
// written in another form (string, decimal, double, hex, parameter of
// another type): every row must land where the server stores its value.
func seedValues(t testing.TB, e *env) {
	for i, n := range append(append(intRange(0, 40), bigIDs...), negIDs...) {
		q := "INSERT INTO dv_user (user_id, name) VALUES (%s, 'u%d')"
		switch small := n > -1<<53 && n < 1<<53; {
		case i%10 == 5:
			e.exec(fmt.Sprintf(q, "?", n), n)
		case i%10 == 6:
			e.exec(fmt.Sprintf(q, "?", n), strconv.FormatInt(n, 10))
		case i%10 == 7 && small:
			e.exec(fmt.Sprintf(q, "?", n), float64(n))
		case i%10 == 8 && n >= 0:
			e.exec(fmt.Sprintf(q, fmt.Sprintf("0x%x", n), n))
		default:
			forms := []string{"%d", "'%d'", "%d.0", "%de0", "' %d '", "", "", "", "%d", "'%d.0'"}
			f := forms[i%10]
			if f == "" || f == "%de0" && !small {
				f = "%d"
			}
			e.exec(fmt.Sprintf(q, fmt.Sprintf(f, n), n))
		}
	}
	// Values the server rounds: '40.6' stores 41, 41.5 42, 0x2b 43,
	// '44.5' 45 (half away from zero), 4.75e1 48, a DOUBLE 45.5 46 (half
	// to even).
	e.exec("INSERT INTO dv_user (user_id, name) VALUES ('40.6', 'r41'), (41.5, 'r42'), (0x2b, 'r43'), (4.75e1, 'r48')")
	e.exec("INSERT INTO dv_user (user_id, name) VALUES (?, 'r45')", "44.5")
	e.exec("INSERT INTO dv_user (user_id, name) VALUES (?, 'r46')", 45.5)
	for i, c := range codes {
		for pad := 0; pad < 4; pad++ {
			id := int64(100 + 4*i + pad)
			if pad%2 == 0 {
				e.exec(fmt.Sprintf("INSERT INTO dv_code (id, code) VALUES (%d, %s)", id, codeLiteral(c, pad)))
			} else {
				e.exec("INSERT INTO dv_code (id, code) VALUES (?, ?)", id, c+strings.Repeat(" ", pad))
			}
			if pad < 2 && c != "m n o" {
				e.exec("INSERT INTO dv_char (id, code) VALUES (?, ?)", id, c+strings.Repeat(" ", 3*pad))
			}
		}
	}
	for id := int64(1); id <= 60; id++ {
		day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(id*37%90))
		at := day.Add(time.Duration(id) * (time.Hour + time.Minute + time.Second))
		switch id % 5 {
		case 0:
			e.exec("INSERT INTO dv_day (id, day) VALUES (?, ?)", id, day)
			e.exec("INSERT INTO dv_log (id, at) VALUES (?, ?)", id, at)
		case 1:
			e.exec(fmt.Sprintf("INSERT INTO dv_day (id, day) VALUES (%d, '%s')", id, day.Format("20060102")))
			e.exec(fmt.Sprintf("INSERT INTO dv_log (id, at) VALUES (%d, '%s')", id, at.Format("20060102150405")))
		case 2:
			e.exec(fmt.Sprintf("INSERT INTO dv_day (id, day) VALUES (%d, %s)", id, day.Format("20060102")))
			e.exec(fmt.Sprintf("INSERT INTO dv_log (id, at) VALUES (%d, '%s')", id, at.Format("2006/1/2 15.04.05")))
		case 3:
			e.exec("INSERT INTO dv_day (id, day) VALUES (?, ?)", id, day.Format("2006/1/2"))
			e.exec("INSERT INTO dv_log (id, at) VALUES (?, ?)", id, at.Format("2006-01-02T15:04:05"))
		default:
			e.exec(fmt.Sprintf("INSERT INTO dv_day (id, day) VALUES (%d, '%s')", id, day.Format("06-01-02")))
			e.exec(fmt.Sprintf("INSERT INTO dv_log (id, at) VALUES (%d, '%s')", id, at.Format("2006-01-02 15:04:05")))
		}
	}
}

func intRange(lo, hi int64) []int64 {
	var out []int64
	for n := lo; n <= hi; n++ {
		out = append(out, n)
	}
	return out
}

// intLiteral writes n in one of the forms MySQL compares with an integer
// column, or a neighbour that matches no row or cannot be compared exactly.
func intLiteral(r *rand.Rand, n int64) string {
	forms := []string{"%d", "'%d'", "%d.0", "%d.00", "%de0", "'%d.0'", "' %d'", "'%d '", "'%dabc'", "'%de0'",
		"_binary'%d'", "%d.5", "'%d.5'", "%d.49", "'%d.0000000000000000001'", "'+%d'"}
	f := forms[r.IntN(len(forms))]
	switch r.IntN(20) {
	case 0:
		return []string{"-0.0", "'-0'", "'abc'", "''", "'0x10'", "'1e400'", "'5e'", "'.5e1'", "1e1", "'1e1'"}[r.IntN(10)]
	case 1:
		// Beyond 2^53 shardgen routes a string or a double to every data
		// node. (A double there is left out: MariaDB compares it exactly
		// through an index and as a double in a scan or a mixed IN list,
		// so the unsharded answer depends on the server's plan.)
		return []string{"'9007199254740993'", "9007199254740993.0", "'9007199254740992.5'"}[r.IntN(3)]
	case 2:
		if n >= 0 {
			return []string{fmt.Sprintf("0x%x", n), fmt.Sprintf("X'%x'", strconv.FormatInt(n, 10)), "b'" + strconv.FormatInt(n, 2) + "'"}[r.IntN(3)]
		}
	}
	if strings.Contains(f, "e0") && (n <= -1<<53 || n >= 1<<53) {
		f = "%d"
	}
	return fmt.Sprintf(f, n)
}

// intParam is n as a client may bind it: a Go integer, a string, a double,
// bytes, or a non-whole neighbour.
func intParam(r *rand.Rand, n int64) any {
	switch r.IntN(8) {
	case 0:
		return n
	case 1:
		return strconv.FormatInt(n, 10)
	case 2, 3:
		if n <= -1<<53 || n >= 1<<53 {
			return strconv.FormatInt(n, 10) // see intLiteral on doubles beyond 2^53
		}
		if r.IntN(2) == 0 {
			return float64(n) + 0.5
		}
		return float64(n)
	case 4:
		return []byte(strconv.FormatInt(n, 10))
	case 5:
		return strconv.FormatInt(n, 10) + ".0"
	case 6:
		return " " + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10) + ".5"
}

func someID(r *rand.Rand) int64 {
	switch r.IntN(8) {
	case 0:
		return bigIDs[r.IntN(len(bigIDs))]
	case 1:
		return negIDs[r.IntN(len(negIDs))]
	}
	return int64(r.IntN(50))
}

// dateLiteral writes day (and, on a DATETIME, its time at) in one of the
// forms MySQL reads as a date, or one it reads otherwise.
func dateLiteral(r *rand.Rand, at time.Time, datetime bool) string {
	if !datetime {
		forms := []string{"'2006-01-02'", "'20060102'", "'2006-1-2'", "'2006/01/02'", "'06-01-02'", "'060102'", "20060102",
			"'2006-01-02T00:00:00'", "'2006-01-02 00:00:00'", "'2006-01-02 10:00:00'", "'2006.01.02'", "' 2006-01-02'",
			"'2006-01-02x'", "'2006-1-2 0:0:0'", "'2006-01-02 00:00:00.000001'", "20060102.0", "'2006-01-02 '"}
		return at.Format(forms[r.IntN(len(forms))])
	}
	forms := []string{"'2006-01-02 15:04:05'", "'20060102150405'", "'2006-1-2 15:4:5'", "'2006/01/02 15.04.05'",
		"'2006-01-02T15:04:05'", "20060102150405", "'2006-01-02 15:04:05.5'", "'2006-01-02'", "'2006-01-02 15:04'",
		"'060102150405'", "'2006-01-02 15:04:05.000000'"}
	return at.Format(forms[r.IntN(len(forms))])
}

func someDay(r *rand.Rand) time.Time {
	id := 1 + r.IntN(60)
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, id*37%90)
	if r.IntN(4) == 0 {
		day = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(90)) // maybe no row
	}
	return day
}

// genValueQuery draws one statement comparing a sharding column with
// values of other types, literal or bound.
func genValueQuery(r *rand.Rand) valueQuery {
	if r.IntN(8) == 0 {
		table := []string{"dv_code", "dv_char"}[r.IntN(2)]
		sel := "SELECT id, code FROM " + table + " WHERE "
		a, b := codes[r.IntN(len(codes))], codes[r.IntN(len(codes))]
		switch r.IntN(4) {
		case 0:
			return valueQuery{sql: sel + "code = ?", params: []any{a + strings.Repeat(" ", r.IntN(4))}}
		case 1:
			return valueQuery{sql: sel + "code IN (" + codeLiteral(a, r.IntN(4)) + ", " + codeLiteral(b, r.IntN(4)) + ")"}
		case 2:
			return valueQuery{sql: sel + "code = " + codeLiteral(a, r.IntN(4)) + " OR code = ?", params: []any{b + strings.Repeat(" ", r.IntN(4))}}
		}
		return valueQuery{sql: sel + "code = " + codeLiteral(a, r.IntN(4))}
	}
	switch r.IntN(10) {
	case 0, 1, 2, 3:
		sel := "SELECT user_id, name FROM dv_user WHERE "
		a, b := someID(r), someID(r)
		lo, hi := min(a, b), max(a, b)
		if hi-lo > 40 {
			hi = lo + int64(r.IntN(8))
		}
		switch r.IntN(7) {
		case 0:
			return valueQuery{sql: sel + intLiteral(r, a) + " = user_id"}
		case 1:
			return valueQuery{sql: sel + "user_id IN (" + intLiteral(r, a) + ", " + intLiteral(r, b) + ")"}
		case 2:
			return valueQuery{sql: sel + "user_id BETWEEN " + intLiteral(r, lo) + " AND " + intLiteral(r, hi)}
		case 3:
			return valueQuery{sql: sel + "BINARY user_id = " + intLiteral(r, a)}
		case 4:
			return valueQuery{sql: sel + "user_id = " + intLiteral(r, a) + " OR user_id = " + intLiteral(r, b)}
		case 5:
			return valueQuery{sql: sel + "user_id >= " + intLiteral(r, lo) + " AND user_id <= " + intLiteral(r, hi)}
		}
		return valueQuery{sql: sel + "user_id = " + intLiteral(r, a)}
	case 4, 5, 6:
		sel := "SELECT user_id, name FROM dv_user WHERE "
		a, b := someID(r), someID(r)
		switch r.IntN(4) {
		case 0:
			return valueQuery{sql: sel + "user_id IN (?, ?)", params: []any{intParam(r, a), intParam(r, b)}}
		case 1:
			return valueQuery{sql: sel + "BINARY user_id = ?", params: []any{intParam(r, a)}}
		case 2:
			lo, hi := min(a, b), max(a, b)
			return valueQuery{sql: sel + "user_id BETWEEN ? AND ?", params: []any{intParam(r, lo), intParam(r, min(hi, lo+10))}}
		}
		return valueQuery{sql: sel + "user_id = ?", params: []any{intParam(r, a)}}
	case 7:
		day := someDay(r)
		if r.IntN(3) == 0 {
			return valueQuery{sql: "SELECT id, day FROM dv_day WHERE day = ?", params: []any{[]any{day, day.Format("20060102"), day.Format("2006-1-2"), day.Format("2006-01-02")}[r.IntN(4)]}}
		}
		if r.IntN(3) == 0 {
			hi := day.AddDate(0, 0, r.IntN(20))
			return valueQuery{sql: "SELECT id, day FROM dv_day WHERE day BETWEEN " + dateLiteral(r, day, false) + " AND " + dateLiteral(r, hi, false)}
		}
		return valueQuery{sql: "SELECT id, day FROM dv_day WHERE day = " + dateLiteral(r, day, false)}
	default:
		id := int64(1 + r.IntN(60))
		day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(id*37%90))
		at := day.Add(time.Duration(id) * (time.Hour + time.Minute + time.Second))
		if r.IntN(3) == 0 {
			return valueQuery{sql: "SELECT id, at FROM dv_log WHERE at = ?", params: []any{[]any{at, at.Format("20060102150405"), at.Format("2006-1-2 15:4:5")}[r.IntN(3)]}}
		}
		if r.IntN(3) == 0 {
			return valueQuery{sql: "SELECT id, at FROM dv_log WHERE at BETWEEN " + dateLiteral(r, day, false) + " AND " + dateLiteral(r, at, true)}
		}
		return valueQuery{sql: "SELECT id, at FROM dv_log WHERE at IN (" + dateLiteral(r, at, true) + ", " + dateLiteral(r, day, true) + ")"}
	}
}

// TestShardingValues compares sharding values of other types than their
// column (integers as strings, decimals, doubles, hex, dates in MySQL's
// relaxed forms, bound as strings, doubles and bytes) with the unsharded
// reference on three paths: the interpreter, the proxy's text protocol
// (interpolateParams) and its binary protocol; -values N queries per path
// (400 by default). The rows were inserted in such forms too.
func TestShardingValues(t *testing.T) {
	e := newEnv(t, valuesRules, valuesDDL)
	e.adHoc = true
	seedValues(t, e)
	srv := startProxy(t, valuesRules, valuesDDL)
	open := func(interpolate bool) *sql.DB {
		mc := gomysql.NewConfig()
		mc.User, mc.Net, mc.Addr, mc.DBName, mc.ParseTime, mc.InterpolateParams = "any", "tcp", srv.Addr(), "difftest", true, interpolate
		db, err := sql.Open("mysql", mc.FormatDSN())
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return db
	}
	text, binary := open(true), open(false)
	paths := []struct {
		name string
		run  func(q valueQuery) string
	}{
		{"interpreter", func(q valueQuery) string { return e.query(q.sql, nil, nil, nil, q.params...) }},
		{"proxy text", func(q valueQuery) string { return e.compareWith(text, q) }},
		{"proxy binary", func(q valueQuery) string { return e.compareWith(binary, q) }},
	}
	total := 0
	for _, path := range paths {
		r := rand.New(rand.NewPCG(2026, 12))
		mismatches := 0
		for i := 0; i < *valuesSize; i++ {
			q := genValueQuery(r)
			if msg := path.run(q); msg != "" {
				mismatches++
				if mismatches <= 10 {
					t.Errorf("%s, query %d: %s %v\n  %s", path.name, i, q.sql, q.params, msg)
				}
			}
		}
		require.Zero(t, mismatches, "%s: %d of %d queries differ from the unsharded reference", path.name, mismatches, *valuesSize)
		total += *valuesSize
	}
	// Writes find their rows the same way (affected rows compared).
	for _, w := range []valueQuery{
		{sql: "UPDATE dv_user SET name = 'w7' WHERE user_id = '7'"},
		{sql: "UPDATE dv_user SET name = 'w8' WHERE user_id IN (8.0, 9e0, ' 10', 11.5)"},
		{sql: "UPDATE dv_user SET name = 'w12' WHERE user_id = ?", params: []any{"12"}},
		{sql: "UPDATE dv_user SET name = 'w13' WHERE user_id = ?", params: []any{13.0}},
		{sql: "DELETE FROM dv_user WHERE user_id = 0x0e"},
		{sql: "DELETE FROM dv_user WHERE user_id BETWEEN 14.5 AND '16.2'"},
		{sql: "DELETE FROM dv_day WHERE day = '2026/2/7' OR day = 20260208"},
		{sql: "DELETE FROM dv_log WHERE at BETWEEN '20260301' AND '2026-03-02 23:59:59'"},
	} {
		e.exec(w.sql, w.params...)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 50; i++ {
		q := genValueQuery(r)
		for _, msg := range []string{e.query(q.sql, nil, nil, nil, q.params...), e.compareWith(binary, q)} {
			require.Empty(t, msg, "after the writes: %s %v", q.sql, q.params)
		}
	}
	t.Logf("%d queries on 3 paths, 0 mismatches", total)
}

// compareWith runs q through db (a client of the proxy) and on the
// reference, and returns a mismatch description or "".
func (e *env) compareWith(db *sql.DB, q valueQuery) string {
	ctx := context.Background()
	rows, err := db.QueryContext(ctx, q.sql, q.params...)
	if err != nil {
		return fmt.Sprintf("proxy error: %v", err)
	}
	got, err := scanRows(rows)
	if err != nil {
		return fmt.Sprintf("proxy scan: %v", err)
	}
	rows, err = e.ref.QueryContext(ctx, q.sql, q.params...)
	if err != nil {
		return fmt.Sprintf("reference error: %v", err)
	}
	want, err := scanRows(rows)
	if err != nil {
		return fmt.Sprintf("reference scan: %v", err)
	}
	a, b := sorted(got), sorted(want)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		return fmt.Sprintf("rows differ\n  sharded:   %v\n  reference: %v", got, want)
	}
	return ""
}

package runtime

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// IntervalAlgorithm is ShardingSphere's INTERVAL standard sharding algorithm:
// time windows of datetime-interval-amount × datetime-interval-unit laid from
// datetime-lower up to datetime-upper, each routed to the targets whose name
// ends with the window start formatted by sharding-suffix-pattern.
//
// Props (validated once, here):
//   - datetime-pattern (required): a java.time DateTimeFormatter pattern for
//     the sharding values and for datetime-lower/-upper, e.g.
//     "yyyy-MM-dd HH:mm:ss". Supported letters: y and u (year; yy is the
//     two-digit year 2000-2099), M and L (month, 1 or 2 letters), d, H, m, s
//     (1 or 2 letters), S (fraction of second, 1-9 letters), plus literal
//     characters and 'quoted text'. Adjacent numeric fields ("yyyyMMdd",
//     "HHmmss") parse like Java's adjacent value parsing. Anything else
//     (text months, am/pm, zones, week fields, optional sections [...]) is
//     refused here rather than mis-parsed.
//   - datetime-lower (required), datetime-upper (default: now, read once
//     when the algorithm is configured, as ShardingSphere does at init):
//     parsed with datetime-pattern.
//   - sharding-suffix-pattern (required): a pattern with the letters above
//     plus Q (quarter of year, 1 or 2 letters), e.g. "yyyyMM", "yyyyQQ".
//   - datetime-interval-amount (default 1, > 0): a Java int.
//   - datetime-interval-unit (default Days): a java.time ChronoUnit display
//     name, case-insensitive, exactly as ShardingSphere accepts it: Nanos,
//     Micros, Millis, Seconds, Minutes, Hours, HalfDays, Days, Weeks,
//     Months, Years, Decades, Centuries, Millennia ("HALF_DAYS" is refused,
//     as ShardingSphere refuses it).
//
// The fields datetime-lower yields decide the temporal type the windows step
// in, as ShardingSphere's TemporalHandlerFactory does: LocalDateTime (date
// and time), LocalDate (year, month, day), YearMonth, Year, Month (windows
// stop before any window would run past December) or LocalTime (time only).
// A unit that type cannot add (Hours on a LocalDate, Days on a LocalTime), a
// suffix pattern needing a field the type lacks, a LocalTime window that
// would wrap past midnight and more than 1048576 windows are refused here;
// in ShardingSphere each fails every query (or never ends).
//
// Values: a String's first len(datetime-pattern) characters are parsed with
// the pattern, a shorter String with the pattern cut to its length (the
// go-gorm compatibility rule); a Time is formatted with the pattern from its
// wall clock (its location is ignored, like the JVM default zone) and parsed
// back; an Integer or Long value by its decimal text. Parsing follows
// ResolverStyle.SMART: day 31 in a 30-day month clamps to the 30th, 24:00:00
// is midnight of the next day. Years outside 1..9999 are not supported.
// Month-only patterns read the text as a month number, as ShardingSphere's
// MonthTemporalHandler does.
//
// Routing: a precise value goes to the window holding it ([start, end)), and
// to the target ShardingSphere finds first among those ending with its
// suffix (Java HashSet iteration order by String hashCode; ties, which need
// two such names in one hash bucket, go to the earlier target). A range goes
// to every window it intersects, open and closed bounds honoured; a missing
// bound stands for datetime-lower or datetime-upper, and a range whose lower
// end then lies after its upper end is an error, as ShardingSphere's Guava
// Range.range throws.
//
// Source: ShardingSphere IntervalShardingAlgorithm, temporal/*TemporalHandler,
// OpenJDK DateTimeFormatterBuilder and Parsed;
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/
type IntervalAlgorithm struct {
	pattern *jpattern
	// relaxed[n] is datetime-pattern cut to n UTF-16 units, for values
	// shorter than the pattern; nil when that cut is not a valid pattern.
	relaxed []*jpattern
	patLen  int // UTF-16 length of datetime-pattern
	suffix  *jpattern
	kind    tkind
	amount  int64
	unit    chronoUnit

	lower, upper tkey
	// starts holds the window starts in order, plus the end of the last
	// window: window i is [starts[i], starts[i+1]).
	starts []tkey
}

var _ StandardAlgorithm = (*IntervalAlgorithm)(nil)

// maxIntervalWindows bounds the windows an INTERVAL algorithm may lay out.
const maxIntervalWindows = 1 << 20

func newIntervalAlgorithm(props Props) (Algorithm, error) {
	return newIntervalAlgorithmAt(props, time.Now())
}

// newIntervalAlgorithmAt is newIntervalAlgorithm with now as the default
// datetime-upper.
func newIntervalAlgorithmAt(props Props, now time.Time) (Algorithm, error) {
	patText, err := props.Required("datetime-pattern")
	if err != nil {
		return nil, err
	}
	pat, err := compileJavaPattern(patText, false)
	if err != nil {
		return nil, &PropError{Prop: "datetime-pattern", Msg: err.Error()}
	}
	a := &IntervalAlgorithm{pattern: pat, patLen: javaStringLength(patText)}
	a.relaxed = make([]*jpattern, a.patLen)
	for n := range a.relaxed {
		if p, err := compileJavaPattern(javaSubstring(patText, 0, n), false); err == nil {
			a.relaxed[n] = p
		}
	}

	lowerText, err := props.Required("datetime-lower")
	if err != nil {
		return nil, err
	}
	lowerT, ok := pat.parse(lowerText, false)
	if !ok {
		return nil, &PropError{Prop: "datetime-lower", Msg: fmt.Sprintf("must match datetime-pattern %q, got %q", patText, lowerText)}
	}
	if a.kind, ok = lowerT.kind(); !ok {
		return nil, &PropError{Prop: "datetime-pattern", Msg: fmt.Sprintf("%q gives neither a date, a year, a month nor a time of day", patText)}
	}
	a.lower, _ = lowerT.key(a.kind)

	if upperText, ok := props["datetime-upper"]; ok && strings.TrimSpace(upperText) != "" {
		upperText = strings.TrimSpace(upperText)
		upperT, ok := pat.parse(upperText, false)
		if !ok {
			return nil, &PropError{Prop: "datetime-upper", Msg: fmt.Sprintf("must match datetime-pattern %q, got %q", patText, upperText)}
		}
		if a.upper, ok = upperT.key(a.kind); !ok {
			return nil, &PropError{Prop: "datetime-upper", Msg: fmt.Sprintf("must match datetime-pattern %q, got %q", patText, upperText)}
		}
	} else {
		nowT, ok := temporalOfTime(now)
		if !ok {
			return nil, &PropError{Prop: "datetime-upper", Msg: "defaults to now, whose year is outside 1..9999"}
		}
		a.upper, _ = nowT.key(a.kind)
	}

	suffixText, err := props.Required("sharding-suffix-pattern")
	if err != nil {
		return nil, err
	}
	if a.suffix, err = compileJavaPattern(suffixText, true); err != nil {
		return nil, &PropError{Prop: "sharding-suffix-pattern", Msg: err.Error()}
	}
	if missing := a.suffix.fields &^ a.kind.fields(); missing != 0 {
		return nil, &PropError{Prop: "sharding-suffix-pattern", Msg: fmt.Sprintf("%q needs %s, which a %s window start (from datetime-pattern %q) does not have",
			suffixText, missing, a.kind, patText)}
	}

	amount, err := javaIntProp(props, "datetime-interval-amount", false, 1, 1)
	if err != nil {
		return nil, err
	}
	a.amount = amount
	a.unit = cuDays
	if unitText, ok := props["datetime-interval-unit"]; ok {
		if a.unit, ok = parseChronoUnit(strings.TrimSpace(unitText)); !ok {
			return nil, &PropError{Prop: "datetime-interval-unit", Msg: fmt.Sprintf("must be a ChronoUnit name (%s; case-insensitive), got %q",
				strings.Join(chronoUnitNames[:], ", "), unitText)}
		}
	}
	if !a.kind.supports(a.unit) {
		return nil, &PropError{Prop: "datetime-interval-unit", Msg: fmt.Sprintf("%s cannot step a %s (datetime-pattern %q)", a.unit, a.kind, patText)}
	}
	if err := a.layWindows(); err != nil {
		return nil, err
	}
	return a, nil
}

// layWindows computes the window starts as ShardingSphere's loop does:
// cursor = lower; while !isAfter(cursor, upper): window [cursor,
// cursor+step); cursor += step.
func (a *IntervalAlgorithm) layWindows() error {
	cursor := a.lower
	for !a.kind.isAfter(cursor, a.upper, a.amount) {
		next, ok := a.kind.plus(cursor, a.amount, a.unit)
		if !ok {
			return &PropError{Prop: "datetime-interval-amount", Msg: fmt.Sprintf("%d %s from %s overflows", a.amount, a.unit, a.kind.text(cursor))}
		}
		switch c := next.cmp(cursor); {
		case c < 0:
			// A LocalTime wraps at midnight; a Month only past December
			// when cursor+amount overflows Java's int in isAfter. Guava's
			// closedOpen then throws on every query.
			past := "midnight"
			if a.kind == tkMonth {
				past = "December"
			}
			return &PropError{Prop: "datetime-interval-amount", Msg: fmt.Sprintf("window from %s wraps past %s (%d %s); ShardingSphere fails every query on it",
				a.kind.text(cursor), past, a.amount, a.unit)}
		case c == 0:
			return &PropError{Prop: "datetime-interval-amount", Msg: fmt.Sprintf("%d %s does not advance a %s", a.amount, a.unit, a.kind)}
		}
		if len(a.starts) == maxIntervalWindows {
			return &PropError{Prop: "datetime-interval-amount", Msg: fmt.Sprintf("gives more than %d windows between datetime-lower and datetime-upper", maxIntervalWindows)}
		}
		a.starts = append(a.starts, cursor)
		cursor = next
	}
	a.starts = append(a.starts, cursor)
	return nil
}

// Type returns "INTERVAL".
func (a *IntervalAlgorithm) Type() string { return "INTERVAL" }

// Windows returns the number of windows between datetime-lower and
// datetime-upper.
func (a *IntervalAlgorithm) Windows() int { return len(a.starts) - 1 }

// BindStandard formats every window's suffix and finds the targets ending
// with it. Errors: an empty targets list.
func (a *IntervalAlgorithm) BindStandard(column string, targets []string) (StandardRouter, error) {
	if len(targets) == 0 {
		return nil, fmt.Errorf("INTERVAL on %s: %w", column, errNoTargets)
	}
	r := &intervalRouter{alg: a, column: column, windowGroup: make([]int32, a.Windows())}
	bySuffix := make(map[string]int32)
	var buf []byte
	for i := range r.windowGroup {
		t := a.kind.temporal(a.starts[i])
		buf = a.suffix.format(buf[:0], &t)
		g, ok := bySuffix[string(buf)]
		if !ok {
			g = int32(len(r.groups))
			suffix := string(buf)
			bySuffix[suffix] = g
			r.groups = append(r.groups, newSuffixGroup(suffix, targets))
		}
		r.windowGroup[i] = g
	}
	return r, nil
}

// suffixGroup is the targets of one window suffix.
type suffixGroup struct {
	suffix  string
	targets []int // ascending indexes of the targets ending with suffix
	first   int   // the one a precise value gets (Java HashSet order), -1 if none
}

func newSuffixGroup(suffix string, targets []string) suffixGroup {
	g := suffixGroup{suffix: suffix, first: -1}
	for i, name := range targets {
		if strings.HasSuffix(name, suffix) {
			g.targets = append(g.targets, i)
		}
	}
	g.first = javaHashSetFirst(targets, g.targets)
	return g
}

// javaHashSetFirst returns, of the targets at idx, the one a
// java.util.HashSet holding just their names iterates first: the lowest
// bucket (h ^ h>>>16) & (capacity-1), capacity 16 doubled while more than
// 3/4 full. Ties go to the earlier index. -1 for none.
func javaHashSetFirst(names []string, idx []int) int {
	if len(idx) == 0 {
		return -1
	}
	capacity := 16
	for len(idx) > capacity*3/4 {
		capacity *= 2
	}
	best, bestBucket := -1, capacity
	for _, i := range idx {
		h := uint32(javaStringHash(names[i]))
		if b := int((h ^ h>>16) & uint32(capacity-1)); b < bestBucket {
			best, bestBucket = i, b
		}
	}
	return best
}

type intervalRouter struct {
	alg         *IntervalAlgorithm
	column      string
	windowGroup []int32 // window → groups index
	groups      []suffixGroup
}

// Precise returns the target of the window holding v. String values in the
// pattern's form do not allocate.
func (r *intervalRouter) Precise(v Value) (int, error) {
	a := r.alg
	if v.Kind == KindNull {
		return -1, nullValueError("INTERVAL", r.column)
	}
	n := a.Windows()
	if n == 0 {
		return -1, fmt.Errorf("INTERVAL on %s: there is no window from datetime-lower to datetime-upper to hold sharding value %s: %w",
			r.column, shardingValueText(v), ErrNoTarget)
	}
	k, err := r.key(v)
	if err != nil {
		return -1, err
	}
	// The last window start ≤ k; it holds k if k is before its end.
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a.starts[m].cmp(k) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	w := lo - 1
	if w < 0 || k.cmp(a.starts[w+1]) >= 0 {
		return -1, fmt.Errorf("INTERVAL on %s: sharding value %s is outside the windows from datetime-lower to datetime-upper: %w",
			r.column, shardingValueText(v), ErrNoTarget)
	}
	g := &r.groups[r.windowGroup[w]]
	if g.first < 0 {
		return -1, fmt.Errorf("INTERVAL on %s: sharding value %s routes to suffix %q, which no target ends with: %w",
			r.column, shardingValueText(v), g.suffix, ErrNoTarget)
	}
	return g.first, nil
}

// Range appends the targets of every window the range intersects.
func (r *intervalRouter) Range(dst []int, rg Range) ([]int, error) {
	a := r.alg
	n := a.Windows()
	if n == 0 {
		return dst, nil
	}
	lo, loClosed := a.lower, true
	hi, hiClosed := a.upper, true
	var err error
	if rg.HasLower {
		if rg.Lower.Kind == KindNull {
			return dst, nullValueError("INTERVAL", r.column)
		}
		if lo, err = r.key(rg.Lower); err != nil {
			return dst, err
		}
		loClosed = !rg.LowerOpen
	}
	if rg.HasUpper {
		if rg.Upper.Kind == KindNull {
			return dst, nullValueError("INTERVAL", r.column)
		}
		if hi, err = r.key(rg.Upper); err != nil {
			return dst, err
		}
		hiClosed = !rg.UpperOpen
	}
	if c := lo.cmp(hi); c > 0 || c == 0 && !loClosed && !hiClosed {
		return dst, fmt.Errorf("INTERVAL on %s: invalid range %s; a missing bound stands for datetime-lower or datetime-upper, and ShardingSphere fails such a range",
			r.column, a.kind.rangeText(lo, loClosed, hi, hiClosed))
	}
	// First window whose end is after lo.
	first, last := 0, n
	for first < last {
		m := int(uint(first+last) >> 1)
		if a.starts[m+1].cmp(lo) <= 0 {
			first = m + 1
		} else {
			last = m
		}
	}
	start := len(dst)
	for w := first; w < n && a.starts[w].cmp(hi) <= 0; w++ {
		if intersects(a.starts[w], a.starts[w+1], lo, loClosed, hi, hiClosed) {
			dst = append(dst, r.groups[r.windowGroup[w]].targets...)
		}
	}
	added := dst[start:]
	slices.Sort(added)
	return dst[:start+len(slices.Compact(added))], nil
}

// intersects reports whether [s, e) and the range lo..hi (bound types as
// given) share a point: Guava's isConnected && !intersection.isEmpty().
func intersects(s, e, lo tkey, loClosed bool, hi tkey, hiClosed bool) bool {
	l, lClosed := s, true
	switch c := s.cmp(lo); {
	case c < 0:
		l, lClosed = lo, loClosed
	case c == 0:
		lClosed = loClosed
	}
	u, uClosed := e, false
	if e.cmp(hi) > 0 {
		u, uClosed = hi, hiClosed
	}
	c := l.cmp(u)
	return c < 0 || c == 0 && lClosed && uClosed
}

// key parses a sharding value into the algorithm's temporal type
// (IntervalShardingAlgorithm#parseTemporal).
func (r *intervalRouter) key(v Value) (tkey, error) {
	a := r.alg
	var buf [64]byte
	var text string
	switch v.Kind {
	case KindTime:
		t, ok := temporalOfTime(v.Time)
		if !ok {
			return tkey{}, fmt.Errorf("INTERVAL on %s: sharding value %s has a year outside 1..9999", r.column, shardingValueText(v))
		}
		text = string(a.pattern.format(buf[:0], &t))
	case KindInt, KindLong:
		text = string(strconv.AppendInt(buf[:0], v.Int, 10))
	default:
		text = v.Text()
	}
	k, ok := a.textKey(text)
	if !ok {
		return tkey{}, fmt.Errorf("INTERVAL on %s: sharding value %s does not match datetime-pattern %q", r.column, shardingValueText(v), a.pattern.src)
	}
	return k, nil
}

// textKey parses the text of a value: its first patLen UTF-16 units with the
// pattern, or all of a shorter text with the pattern cut to its length.
func (a *IntervalAlgorithm) textKey(text string) (tkey, bool) {
	p := a.pattern
	if n := javaStringLength(text); n >= a.patLen {
		text = javaSubstring(text, 0, a.patLen)
	} else if p = a.relaxed[n]; p == nil {
		return tkey{}, false
	}
	if a.kind == tkMonth {
		// MonthTemporalHandler#parse: Month.of(Integer.parseInt(text)).
		m, err := strconv.ParseInt(text, 10, 32)
		if err != nil || m < 1 || m > 12 {
			return tkey{}, false
		}
		return tkey{a: m}, true
	}
	t, ok := p.parse(text, false)
	if !ok {
		return tkey{}, false
	}
	return t.key(a.kind)
}

// ---------------------------------------------------------------------------
// A subset of java.time.format.DateTimeFormatter patterns.

// jfield is a temporal field a pattern letter reads or prints.
type jfield uint8

const (
	jfYearOfEra jfield = iota // y
	jfYear                    // u
	jfQuarter                 // Q, q (printing only)
	jfMonth                   // M, L
	jfDay                     // d
	jfHour                    // H
	jfMinute                  // m
	jfSecond                  // s
	jfNano                    // S
	jfCount
)

var jfieldNames = [jfCount]string{"year-of-era", "year", "quarter-of-year", "month-of-year", "day-of-month", "hour-of-day", "minute-of-hour", "second-of-minute", "fraction-of-second"}

// jfieldSet is a set of jfields.
type jfieldSet uint16

func (s jfieldSet) has(f jfield) bool { return s&(1<<f) != 0 }

// String lists the fields, e.g. "day-of-month, hour-of-day".
func (s jfieldSet) String() string {
	var names []string
	for f := jfield(0); f < jfCount; f++ {
		if s.has(f) {
			names = append(names, jfieldNames[f])
		}
	}
	return strings.Join(names, ", ")
}

// jsign is java.time.format.SignStyle, as far as it matters here.
type jsign uint8

const (
	jsignNormal      jsign = iota // value(field) and y/yyy
	jsignNotNegative              // fixed widths: MM, dd, yy, SSS
	jsignExceedsPad               // yyyy and longer
)

// jelem is one printer-parser of a pattern: a literal or a numeric field.
type jelem struct {
	lit        string // literal text (numeric == false)
	numeric    bool
	field      jfield
	minW, maxW int
	sign       jsign
	reduced    bool // yy: two digits, base year 2000
	fraction   bool // S...: fraction of second, minW == maxW digits
	subsequent int  // Java's subsequentWidth: digits reserved for adjacent fixed-width fields; -1 = fixed
}

func (e *jelem) fixed() bool { return e.minW == e.maxW && e.sign == jsignNotNegative }

// jpattern is a compiled pattern.
type jpattern struct {
	src    string
	elems  []jelem
	fields jfieldSet
}

// compileJavaPattern compiles a DateTimeFormatter pattern (see
// IntervalAlgorithm for the supported letters). quarter allows Q/q, which
// only sharding-suffix-pattern may use. Errors name the offending letter.
func compileJavaPattern(src string, quarter bool) (*jpattern, error) {
	p := &jpattern{src: src}
	active := -1 // index of the numeric element adjacent fields attach to
	addLit := func(s string) {
		if n := len(p.elems); n > 0 && !p.elems[n-1].numeric {
			p.elems[n-1].lit += s
		} else {
			p.elems = append(p.elems, jelem{lit: s})
		}
		active = -1
	}
	addNum := func(e jelem) {
		e.subsequent = 0
		p.fields |= 1 << e.field
		switch {
		case active >= 0 && e.fixed():
			p.elems[active].subsequent += e.maxW
			e.subsequent = -1
			p.elems = append(p.elems, e)
		case active >= 0:
			p.elems[active].subsequent = -1
			p.elems = append(p.elems, e)
			active = len(p.elems) - 1
		default:
			p.elems = append(p.elems, e)
			active = len(p.elems) - 1
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			n := 1
			for i+n < len(src) && src[i+n] == c {
				n++
			}
			i += n
			if err := compileLetter(c, n, quarter, addNum); err != nil {
				return nil, fmt.Errorf("%s in %q", err, src)
			}
		case c == '\'':
			j := i + 1
			var lit strings.Builder
			for {
				if j >= len(src) {
					return nil, fmt.Errorf("%q ends with an incomplete 'quoted' literal", src)
				}
				if src[j] == '\'' {
					if j+1 < len(src) && src[j+1] == '\'' {
						lit.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				lit.WriteByte(src[j])
				j++
			}
			if j == i+1 {
				addLit("'")
			} else {
				addLit(lit.String())
			}
			i = j + 1
		case c == '[' || c == ']':
			return nil, fmt.Errorf("optional sections [...] are not supported in %q", src)
		case c == '{' || c == '}' || c == '#':
			return nil, fmt.Errorf("reserved character %q in %q", c, src)
		default:
			_, size := utf8.DecodeRuneInString(src[i:])
			addLit(src[i : i+size])
			i += size
		}
	}
	return p, nil
}

// compileLetter adds the element of n repeats of pattern letter c, following
// DateTimeFormatterBuilder#parseField.
func compileLetter(c byte, n int, quarter bool, add func(jelem)) error {
	value := func(f jfield) error {
		switch n {
		case 1:
			add(jelem{numeric: true, field: f, minW: 1, maxW: 19, sign: jsignNormal})
		case 2:
			add(jelem{numeric: true, field: f, minW: 2, maxW: 2, sign: jsignNotNegative})
		default:
			return fmt.Errorf("%d pattern letters %c are not supported (1 or 2)", n, c)
		}
		return nil
	}
	switch c {
	case 'y', 'u':
		f := jfYearOfEra
		if c == 'u' {
			f = jfYear
		}
		switch {
		case n == 2:
			add(jelem{numeric: true, field: f, minW: 2, maxW: 2, sign: jsignNotNegative, reduced: true})
		case n > 19:
			return fmt.Errorf("too many pattern letters %c", c)
		case n < 4:
			add(jelem{numeric: true, field: f, minW: n, maxW: 19, sign: jsignNormal})
		default:
			add(jelem{numeric: true, field: f, minW: n, maxW: 19, sign: jsignExceedsPad})
		}
		return nil
	case 'M', 'L':
		return value(jfMonth)
	case 'Q', 'q':
		if !quarter {
			return fmt.Errorf("pattern letter %c (quarter) is only supported in sharding-suffix-pattern", c)
		}
		return value(jfQuarter)
	case 'd':
		return value(jfDay)
	case 'H':
		return value(jfHour)
	case 'm':
		return value(jfMinute)
	case 's':
		return value(jfSecond)
	case 'S':
		if n > 9 {
			return fmt.Errorf("too many pattern letters %c", c)
		}
		add(jelem{numeric: true, field: jfNano, minW: n, maxW: n, sign: jsignNotNegative, fraction: true})
		return nil
	}
	return fmt.Errorf("unsupported pattern letter %c (supported: y u M L d H m s S, and Q in sharding-suffix-pattern)", c)
}

// jtemporal is a parsed and resolved date-time, with which parts it has.
type jtemporal struct {
	hasDate, hasTime, hasYear, hasMonth bool

	year, month, day           int
	hour, minute, second, nano int
}

// parse parses s with the pattern (strict, ResolverStyle.SMART, ISO
// chronology). prefix accepts trailing text (DateTimeFormatter#parse with a
// ParsePosition); otherwise all of s must be consumed. It does not allocate.
func (p *jpattern) parse(s string, prefix bool) (jtemporal, bool) {
	var vals [jfCount]int64
	var set jfieldSet
	pos := 0
	for i := range p.elems {
		e := &p.elems[i]
		if !e.numeric {
			if !strings.HasPrefix(s[pos:], e.lit) {
				return jtemporal{}, false
			}
			pos += len(e.lit)
			continue
		}
		effMax := e.maxW + max(e.subsequent, 0)
		n := 0
		for pos+n < len(s) && n < effMax && s[pos+n] >= '0' && s[pos+n] <= '9' {
			n++
		}
		if n < e.minW {
			return jtemporal{}, false
		}
		if e.subsequent > 0 {
			n = max(e.minW, n-e.subsequent)
		}
		if n > 18 || e.sign == jsignExceedsPad && n > e.minW {
			return jtemporal{}, false
		}
		var v int64
		for k := pos; k < pos+n; k++ {
			v = v*10 + int64(s[k]-'0')
		}
		switch {
		case e.fraction:
			for k := n; k < 9; k++ {
				v *= 10
			}
		case e.reduced && n == 2:
			v += 2000
		}
		if set.has(e.field) && vals[e.field] != v {
			return jtemporal{}, false
		}
		vals[e.field] = v
		set |= 1 << e.field
		pos += n
	}
	if !prefix && pos != len(s) {
		return jtemporal{}, false
	}
	return resolveTemporal(vals, set)
}

// resolveTemporal combines parsed fields as java.time.format.Parsed does with
// ResolverStyle.SMART.
func resolveTemporal(vals [jfCount]int64, set jfieldSet) (jtemporal, bool) {
	var t jtemporal
	if set.has(jfYearOfEra) {
		if vals[jfYearOfEra] < 1 {
			return t, false
		}
		if set.has(jfYear) && vals[jfYear] != vals[jfYearOfEra] {
			return t, false
		}
		vals[jfYear] = vals[jfYearOfEra]
		set |= 1 << jfYear
	}
	if set.has(jfYear) {
		if vals[jfYear] < 1 || vals[jfYear] > 9999 {
			return t, false
		}
		t.hasYear, t.year = true, int(vals[jfYear])
	}
	if set.has(jfMonth) {
		if vals[jfMonth] < 1 || vals[jfMonth] > 12 {
			return t, false
		}
		t.hasMonth, t.month = true, int(vals[jfMonth])
	}
	if t.hasYear && t.hasMonth && set.has(jfDay) {
		d := vals[jfDay]
		if d < 1 || d > 31 {
			return t, false
		}
		t.hasDate, t.day = true, min(int(d), daysIn(t.year, t.month))
	}
	excessDay := false
	if set.has(jfHour) {
		hasMin, hasSec, hasNano := set.has(jfMinute), set.has(jfSecond), set.has(jfNano)
		if !(!hasMin && (hasSec || hasNano)) && !(hasMin && !hasSec && hasNano) {
			h, m, s, ns := vals[jfHour], vals[jfMinute], vals[jfSecond], vals[jfNano]
			if m > 59 || s > 59 {
				return t, false
			}
			switch {
			case h == 24 && m == 0 && s == 0 && ns == 0:
				h, excessDay = 0, true
			case h > 23:
				return t, false
			}
			t.hasTime = true
			t.hour, t.minute, t.second, t.nano = int(h), int(m), int(s), int(ns)
		}
	}
	if excessDay && t.hasDate {
		t.year, t.month, t.day = civilFromDays(daysFromCivil(t.year, t.month, t.day) + 1)
		if t.year > 9999 {
			return t, false
		}
	}
	return t, true
}

// temporalOfTime returns the wall clock of tm as a full date-time (the
// LocalDateTime the JVM sees); false if its year is outside 1..9999.
func temporalOfTime(tm time.Time) (jtemporal, bool) {
	y, mo, d := tm.Date()
	h, mi, s := tm.Clock()
	if y < 1 || y > 9999 {
		return jtemporal{}, false
	}
	return jtemporal{hasDate: true, hasTime: true, hasYear: true, hasMonth: true,
		year: y, month: int(mo), day: d, hour: h, minute: mi, second: s, nano: tm.Nanosecond()}, true
}

// format prints t with the pattern, appending to dst. t must have every
// field the pattern prints (checked when the pattern was accepted).
func (p *jpattern) format(dst []byte, t *jtemporal) []byte {
	for i := range p.elems {
		e := &p.elems[i]
		if !e.numeric {
			dst = append(dst, e.lit...)
			continue
		}
		var v int64
		switch e.field {
		case jfYearOfEra, jfYear:
			v = int64(t.year)
			if e.reduced {
				v %= 100
			}
		case jfQuarter:
			v = int64((t.month-1)/3 + 1)
		case jfMonth:
			v = int64(t.month)
		case jfDay:
			v = int64(t.day)
		case jfHour:
			v = int64(t.hour)
		case jfMinute:
			v = int64(t.minute)
		case jfSecond:
			v = int64(t.second)
		case jfNano:
			var digits [9]byte
			ns := t.nano
			for k := 8; k >= 0; k-- {
				digits[k] = byte('0' + ns%10)
				ns /= 10
			}
			dst = append(dst, digits[:e.minW]...)
			continue
		}
		if e.sign == jsignExceedsPad && e.minW < 19 && v >= pow10(e.minW) {
			dst = append(dst, '+')
		}
		for w := decimalWidth(v); w < e.minW; w++ {
			dst = append(dst, '0')
		}
		dst = strconv.AppendInt(dst, v, 10)
	}
	return dst
}

func decimalWidth(v int64) int {
	w := 1
	for v >= 10 {
		v /= 10
		w++
	}
	return w
}

func pow10(n int) int64 {
	p := int64(1)
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}

// ---------------------------------------------------------------------------
// Temporal types, keys and stepping.

// tkind is the java.time type INTERVAL windows step in.
type tkind uint8

const (
	tkDateTime  tkind = iota // LocalDateTime
	tkDate                   // LocalDate
	tkYearMonth              // YearMonth
	tkYear                   // Year
	tkMonth                  // Month
	tkTime                   // LocalTime
)

var tkindNames = [...]string{"LocalDateTime", "LocalDate", "YearMonth", "Year", "Month", "LocalTime"}

// String returns the java.time type name, e.g. "YearMonth".
func (k tkind) String() string { return tkindNames[k] }

// fields returns the fields a value of the kind can print.
func (k tkind) fields() jfieldSet {
	const (
		year  = 1<<jfYearOfEra | 1<<jfYear
		month = 1<<jfMonth | 1<<jfQuarter
		date  = year | month | 1<<jfDay
		clock = 1<<jfHour | 1<<jfMinute | 1<<jfSecond | 1<<jfNano
	)
	switch k {
	case tkDateTime:
		return date | clock
	case tkDate:
		return date
	case tkYearMonth:
		return year | month
	case tkYear:
		return year
	case tkMonth:
		return month
	}
	return clock
}

// kind picks the temporal type as TemporalHandlerFactory does from the
// parsed datetime-lower; false if it has none of date, year, month, time.
func (t *jtemporal) kind() (tkind, bool) {
	switch {
	case t.hasTime && t.hasDate:
		return tkDateTime, true
	case t.hasTime:
		return tkTime, true
	case t.hasDate:
		return tkDate, true
	case t.hasYear && t.hasMonth:
		return tkYearMonth, true
	case t.hasYear:
		return tkYear, true
	case t.hasMonth:
		return tkMonth, true
	}
	return 0, false
}

// tkey is a value of a tkind, ordered by (a, b): LocalDateTime = (seconds
// since 1970-01-01T00:00 of the wall clock, nanos); LocalDate = epoch day;
// YearMonth = year*12 + month-1; Year = year; Month = 1..12; LocalTime =
// nano of day.
type tkey struct{ a, b int64 }

func (x tkey) cmp(y tkey) int {
	switch {
	case x.a < y.a:
		return -1
	case x.a > y.a:
		return 1
	case x.b < y.b:
		return -1
	case x.b > y.b:
		return 1
	}
	return 0
}

const nanosPerDay = 86400 * int64(time.Second)

// key converts t to kind k (the handler's convertTo / TemporalQueries);
// false if t lacks a part k needs.
func (t *jtemporal) key(k tkind) (tkey, bool) {
	switch k {
	case tkDateTime:
		if t.hasDate && t.hasTime {
			return tkey{a: daysFromCivil(t.year, t.month, t.day)*86400 + int64(t.hour*3600+t.minute*60+t.second), b: int64(t.nano)}, true
		}
	case tkDate:
		if t.hasDate {
			return tkey{a: daysFromCivil(t.year, t.month, t.day)}, true
		}
	case tkYearMonth:
		if t.hasYear && t.hasMonth {
			return tkey{a: int64(t.year)*12 + int64(t.month-1)}, true
		}
	case tkYear:
		if t.hasYear {
			return tkey{a: int64(t.year)}, true
		}
	case tkMonth:
		if t.hasMonth {
			return tkey{a: int64(t.month)}, true
		}
	case tkTime:
		if t.hasTime {
			return tkey{a: int64(t.hour*3600+t.minute*60+t.second)*int64(time.Second) + int64(t.nano)}, true
		}
	}
	return tkey{}, false
}

// temporal converts a key back to fields, for formatting.
func (k tkind) temporal(x tkey) jtemporal {
	var t jtemporal
	switch k {
	case tkDateTime:
		days, secs := floorDivMod(x.a, 86400)
		t.year, t.month, t.day = civilFromDays(days)
		t.hour, t.minute, t.second, t.nano = int(secs/3600), int(secs/60%60), int(secs%60), int(x.b)
		t.hasDate, t.hasTime, t.hasYear, t.hasMonth = true, true, true, true
	case tkDate:
		t.year, t.month, t.day = civilFromDays(x.a)
		t.hasDate, t.hasYear, t.hasMonth = true, true, true
	case tkYearMonth:
		y, m := floorDivMod(x.a, 12)
		t.year, t.month = int(y), int(m)+1
		t.hasYear, t.hasMonth = true, true
	case tkYear:
		t.year, t.hasYear = int(x.a), true
	case tkMonth:
		t.month, t.hasMonth = int(x.a), true
	case tkTime:
		secs := x.a / int64(time.Second)
		t.hour, t.minute, t.second, t.nano = int(secs/3600), int(secs/60%60), int(secs%60), int(x.a%int64(time.Second))
		t.hasTime = true
	}
	return t
}

// text renders a key for error messages, e.g. "2021-06-01T00:00".
func (k tkind) text(x tkey) string {
	t := k.temporal(x)
	switch k {
	case tkDateTime:
		return fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%09d", t.year, t.month, t.day, t.hour, t.minute, t.second, t.nano)
	case tkDate:
		return fmt.Sprintf("%04d-%02d-%02d", t.year, t.month, t.day)
	case tkYearMonth:
		return fmt.Sprintf("%04d-%02d", t.year, t.month)
	case tkYear:
		return strconv.Itoa(t.year)
	case tkMonth:
		return time.Month(t.month).String()
	}
	return fmt.Sprintf("%02d:%02d:%02d.%09d", t.hour, t.minute, t.second, t.nano)
}

// rangeText renders a range for error messages, e.g. "[2021-06-01..2021-05-01)".
func (k tkind) rangeText(lo tkey, loClosed bool, hi tkey, hiClosed bool) string {
	open, end := "(", ")"
	if loClosed {
		open = "["
	}
	if hiClosed {
		end = "]"
	}
	return open + k.text(lo) + ".." + k.text(hi) + end
}

// isAfter is the handler's isAfter(cursor, upper, stepAmount): Month also
// stops once cursor+step would pass December (Java int arithmetic).
func (k tkind) isAfter(cursor, upper tkey, amount int64) bool {
	if k == tkMonth {
		return cursor.a > upper.a || int32(cursor.a)+int32(amount) > 12
	}
	return cursor.cmp(upper) > 0
}

// chronoUnit is java.time.temporal.ChronoUnit.
type chronoUnit uint8

const (
	cuNanos chronoUnit = iota
	cuMicros
	cuMillis
	cuSeconds
	cuMinutes
	cuHours
	cuHalfDays
	cuDays
	cuWeeks
	cuMonths
	cuYears
	cuDecades
	cuCenturies
	cuMillennia
	cuEras
	cuForever
)

// chronoUnitNames are ChronoUnit#toString values, which ShardingSphere
// matches the unit property against.
var chronoUnitNames = [...]string{"Nanos", "Micros", "Millis", "Seconds", "Minutes", "Hours", "HalfDays",
	"Days", "Weeks", "Months", "Years", "Decades", "Centuries", "Millennia", "Eras", "Forever"}

// String returns the ChronoUnit display name, e.g. "HalfDays".
func (u chronoUnit) String() string { return chronoUnitNames[u] }

func parseChronoUnit(s string) (chronoUnit, bool) {
	for i, name := range chronoUnitNames {
		if strings.EqualFold(name, s) {
			return chronoUnit(i), true
		}
	}
	return 0, false
}

// unitNanos is the length of the time-based units.
var unitNanos = [...]int64{cuNanos: 1, cuMicros: 1e3, cuMillis: 1e6, cuSeconds: 1e9, cuMinutes: 60e9, cuHours: 3600e9, cuHalfDays: 43200e9}

// unitMonths is the length of the month-based units.
var unitMonths = [...]int64{cuMonths: 1, cuYears: 12, cuDecades: 120, cuCenturies: 1200, cuMillennia: 12000}

// supports reports whether the kind's plus(amount, unit) is defined (Month
// ignores the unit).
func (k tkind) supports(u chronoUnit) bool {
	switch k {
	case tkDateTime:
		return u <= cuMillennia
	case tkDate:
		return u >= cuDays && u <= cuMillennia
	case tkYearMonth:
		return u >= cuMonths && u <= cuMillennia
	case tkYear:
		return u >= cuYears && u <= cuMillennia
	case tkMonth:
		return true
	}
	return u <= cuHalfDays
}

// plus is the handler's add(temporal, amount, unit); false on overflow of
// the supported range.
func (k tkind) plus(x tkey, amount int64, u chronoUnit) (tkey, bool) {
	switch k {
	case tkMonth:
		// Month#plus(months): the unit is ignored.
		return tkey{a: (x.a-1+amount%12+12)%12 + 1}, true
	case tkTime:
		per := nanosPerDay / unitNanos[u]
		delta := (amount % per) * unitNanos[u]
		return tkey{a: ((x.a+delta)%nanosPerDay + nanosPerDay) % nanosPerDay}, true
	case tkYear:
		y := x.a + amount*unitMonths[u]/12
		return tkey{a: y}, y <= 999_999_999
	case tkYearMonth:
		m := x.a + amount*unitMonths[u]
		return tkey{a: m}, m/12 <= 999_999_999
	}
	// LocalDateTime and LocalDate.
	switch {
	case u <= cuHalfDays: // only LocalDateTime
		n := unitNanos[u]
		secs, nanos := x.a+amount*(n/1e9), x.b+amount*(n%1e9)
		carry, rem := floorDivMod(nanos, 1e9)
		return tkey{a: secs + carry, b: rem}, true
	case u == cuDays || u == cuWeeks:
		days := amount
		if u == cuWeeks {
			days *= 7
		}
		if k == tkDate {
			return tkey{a: x.a + days}, true
		}
		return tkey{a: x.a + days*86400, b: x.b}, true
	}
	months := amount * unitMonths[u]
	days, secs := x.a, int64(0)
	if k == tkDateTime {
		days, secs = floorDivMod(x.a, 86400)
	}
	y, m, d := civilFromDays(days)
	total := int64(y)*12 + int64(m-1) + months
	if total/12 > 999_999_999 {
		return tkey{}, false
	}
	ny, nm := floorDivMod(total, 12)
	nd := min(d, daysIn(int(ny), int(nm)+1))
	days = daysFromCivil(int(ny), int(nm)+1, nd)
	if k == tkDate {
		return tkey{a: days}, true
	}
	return tkey{a: days*86400 + secs, b: x.b}, true
}

// floorDivMod returns floor(a/b) and a mod b in [0, b).
func floorDivMod(a, b int64) (int64, int64) {
	q, r := a/b, a%b
	if r < 0 {
		q, r = q-1, r+b
	}
	return q, r
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (the ISO chronology), after Howard Hinnant's days_from_civil.
func daysFromCivil(y, m, d int) int64 {
	yy := int64(y)
	if m <= 2 {
		yy--
	}
	era, _ := floorDivMod(yy, 400)
	yoe := yy - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int) {
	z += 719468
	era, _ := floorDivMod(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int((mp+2)%12 + 1)
	yy := yoe + era*400
	if m <= 2 {
		yy++
	}
	return int(yy), m, d
}

// daysIn returns the length of month m of year y.
func daysIn(y, m int) int {
	switch m {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

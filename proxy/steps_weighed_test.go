package proxy

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// weighedRows are xn_a and xn_b rows whose names compare equal under
// utf8mb4_general_ci (the xn tables' collation) in ways a latin1 or
// utf8mb3 session cannot see in the bytes it receives: accents and case
// ('café' = 'CAFE', 'Crème' = 'CRÈME'), 'ß' = 's', trailing spaces
// ('tea ' = 'tea'), Chinese (received as '??' in latin1), emoji (received
// as '?' in both; every emoji is one weight under general_ci), and real
// '?'. Each table holds at most one name of each class of equal names, so
// a UNION's surviving row does not depend on row order.
var weighedRows = []string{
	"INSERT INTO xn_a VALUES (1, 1, 'café', 'é', 1, NULL), (2, 2, 'Crème', 'ü', 1, NULL), (3, 3, 'straße', 'q', 1, NULL), " +
		"(4, 4, '北京', 'a', 1, NULL), (5, 5, '🎉x', 'b', 1, NULL), (6, 6, 'tea ', 'c', 1, NULL), (7, 7, '?', 'd', 1, NULL), " +
		"(8, 8, 'why?', 'f', 1, NULL), (9, 9, NULL, NULL, 1, NULL), (10, 10, 'ok', 'g', 1, NULL)",
	"INSERT INTO xn_b VALUES (100, 1, 'CAFE', 'E', 1, NULL), (101, 2, 'CRÈME', 'Ü', 1, NULL), (102, 3, 'strase', 'r', 1, NULL), " +
		"(103, 4, '北京', 'x', 1, NULL), (104, 5, '😀X', 't', 1, NULL), (105, 6, 'tea', 'z', 1, NULL), (106, 7, '?', 'w', 1, NULL), " +
		"(107, 8, 'WHY?', 'v', 1, NULL), (108, 9, NULL, NULL, 1, NULL), (109, 10, 'nope', 'u', 1, NULL), (110, 11, 'ok  ', 'ß', 1, NULL)",
}

// TestStepsWeighedSession: in latin1 and utf8mb3 sessions the steps of a
// statement evaluated across data nodes compare text by the data nodes'
// WEIGHT_STRINGs (plan.Builder.Weighing), so joins on text keys, UNION's
// duplicate removal, ORDER BY over joined or united rows and IN lists of
// text bound from a subquery answer the reference's rows in the same
// session character set, where they were refused (ERROR 1235) for any
// '?' or, in latin1, any byte past ASCII they read. A join whose outer
// key holds '?' (maybe a character the session lost) does not bind it but
// reads the inner side whole, under either join strategy; a subquery's
// text is read as HEX too and bound from it where a column more does not
// change the subquery's rows (MIN or MAX of a column as the first row of
// its ORDER BY); a subquery value holding '?' without it is
// still refused, as is such a join whose inner side exceeds
// max-cross-node-rows. (It replaces TestStepsLatin1SessionAccents, which
// accepted the refusal of 'café' = 'CAFE' in a latin1 session.)
func TestStepsWeighedSession(t *testing.T) {
	queries := []string{
		"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.name = b.name ORDER BY a.id, b.bid",
		"SELECT a.id, a.name, b.bid, b.name FROM xn_a a LEFT JOIN xn_b b ON a.name = b.name ORDER BY a.id, b.bid",
		"SELECT a.id, b.bid FROM xn_a a RIGHT JOIN xn_b b ON a.name = b.name ORDER BY b.bid, a.id",
		"SELECT b.name, a.id, b.bid FROM xn_a a JOIN xn_b b ON a.id = b.a_id ORDER BY b.name DESC, a.id",
		"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.lat = b.lat ORDER BY a.id, b.bid",
		"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.k = b.a_id AND a.name < b.name ORDER BY a.id, b.bid",
		"SELECT b.name, COUNT(*) FROM xn_a a JOIN xn_b b ON a.id = b.a_id GROUP BY b.name ORDER BY b.name",
		"SELECT name FROM xn_a UNION SELECT name FROM xn_b ORDER BY 1",
		"SELECT name FROM xn_a UNION SELECT name FROM xn_b",
		"SELECT lat FROM xn_a UNION SELECT lat FROM xn_b ORDER BY 1 DESC",
		"SELECT name, id FROM xn_a UNION ALL SELECT name, bid FROM xn_b ORDER BY 1, 2",
		"SELECT id FROM xn_a WHERE name IN (SELECT name FROM xn_b WHERE bid IN (100, 101, 102, 105, 110)) ORDER BY id",
		"SELECT id FROM xn_a WHERE name NOT IN (SELECT name FROM xn_b WHERE bid IN (100, 101, 105)) ORDER BY id",
		"SELECT id FROM xn_a WHERE lat IN (SELECT lat FROM xn_b WHERE a_id < 4) ORDER BY id",
		"SELECT bid, name FROM xn_b WHERE name = (SELECT name FROM xn_a WHERE id = 1) ORDER BY bid",
		"SELECT bid, LENGTH((SELECT name FROM xn_a WHERE id = 2)) FROM xn_b ORDER BY bid",
		"SELECT bid, LENGTH((SELECT lat FROM xn_a WHERE id = 1)), (SELECT lat FROM xn_a WHERE id = 1) = b.lat FROM xn_b b ORDER BY bid",
	}
	// Text of a subquery's plain column is read as HEX too and bound
	// from it (plan.Subquery.HexSQL): CJK and emoji, which the session
	// receives as '?', and real '?'.
	queries = append(queries,
		"SELECT id FROM xn_a WHERE name IN (SELECT name FROM xn_b) ORDER BY id",
		"SELECT id FROM xn_a WHERE name NOT IN (SELECT name FROM xn_b WHERE name IS NOT NULL) ORDER BY id",
		"SELECT bid FROM xn_b WHERE name = (SELECT name FROM xn_a WHERE id = 5) ORDER BY bid",
		"SELECT bid, (SELECT name FROM xn_a WHERE id = 4) AS n, LENGTH((SELECT name FROM xn_a WHERE id = 4)) FROM xn_b ORDER BY bid",
		"SELECT bid FROM xn_b WHERE name IN (SELECT name FROM xn_a WHERE id IN (4, 7, 8)) ORDER BY bid",
		// MIN / MAX of a text column as the first row of its ORDER BY.
		"SELECT bid FROM xn_b WHERE name = (SELECT MAX(name) FROM xn_a WHERE id IN (4, 5)) ORDER BY bid",
		"SELECT bid, (SELECT MIN(name) FROM xn_a WHERE k > 3) AS m FROM xn_b WHERE a_id < 4 ORDER BY bid",
		"SELECT bid FROM xn_b WHERE name >= (SELECT MAX(name) FROM xn_a WHERE k < 5) ORDER BY bid",
		"SELECT bid FROM xn_b WHERE name = (SELECT MAX(name) FROM xn_a WHERE k > 100) ORDER BY bid",
		"SELECT bid FROM xn_b WHERE lat < (SELECT MIN(lat) FROM xn_a) ORDER BY bid",
	)
	// What binds a value the session received as '?' and no HEX of it
	// (an aggregate other than MIN or MAX of a column, DISTINCT) stays refused.
	refused := []string{
		"SELECT id FROM xn_a WHERE name IN (SELECT DISTINCT name FROM xn_b) ORDER BY id",
		"SELECT bid FROM xn_b WHERE name = (SELECT GROUP_CONCAT(name) FROM xn_a WHERE id = 5)",
		"SELECT bid FROM xn_b WHERE name = (SELECT DISTINCT name FROM xn_a WHERE id = 5)",
	}
	for _, strategy := range []string{"nested-loop", "hash"} {
		t.Run(strategy, func(t *testing.T) {
			e, px := newStepsEnv(t, "  cross-node-join: "+strategy+"\n", xnRules, xnDDL, weighedRows, "xn_a", "xn_b")
			pc, rc := conns(t, px, e.ref)
			for _, cs := range []string{"latin1", "utf8mb3", "utf8mb4"} {
				setNames(t, cs, pc, rc)
				for _, q := range queries {
					sameRowsArgs(t, pc, rc, q)
				}
				for _, q := range refused {
					if cs == "utf8mb4" {
						sameRowsArgs(t, pc, rc, q)
						continue
					}
					_, err := pc.QueryContext(context.Background(), q)
					require.ErrorContains(t, err, "binds into the next step's SQL holds '?'", q)
					require.ErrorContains(t, err, "in this session's character set "+cs, q)
				}
			}
		})
	}
	// The inner side read whole for an outer key of '?' exceeds
	// max-cross-node-rows: refused, naming why.
	e, px := newStepsEnv(t, "  cross-node-join: nested-loop\n  max-cross-node-rows: 5\n", xnRules, xnDDL, weighedRows, "xn_a", "xn_b")
	pc, rc := conns(t, px, e.ref)
	setNames(t, "utf8mb3", pc, rc)
	q := "SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.name = b.name WHERE a.id = 5"
	_, err := pc.QueryContext(context.Background(), q)
	require.ErrorContains(t, err, "a key of the join's outer side holds '?' in this session's character set utf8mb3")
	// Without a '?' the key is bound and the inner side is not read whole.
	sameRowsArgs(t, pc, rc, "SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.name = b.name WHERE a.id IN (1, 2, 6)")
}

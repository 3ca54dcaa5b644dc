package proxy

import "testing"

// TestMergeLossySession: statements routed to several data nodes and
// merged (ORDER BY, GROUP BY, DISTINCT, MIN / MAX over utf8mb4 and latin1
// text) in sessions whose character set lacks some of the text's
// characters (latin1, utf8mb3) sort and group by the stored text, not by
// the '?' the session receives: the rows are the reference's.
func TestMergeLossySession(t *testing.T) {
	e, px := newXnEnv(t)
	rows := "INSERT INTO xn_a VALUES (9, 10, '🎉party0', 'a', 1, '2024-01-01'), (10, 10, '北京', 'b', 1, '2024-01-01'), (11, 50, 'é?', 'É', 2, NULL), (12, 60, 'e?', 'e', 3, NULL)"
	execAll(t, px, rows)
	execAll(t, e.ref, rows)
	pc, rc := conns(t, px, e.ref)
	queries := []string{
		"SELECT id, name FROM xn_a ORDER BY name, id",
		"SELECT id, name FROM xn_a ORDER BY name DESC, id LIMIT 5",
		"SELECT id, lat FROM xn_a ORDER BY lat, id",
		"SELECT name, COUNT(*) FROM xn_a GROUP BY name ORDER BY name",
		"SELECT lat, COUNT(*) FROM xn_a GROUP BY lat ORDER BY lat",
		"SELECT k, MIN(name), MAX(name) FROM xn_a GROUP BY k ORDER BY k",
		"SELECT MAX(name), MIN(lat), MAX(lat) FROM xn_a", // MIN(name): alpha and 'ALPHA ' are equal, either is right
		"SELECT COUNT(DISTINCT name) FROM xn_a",
		"SELECT k, GROUP_CONCAT(name ORDER BY name SEPARATOR '|') FROM xn_a GROUP BY k ORDER BY k",
	}
	// Values equal under the collation ('alpha', 'ALPHA ') are one
	// group, and which one MIN / MAX or the group shows is MariaDB's
	// choice: no query here has to choose.
	for _, cs := range []string{"latin1", "utf8mb3", "utf8mb4"} {
		setNames(t, cs, pc, rc)
		for _, q := range queries {
			t.Run(cs+"/"+q, func(t *testing.T) { sameRowsArgs(t, pc, rc, q) })
		}
		// prepared: planned once, run in each session's character set
		sameRowsArgs(t, pc, rc, "SELECT id, name FROM xn_a WHERE k >= ? ORDER BY name, id", 0)
	}
}

// Package sharedcases holds the real-world failure cases of other sharding
// layers (a copy of ../shared/cases: small schema, rows, query and the
// answer checked on MariaDB 10.11) and decodes them for the tests that run
// them: through the planner and runtime (internal/difftest) and through the
// proxy (proxy). Only tests import it.
package sharedcases

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

//go:embed cases.json
var casesJSON []byte

// Case is one shared case; see README.md beside this file for the fields.
type Case struct {
	ID         string   `json:"id"`
	Category   string   `json:"category"`
	DDL        []string `json:"ddl"`
	RefDDL     []string `json:"ref_ddl"`
	DirectDDL  bool     `json:"direct_ddl"`
	RuleYAML   string   `json:"rule_yaml"`
	SeedSQL    []string `json:"seed_sql"`
	SessionSQL []struct {
		SQL    string `json:"sql"`
		Params []any  `json:"params"`
		Expect string `json:"expect"`
	} `json:"session_sql"`
	Query        string  `json:"query"`
	Params       []any   `json:"params"`
	Protocol     string  `json:"protocol"`
	ExpectedRows [][]any `json:"expected_rows"`
	OrderMatters bool    `json:"expected_order_matters"`
	Notes        string  `json:"notes"`
}

// Load decodes every case, rejecting unknown fields so a new field in the
// shared file is noticed.
func Load() ([]Case, error) {
	dec := json.NewDecoder(strings.NewReader(string(casesJSON)))
	dec.DisallowUnknownFields()
	var cases []Case
	if err := dec.Decode(&cases); err != nil {
		return nil, err
	}
	return cases, nil
}

var dsRE = regexp.MustCompile(`ds_(?:(\d+)|\$(?:->)?\{\d+\.\.(\d+)\})`)

// DataSources returns how many data sources (ds_0 … ds_N-1) the case's rule
// names, comments included; at least 1.
func (c *Case) DataSources() int {
	n := 1
	for _, m := range dsRE.FindAllStringSubmatch(c.RuleYAML, -1) {
		i, _ := strconv.Atoi(m[1] + m[2])
		n = max(n, i+1)
	}
	return n
}

// Want returns the expected rows as MySQL prints them: numbers in plain
// decimal notation, text as is, NULL as "NULL".
func (c *Case) Want() [][]string {
	var want [][]string
	for _, r := range c.ExpectedRows {
		row := make([]string, len(r))
		for i, v := range r {
			switch x := v.(type) {
			case nil:
				row[i] = "NULL"
			case float64:
				row[i] = strconv.FormatFloat(x, 'f', -1, 64)
			default:
				row[i] = fmt.Sprint(x)
			}
		}
		want = append(want, row)
	}
	return want
}

package main

import (
	"context"
	"errors"

	"github.com/shardgen/shardgen/bench/load"
)

// sbResult is one sysbench test run through several paths.
type sbResult struct {
	test   string
	paths  []string
	c      map[string][]float64 // path → transactions or queries per second of each round
	metric string
}

func runSysbench(ctx context.Context, o options) ([]sbResult, error) {
	return nil, errors.New("not implemented yet")
}

func sysbenchMarkdown(o options, res []sbResult, bars *[]load.Bar) string { return "" }

package runtime

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
)

// LoadBalancer chooses the replica that serves one read of a read/write
// group (ShardingSphere's ReadQueryLoadBalanceAlgorithm,
// infra/algorithm/type/load-balancer; ../shared/spec/shardingsphere.md §6).
//
// Choose gets the group-local indexes (0..len(readDataSourceNames)-1) of
// the replicas that are up, never empty, and returns one of them. It is
// called concurrently by every goroutine reading the group: implementations
// use atomics, never a lock shared by all queries, and allocate nothing.
type LoadBalancer interface {
	Choose(available []int) int
}

// Load balancer types (the `type:` of a loadBalancers entry).
const (
	LoadBalancerRoundRobin = "ROUND_ROBIN"
	LoadBalancerRandom     = "RANDOM"
	LoadBalancerWeight     = "WEIGHT"
)

// NewLoadBalancer builds the load balancer of type typ (case-insensitive)
// for a group whose read data sources are reads, in order:
//
//   - ROUND_ROBIN: one counter per load balancer, available[n++ % len]
//     (ShardingSphere RoundRobinLoadBalanceAlgorithm; the counter is shared
//     by every group that names the load balancer, as there).
//   - RANDOM: uniform over the available replicas.
//   - WEIGHT: props `<read data source>: <weight>`; every read data source
//     needs a weight > 0 and every prop must name one of them
//     (ShardingSphere WeightLoadBalanceAlgorithm: Infinity counts as 10000,
//     NaN as 1). A replica is chosen with probability weight / sum of the
//     available replicas' weights.
//
// Errors: an unknown type, a bad or missing weight.
func NewLoadBalancer(typ string, props Props, reads []string) (LoadBalancer, error) {
	switch strings.ToUpper(typ) {
	case LoadBalancerRoundRobin, "":
		return &roundRobin{}, nil
	case LoadBalancerRandom:
		return randomBalancer{}, nil
	case LoadBalancerWeight:
		return newWeightBalancer(props, reads)
	}
	return nil, errors.New("unknown load balancer type " + strconv.Quote(typ) + " (known: ROUND_ROBIN, RANDOM, WEIGHT)")
}

// roundRobin is ROUND_ROBIN.
type roundRobin struct{ n atomic.Uint64 }

func (r *roundRobin) Choose(available []int) int {
	return available[(r.n.Add(1)-1)%uint64(len(available))]
}

// randomBalancer is RANDOM.
type randomBalancer struct{}

func (randomBalancer) Choose(available []int) int { return available[rand.IntN(len(available))] }

// weightBalancer is WEIGHT: weights[i] is read data source i's weight.
type weightBalancer struct{ weights []float64 }

func newWeightBalancer(props Props, reads []string) (*weightBalancer, error) {
	w := &weightBalancer{weights: make([]float64, len(reads))}
	for k := range props {
		found := false
		for _, r := range reads {
			found = found || r == k
		}
		if !found {
			return nil, errors.New("WEIGHT: " + strconv.Quote(k) + " is not a read data source of the group (read data sources: " +
				strings.Join(reads, ", ") + ")")
		}
	}
	for i, r := range reads {
		s, ok := props[r]
		if !ok {
			return nil, errors.New("WEIGHT: read data source " + strconv.Quote(r) + " has no weight; every read data source needs one")
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		switch {
		case err == nil && math.IsInf(v, 1):
			v = 10000
		case err == nil && math.IsNaN(v):
			v = 1
		}
		if err != nil || v <= 0 {
			return nil, errors.New("WEIGHT: the weight of " + strconv.Quote(r) + " must be a number > 0, got " + strconv.Quote(s))
		}
		w.weights[i] = v
	}
	return w, nil
}

func (w *weightBalancer) Choose(available []int) int {
	var sum float64
	for _, i := range available {
		sum += w.weights[i]
	}
	x := rand.Float64() * sum
	for _, i := range available {
		if x < w.weights[i] {
			return i
		}
		x -= w.weights[i]
	}
	return available[len(available)-1] // rounding
}

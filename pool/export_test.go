package pool

import "github.com/forkjoin-go/forkjoin/internal/poolcore"

// ParkedWorkers reports how many workers are inside the EventCount's Wait,
// for tests that need the workers asleep before they act.
func ParkedWorkers(p *Pool) int { return (*poolcore.Pool)(p).ParkedWorkers() }

// TotalParks is Stats().Parks without the allocation of a Stats snapshot,
// for benchmarks that poll it.
func TotalParks(p *Pool) int64 { return (*poolcore.Pool)(p).TotalParks() }

package pool

// ParkedWorkers reports how many workers are inside the EventCount's Wait,
// for tests that need the workers asleep before they act.
func ParkedWorkers(p *Pool) int { return p.wake.Waiters() }

// TotalParks is Stats().Parks without the allocation of a Stats snapshot,
// for benchmarks that poll it.
func TotalParks(p *Pool) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n int64
	for _, w := range p.workers {
		n += w.parks.Load()
	}
	return n
}

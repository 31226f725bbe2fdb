package poolcore

// What package pool's Stats reads of a pool.

import "time"

// Counters is a snapshot of the pool's own counters: the first fields of
// pool.Stats (see there), and each worker's.
type Counters struct {
	Parallelism    int
	WorkersStarted int64
	WorkersAlive   int
	SpawnFailures  int64
	Goexits        int64
	Runs           int64
	Workers        []WorkerCounters // by worker index
}

// WorkerCounters is one worker's part of Counters.
type WorkerCounters struct {
	Parks, Wakeups int64
	ParkedTime     time.Duration // the sleep in progress included
	Parked         bool          // asleep now
}

// Counters returns a snapshot of the pool's counters. Counters are read
// one by one without stopping the pool.
func (p *Pool) Counters() Counters {
	p.check()
	c := Counters{
		Parallelism:    p.n,
		WorkersStarted: p.started.Load(),
		WorkersAlive:   int(p.alive.Load()),
		SpawnFailures:  p.spawnFailures.Load(),
		Goexits:        p.goexits.Load(),
		Runs:           p.runs.Load(),
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c.Workers = make([]WorkerCounters, len(p.workers))
	for i, w := range p.workers {
		wc := &c.Workers[i]
		wc.Parks = w.parks.Load()
		wc.Wakeups = w.wakeups.Load()
		wc.ParkedTime, wc.Parked = w.parked.read(p.clock)
	}
	return c
}

// Attachments returns the pool's attachments, oldest first (for pool's
// Stats, which asks each for its counters).
func (p *Pool) Attachments() []Attachment {
	as := p.attached.Load()
	if as == nil {
		return nil
	}
	out := make([]Attachment, len(*as))
	for i, a := range *as {
		out[i] = a.val
	}
	return out
}

// ParkedWorkers reports how many workers are inside the EventCount's Wait,
// for tests that need the workers asleep before they act.
func (p *Pool) ParkedWorkers() int { return p.wake.Waiters() }

// TotalParks is the sum of the workers' parks (pool.Stats().Parks) without
// the allocation of a snapshot, for benchmarks that poll it.
func (p *Pool) TotalParks() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n int64
	for _, w := range p.workers {
		n += w.parks.Load()
	}
	return n
}

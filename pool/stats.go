package pool

import "time"

// Stats is a snapshot of a pool's counters since it was created. Counters
// are read one by one without stopping the pool, so a snapshot taken while
// work runs may be slightly inconsistent across fields.
type Stats struct {
	// Parallelism is the pool's parallelism n.
	Parallelism int
	// WorkersStarted counts worker goroutines started; WorkersAlive is how
	// many are running now.
	WorkersStarted int64
	WorkersAlive   int
	// SpawnFailures counts worker starts that failed (see WithSpawn).
	SpawnFailures int64
	// Goexits counts worker goroutines that work they ran ended with
	// runtime.Goexit; each was replaced by a new goroutine (counted in
	// WorkersStarted, or in SpawnFailures if it could not start), unless
	// Close was already stopping the workers.
	Goexits int64
	// Runs counts dispatches and runs of the layers above (forkjoin.Run,
	// folds, walks). A forkjoin.Handle's Join or Wait that finds its task
	// not finished helps run the pool's tasks inside a run of its own, so
	// it counts one too: with handles, Runs depends on timing.
	Runs int64
	// Parks counts the times a worker went to sleep; Wakeups the times a
	// sleeping worker woke up. WorkersParked is how many sleep now, and
	// ParkedTime the time the workers have slept, added over the
	// workers, the sleeps in progress included: with Parallelism-1 workers
	// and the pool's age, it says how much of the pool was idle. (A
	// worker looks for work for a while, some 100 µs, before it sleeps:
	// that time is neither parked nor in a task.)
	Parks         int64
	Wakeups       int64
	WorkersParked int
	ParkedTime    time.Duration

	// The fields below are filled by the work-stealing core (forkjoin).

	// Tasks counts tasks run from a deque or queue (a typed fork or Join
	// that its owner pops back and runs inline is not a task run). Each
	// participant counts in batches: while it runs tasks its count may
	// lag by fewer than 64; all are in once the pool is idle.
	Tasks int64
	// StealAttempts counts attempts to take a task from another
	// participant's deque; Steals the successful ones.
	StealAttempts int64
	Steals        int64

	// Submitted, Completed, Panicked and Canceled count spawned tasks
	// (forkjoin.Spawn and friends); ByPriority splits them by priority
	// (High, Normal, Background). Scope tasks are counted in batches: they
	// are all in the counts once their Scope has returned, and when the
	// pool is idle; while tasks run, each participant's counts may lag by
	// fewer than 64.
	Submitted, Completed, Panicked, Canceled int64
	ByPriority                               [3]PriorityStats

	// CompensatorsStarted counts the compensating goroutines the pool
	// started: extra participants it adds while every participant is held
	// up in tasks that block and tasks are queued (see forkjoin's
	// documentation, "Tasks that block"); CompensatorsAlive is how many
	// run now. A service whose tasks block often sees the first grow.
	CompensatorsStarted int64
	CompensatorsAlive   int

	// Workers has one entry per worker started, by worker index; Callers
	// sums the goroutines that joined runs from outside (callers of Run).
	Workers []WorkerStats
	Callers WorkerStats
}

// PriorityStats counts spawned tasks of one priority.
type PriorityStats struct {
	Submitted, Completed, Panicked, Canceled int64
}

// WorkerStats counts one participant's activity.
type WorkerStats struct {
	Parks, Wakeups int64
	// ParkedTime is the time the worker has slept, the sleep in progress
	// included (pool workers only).
	ParkedTime            time.Duration
	Tasks                 int64
	StealAttempts, Steals int64
	// Submitted counts the spawned tasks this participant submitted from
	// inside a task (Scope.Spawn, a Graph's later tasks); tasks submitted
	// from outside any worker count only in the pool's totals. Completed,
	// Panicked and Canceled count the spawned tasks that ended on it.
	Submitted, Completed, Panicked, Canceled int64
}

// statsAdder is an attachment of the layer above (forkjoin's scheduler)
// that adds its counters to Stats.
type statsAdder interface {
	AddStats(s *Stats)
}

// Stats returns a snapshot of the pool's counters.
func (p *Pool) Stats() Stats {
	c := p.core().Counters()
	s := Stats{
		Parallelism:    c.Parallelism,
		WorkersStarted: c.WorkersStarted,
		WorkersAlive:   c.WorkersAlive,
		SpawnFailures:  c.SpawnFailures,
		Goexits:        c.Goexits,
		Runs:           c.Runs,
		Workers:        make([]WorkerStats, len(c.Workers)),
	}
	for i, wc := range c.Workers {
		ws := &s.Workers[i]
		ws.Parks, ws.Wakeups, ws.ParkedTime = wc.Parks, wc.Wakeups, wc.ParkedTime
		s.Parks += ws.Parks
		s.Wakeups += ws.Wakeups
		s.ParkedTime += ws.ParkedTime
		if wc.Parked {
			s.WorkersParked++
		}
	}
	for _, a := range p.core().Attachments() {
		if sa, ok := a.(statsAdder); ok {
			sa.AddStats(&s)
		}
	}
	return s
}

package forkjoin

// The participants of a pool: the pool's workers (one Worker each, made
// on the worker's first entry and kept for the pool's life) and the
// callers: every goroutine inside a Run, a Wait that helps, and every
// compensating goroutine (compensate.go), each with a Worker taken from a
// free list and given back when it is done. All of them are in one
// copy-on-write list that thieves, cancellations and the monitor read.
//
// The free list keeps the Workers of past callers for later ones. A burst
// of compensators can leave thousands of them there, and every look for
// work that reaches the others' queues reads the whole list: once the free
// Workers outnumber the busy ones (and a few), compactFree drops the free
// ones whose places are empty from the list and from the free list. A free
// Worker has no owner, so nobody can queue anything on it: empty when
// looked at, it stays empty. Its counters go to the scheduler's retired
// totals, so the pool's statistics stay cumulative.

import (
	"github.com/forkjoin-go/forkjoin/pool"
)

// workerFor returns the Worker of pool worker id, making it on first use.
func (s *scheduler) workerFor(id int) *Worker {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.workers) <= id {
		s.workers = append(s.workers, nil)
	}
	if w := s.workers[id]; w != nil {
		return w
	}
	w := s.newWorkerLocked(id)
	s.workers[id] = w
	return w
}

// newWorkerLocked makes a Worker (poolIndex: the pool worker's index, or
// -1 for a caller) and adds it to the participants. Under s.mu.
func (s *scheduler) newWorkerLocked(poolIndex int) *Worker {
	w := s.newWorkerUnlisted(poolIndex)
	old := *s.participants.Load()
	next := make([]*Worker, len(old)+1)
	copy(next, old)
	next[len(old)] = w
	s.participants.Store(&next)
	return w
}

// newWorkerUnlisted makes a Worker; the caller adds it to the
// participants. Under s.mu.
func (s *scheduler) newWorkerUnlisted(poolIndex int) *Worker {
	w := newWorker(s, s.nextID, poolIndex)
	w.queues[High].CountIn(&s.injector.high) // the High skip of the scan (scan.go)
	s.nextID++
	return w
}

// acquireCaller gives a goroutine entering Run a Worker of its own.
func (s *scheduler) acquireCaller() *Worker {
	s.mu.Lock()
	var w *Worker
	if n := len(s.free); n > 0 {
		w = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		w = s.newWorkerLocked(-1)
	}
	s.mu.Unlock()
	w.prepareCaller()
	return w
}

// takeWorkers takes k Workers for compensators at once: retired ones
// kept for reuse (collectRetired), and new ones, added to the participants
// with one copy of the list. Each goroutine that gets one calls
// prepareCaller on it.
func (s *scheduler) takeWorkers(k int) []*Worker {
	ws := make([]*Worker, 0, k)
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &s.comp
	n := min(k, len(c.cache))
	ws = append(ws, c.cache[len(c.cache)-n:]...)
	clear(c.cache[len(c.cache)-n:])
	c.cache = c.cache[:len(c.cache)-n]
	for range k - n {
		if w, _ := c.spare.Get().(*Worker); w != nil {
			ws = append(ws, w)
		} else {
			ws = append(ws, s.newWorkerUnlisted(-1))
		}
	}
	old := *s.participants.Load()
	next := make([]*Worker, len(old), len(old)+k)
	copy(next, old)
	next = append(next, ws...)
	s.participants.Store(&next)
	return ws
}

// prepareCaller readies a Worker taken for a caller, on the caller's
// goroutine.
func (w *Worker) prepareCaller() {
	if w.forkTop != 0 || w.dirty {
		// A stale use of the handle after its last Run pushed a fork
		// before it was caught (see releaseCaller): drop it.
		w.resetSlabs()
	}
	w.inUse.Store(true)
	w.claim()
	w.clearAsked()
	w.standing, w.armed = false, false
}

// releaseCaller gives a caller's Worker back to the free list.
func (s *scheduler) releaseCaller(w *Worker) {
	w.flushSlot() // lifo.go: nothing stays hidden after the Run
	if w.holdsSlack() {
		w.flushSlack() // slack.go: no slack outlives the Run
	}
	w.publishTasks()
	w.dropStale() // nothing of the run stays reachable from the pool
	w.dropObs()
	if w.goid.Load() != 0 {
		w.goid.Store(0) // its next user may be another goroutine
	}
	w.inUse.Store(false)
	w.standing, w.armed = false, false
	w.ask() // a stale use of w reaches the slow path and panics
	w.run = nil
	s.mu.Lock()
	s.free = append(s.free, w)
	if n := len(s.free); n > compactAt && 2*n > len(*s.participants.Load())+compactAt {
		s.compactFreeLocked()
	}
	s.mu.Unlock()
}

// compactAt is how many free Workers the free list holds before it drops
// some (compactFree), and compactKeep how many it keeps then.
const (
	compactAt   = 64
	compactKeep = 16
)

// compactFreeLocked drops from the participants and from the free list
// the free Workers whose places are empty, but the newest compactKeep (see
// the file comment). Under s.mu.
func (s *scheduler) compactFreeLocked() {
	keep := s.free[max(len(s.free)-compactKeep, 0):]
	drop := make(map[*Worker]bool, len(s.free)-len(keep))
	free := s.free[:0]
	for _, w := range s.free[:len(s.free)-len(keep)] {
		if w.placesEmpty() {
			drop[w] = true
		} else {
			free = append(free, w) // someone will steal its tasks
		}
	}
	free = append(free, keep...)
	clear(s.free[len(free):])
	s.free = free
	if len(drop) == 0 {
		return
	}
	old := *s.participants.Load()
	next := make([]*Worker, 0, len(old)-len(drop))
	for _, w := range old {
		if !drop[w] {
			next = append(next, w)
		}
	}
	s.participants.Store(&next)
	for w := range drop {
		s.retired.add(w)
		w.resetCounters()
		w.spareTasks.release()
		w.releaseLocals()
	}
}

// retireWorker ends a compensator's use of w, on its goroutine: w keeps
// nothing of the work done and takes no more, and waits in the list of
// participants to be collected (collectRetired), which the retiring
// compensator does itself when the retired outnumber the others or when
// it is the last alive. Retiring takes no lock: thousands of compensators
// retire at once when the tasks they ran are released together.
func (s *scheduler) retireWorker(w *Worker) {
	w.flushSlot()
	if w.holdsSlack() {
		w.flushSlack()
	}
	w.publishTasks()
	w.dropStale()
	w.dropObs()
	w.goid.Store(0)
	w.inUse.Store(false)
	w.standing, w.armed = false, false
	w.ask() // a stale use of w reaches the slow path and panics
	w.run = nil
	w.retired.Store(true)
	c := &s.comp
	r := c.retired.Add(1)
	alive := c.alive.Add(-1)
	if (alive == 0 || r > 2*alive+compactAt) && c.collecting.CompareAndSwap(false, true) {
		s.collectRetired()
		c.collecting.Store(false)
	}
}

// collectRetired takes the retired compensators' Workers out of the list
// of participants, with one copy of it: their counters go to the retired
// totals, and up to compCacheMax of them are kept for the next
// compensators (takeWorkers), the rest offered to them through a
// sync.Pool (which the collector empties: a burst of thousands of blocked
// tasks is not paid for in memory for ever). A retired Worker whose places are not empty
// stays listed, for thieves to empty, until a later collection.
func (s *scheduler) collectRetired() {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &s.comp
	old := *s.participants.Load()
	next := make([]*Worker, 0, len(old))
	n := 0
	for _, w := range old {
		if !w.retired.Load() || !w.placesEmpty() {
			next = append(next, w)
			continue
		}
		w.retired.Store(false)
		n++
		s.retired.add(w)
		w.resetCounters()
		if len(c.cache) < compCacheMax {
			c.cache = append(c.cache, w)
		} else {
			w.spareTasks.release()
			w.releaseLocals()
			c.spare.Put(w)
		}
	}
	c.retired.Add(int64(-n))
	s.participants.Store(&next)
}

// compCacheMax is how many retired compensators' Workers a pool keeps for
// later ones.
const compCacheMax = 256

// resetCounters zeroes w's counters, once they are in the retired totals
// (w is unlisted and has no owner).
func (w *Worker) resetCounters() {
	w.counters.tasks.Store(0)
	w.counters.stealAttempts.Store(0)
	w.counters.steals.Store(0)
	st := &w.spawnState.stats
	for p := range numPriorities {
		st.submitted[p].Store(0)
		st.completed[p].Store(0)
		st.panicked[p].Store(0)
		st.canceled[p].Store(0)
	}
}

// placesEmpty reports whether nothing waits in w's deque, queues or slot.
func (w *Worker) placesEmpty() bool {
	if w.deque.Len() != 0 || w.slot.held.Load() != nil {
		return false
	}
	for _, q := range w.queues {
		if q.Len() != 0 {
			return false
		}
	}
	return true
}

// retiredStats holds the counters of the participants compactFree
// dropped (all of them callers or compensators), under s.mu.
type retiredStats struct {
	counters workerCounters
	spawn    spawnCounters
}

// add adds w's counters.
func (r *retiredStats) add(w *Worker) {
	c := w.counters.snapshot()
	r.counters.tasks.Add(c.Tasks)
	r.counters.stealAttempts.Add(c.StealAttempts)
	r.counters.steals.Add(c.Steals)
	for p := range numPriorities {
		r.spawn.submitted[p].Add(w.spawnState.stats.submitted[p].Load())
		r.spawn.completed[p].Add(w.spawnState.stats.completed[p].Load())
		r.spawn.panicked[p].Add(w.spawnState.stats.panicked[p].Load())
		r.spawn.canceled[p].Add(w.spawnState.stats.canceled[p].Load())
	}
}

// AddStats adds the scheduler's counters to a pool.Stats.
func (s *scheduler) AddStats(st *pool.Stats) {
	for _, w := range *s.participants.Load() {
		c := w.counters.snapshot()
		var ws *pool.WorkerStats
		switch {
		case w.poolIndex >= 0 && w.poolIndex < len(st.Workers):
			ws = &st.Workers[w.poolIndex]
		case w.poolIndex < 0:
			ws = &st.Callers
		}
		addCounters(st, ws, c, w.spawnState.stats.addStats(st))
	}
	s.mu.Lock()
	addCounters(st, &st.Callers, s.retired.counters.snapshot(), s.retired.spawn.addStats(st))
	s.mu.Unlock()
	s.spawned.addStats(st)
	st.CompensatorsStarted = s.comp.started.Load()
	st.CompensatorsAlive = int(s.comp.alive.Load())
}

// addCounters adds one participant's (or the retired ones') counters c and
// spawn totals sp to st's totals and to ws, if not nil.
func addCounters(st *pool.Stats, ws *pool.WorkerStats, c workerCountersSnapshot, sp pool.PriorityStats) {
	st.Tasks += c.Tasks
	st.StealAttempts += c.StealAttempts
	st.Steals += c.Steals
	if ws == nil {
		return
	}
	ws.Tasks += c.Tasks
	ws.StealAttempts += c.StealAttempts
	ws.Steals += c.Steals
	ws.Submitted += sp.Submitted
	ws.Completed += sp.Completed
	ws.Panicked += sp.Panicked
	ws.Canceled += sp.Canceled
}

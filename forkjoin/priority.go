package forkjoin

// Spawned tasks and their priorities.
//
// Forks (typed forks, Join, For, Reduce, folds) are joined by the code that
// made them; spawned tasks (Spawn, Scope.Spawn, Submit, Graph) are not:
// they are queued with a priority and run when a participant gets to them.
// They share the workers, the deques' algorithm and the sleep protocol with
// forks; what they add is where they wait:
//
//   - A task submitted from outside the pool (Spawn, Submit, a Graph's
//     first tasks) goes to the global injector, one FIFO queue per
//     priority. Workers take from it in fair-share batches: a worker takes
//     len/workers tasks (between 4 and 64, never more than are there), runs
//     the first and keeps the rest in its own queue of that priority, where
//     others may steal them.
//   - A task spawned by a task (Scope.Spawn, a Graph's later tasks) goes to
//     the spawning worker's own queue of its priority; a Normal one goes
//     first to the worker's LIFO slot, which pushes the task it held to
//     the queue (lifo.go).
//
// Where a participant looks for its next task, in order:
//
//	for each priority, High, then Normal, then Background:
//	    its own queue of that priority (Normal: its fork deque, then its
//	    LIFO slot, first)
//	    the injector's queue of that priority
//	    the other participants' queues of that priority (steal)
//
// so a participant never starts a lower-priority task while a
// higher-priority one waits anywhere it can see. The others' High queues
// are looked at only while a counter shared by all High queues
// (injector.high, never below the number of tasks in them) is not zero:
// otherwise a participant would read every other participant's memory
// before each of its own tasks, which made two cores running their own
// streams of tiny tasks slow each other down two- to threefold. Own queues
// before the injector keeps work local; to keep outside work from being
// starved by a stream of local tasks, every few local tasks the injector
// of the same priority is looked at first. How few adapts to task duration (blitz-io's
// interval): the target is to look at least once per millisecond, so
// interval = 1 ms / (moving average of task time), between 8 and 255
// tasks.

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
	"github.com/forkjoin-go/forkjoin/pool"
)

// Priority orders spawned tasks: a participant does not start a task of a
// lower priority while one of a higher priority waits where it looks.
type Priority uint8

const (
	// High is for latency-sensitive tasks.
	High Priority = iota
	// Normal is the default, and the priority of forks.
	Normal
	// Background is for work that may wait.
	Background

	numPriorities = 3
)

// String returns the priority's name: "High", "Normal" or "Background".
func (p Priority) String() string {
	switch p {
	case High:
		return "High"
	case Normal:
		return "Normal"
	case Background:
		return "Background"
	}
	return "Priority(" + itoa(int(p)) + ")"
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}

func (p Priority) check() {
	if p >= numPriorities {
		panic("forkjoin: invalid Priority " + p.String())
	}
}

// injector is the global queue of tasks submitted from outside, one FIFO
// per priority. Its lengths are atomics so that participants can look
// without the lock.
type injector struct {
	mu sync.Mutex
	q  [numPriorities][]*task // q[p][head[p]:] are queued
	hd [numPriorities]int
	_  cacheline.Pad
	n  [numPriorities]atomic.Int64
	_  cacheline.Pad
	// high counts the tasks in the participants' High queues, or more
	// (spawnQueue.count): a participant looks in the others' High queues
	// before each of its own tasks only while it is not zero.
	high atomic.Int64
	_    cacheline.Pad
}

// push queues ts at priority p and reports true, unless *sealed, read
// under the lock (see scheduler.drain): then it reports false.
func (in *injector) push(p Priority, sealed *bool, ts ...*task) bool {
	in.mu.Lock()
	if *sealed {
		in.mu.Unlock()
		return false
	}
	in.q[p] = append(in.q[p], ts...)
	in.n[p].Add(int64(len(ts)))
	in.mu.Unlock()
	return true
}

// take removes a fair share of priority p's queue: the first task to run
// and the rest, which the caller keeps in its own queue.
func (in *injector) take(p Priority, workers int, rest []*task) (*task, []*task) {
	if in.n[p].Load() == 0 {
		return nil, rest
	}
	in.mu.Lock()
	q := in.q[p][in.hd[p]:]
	if len(q) == 0 {
		in.mu.Unlock()
		return nil, rest
	}
	k := len(q) / max(workers, 1)
	k = min(max(k, 4), 64, len(q))
	t := q[0]
	rest = append(rest, q[1:k]...)
	for i := range q[:k] {
		q[i] = nil
	}
	in.hd[p] += k
	if in.hd[p] == len(in.q[p]) {
		in.q[p], in.hd[p] = in.q[p][:0], 0
	} else if in.hd[p] > 1024 && in.hd[p] > len(in.q[p])/2 {
		n := copy(in.q[p], in.q[p][in.hd[p]:])
		clear(in.q[p][n:])
		in.q[p], in.hd[p] = in.q[p][:n], 0
	}
	in.n[p].Add(-int64(k))
	in.mu.Unlock()
	return t, rest
}

// spawnCounters count spawned tasks by priority: one set per participant
// (written by its owner only) and one on the scheduler for submissions
// from outside any participant.
type spawnCounters struct {
	submitted, completed, panicked, cancelled [numPriorities]atomic.Int64
}

// addStats adds the counters to st's totals and per-priority counts, and
// returns this set's totals (for a per-participant entry).
func (c *spawnCounters) addStats(st *pool.Stats) (total pool.PriorityStats) {
	for p := 0; p < numPriorities; p++ {
		ps := &st.ByPriority[p]
		sub, com := c.submitted[p].Load(), c.completed[p].Load()
		pan, can := c.panicked[p].Load(), c.cancelled[p].Load()
		ps.Submitted += sub
		ps.Completed += com
		ps.Panicked += pan
		ps.Cancelled += can
		total.Submitted += sub
		total.Completed += com
		total.Panicked += pan
		total.Cancelled += can
	}
	st.Submitted += total.Submitted
	st.Completed += total.Completed
	st.Panicked += total.Panicked
	st.Cancelled += total.Cancelled
	return total
}

// Adaptive injector interval.
const (
	injectTarget      = time.Millisecond
	injectIntervalMin = 8
	injectIntervalMax = 255
)

// noteTaskTime updates the worker's moving average of spawned-task time
// (weight 1/8 for the newest) and the interval derived from it.
func (w *Worker) noteTaskTime(d time.Duration) {
	ns := d.Nanoseconds()
	if ns < 1 {
		ns = 1
	}
	if w.avgTaskNs == 0 {
		w.avgTaskNs = ns
	} else {
		w.avgTaskNs += (ns - w.avgTaskNs) / 8
	}
	iv := injectTarget.Nanoseconds() / max(w.avgTaskNs, 1)
	w.injectInterval = int(min(max(iv, injectIntervalMin), injectIntervalMax))
}

// next returns this participant's next task at its top level (no frame of
// its own below), in priority order (see the file comment), or nil. Only
// pool workers call it (serve, search).
func (w *Worker) next() *task {
	var parts []*Worker // loaded when the worker has to steal
	start := 0
	runs := w.slot.runs // slot runs in a row: only takeSlot continues them
	w.slot.runs = 0
	for p := High; p < numPriorities; p++ {
		if w.localRun >= w.injectInterval {
			// Fairness: look at the injector before local work.
			w.localRun = 0
			if t := w.takeInjected(p); t != nil {
				return t
			}
		}
		if p == Normal {
			if t := w.dq.pop(); t != nil {
				w.localRun++
				return t
			}
			if t := w.takeSlot(runs); t != nil { // lifo.go
				w.localRun++
				return t
			}
		}
		if t := w.pq[p].pop(); t != nil {
			w.localRun++
			return t
		}
		if t := w.takeInjected(p); t != nil {
			return t
		}
		if p == Normal {
			if t := w.sched.groups.take(laneAny); t != nil {
				return t // top level: a Group's task may run here (grouplane.go)
			}
		}
		if p == High && w.sched.inj.high.Load() == 0 {
			// Nothing in anyone's High queue (it was just looked at in
			// the injector): skip the scan, which reads every other
			// participant's memory before each task.
			continue
		}
		if parts == nil {
			parts = *w.sched.parts.Load()
			start = int(w.nextRand() % uint64(max(len(parts), 1)))
		}
		if t := w.stealPriority(p, parts, start); t != nil {
			return t
		}
	}
	return nil
}

// helpTake finds a task for a participant that helps while it waits (for
// the stolen fork h, if not nil), in priority order as next does: for each
// priority, its own queue, the injector, then the other participants'
// queues; at Normal, the thief of h comes first among the others (it holds
// what the waiter waits for). It never takes a fork from its own deque:
// those belong to the frames below the waiter.
func (w *Worker) helpTake(h *task) *task {
	var parts []*Worker
	start := 0
	runs := w.slot.runs // slot runs in a row: only takeSlot continues them
	w.slot.runs = 0
	for p := High; p < numPriorities; p++ {
		if p == Normal {
			if t := w.takeSlot(runs); t != nil { // lifo.go
				return t
			}
		}
		if t := w.pq[p].pop(); t != nil {
			return t // spawned tasks: independent of the frames below
		}
		if p == Normal && h != nil {
			if thief := h.thief.Load(); thief != nil {
				if t := w.stealFrom(thief); t != nil {
					return t
				}
			}
		}
		if t := w.takeInjected(p); t != nil {
			return t
		}
		if p == High && w.sched.inj.high.Load() == 0 {
			continue // nothing in anyone's High queue (see next)
		}
		if parts == nil {
			parts = *w.sched.parts.Load()
			start = int(w.nextRand() % uint64(max(len(parts), 1)))
		}
		if t := w.stealPriority(p, parts, start); t != nil {
			return t
		}
	}
	return nil
}

// stealOnce looks once, in priority order, at the injector and at the other
// participants' queues and, for Normal, their LIFO slots (never at its own:
// a participant that helps while it waits must leave its own queues to the
// frames below it). It is the last look before leaving or parking.
func (w *Worker) stealOnce() *task {
	parts := *w.sched.parts.Load()
	start := int(w.nextRand() % uint64(max(len(parts), 1)))
	for p := High; p < numPriorities; p++ {
		if t := w.takeInjected(p); t != nil {
			return t
		}
		if t := w.stealPriority(p, parts, start); t != nil {
			return t
		}
		if p == Normal {
			if t := w.stealSlots(parts, start); t != nil { // lifo.go
				return t
			}
		}
	}
	return nil
}

// takeInjected takes a fair share of priority p from the injector: runs
// the first, keeps the rest in its own queue (visible to thieves).
func (w *Worker) takeInjected(p Priority) *task {
	s := w.sched
	if s.inj.n[p].Load() == 0 {
		return nil
	}
	t, rest := s.inj.take(p, s.maxWorkers+1, w.batchBuf[:0])
	if t == nil {
		return nil
	}
	w.pq[p].pushMany(rest)
	clear(rest)
	w.batchBuf = rest[:0]
	if len(rest) > 0 {
		s.wakeCheckQuiet() // t is taken: a spawn panic must not lose it
	}
	return t
}

// stealPriority scans the other participants once for a task of priority
// p (for Normal: published forks first, then spawned tasks).
func (w *Worker) stealPriority(p Priority, parts []*Worker, start int) *task {
	n := len(parts)
	for k := 0; k < n; k++ {
		v := parts[(start+k)%n]
		if v == w {
			continue
		}
		if p == Normal {
			if t := w.stealFromQuiet(v); t != nil {
				return t
			}
		}
		if t := w.stealQueue(v, p); t != nil {
			return t
		}
	}
	return nil
}

// stealQueue takes up to half of v's queue of priority p at once: it runs
// the oldest and keeps the rest in its own queue of the same priority
// (where others may steal them in turn). A steal that lost a race is
// tried again: the queue may still hold tasks, and this may be the last
// look of a searcher about to leave or of a helper about to park (leave,
// helpUntil), which must not take a lost race for an empty queue. Each
// lost race is someone else's progress, so this ends.
func (w *Worker) stealQueue(v *Worker, p Priority) *task {
	for {
		got, r := v.pq[p].steal(w.batchBuf[:0])
		if r == empty {
			return nil
		}
		w.counters.stealAttempts.Add(1)
		if r == contended {
			continue
		}
		w.counters.steals.Add(1)
		t := got[0]
		if len(got) > 1 {
			w.pq[p].pushMany(got[1:])
			w.sched.wakeCheckQuiet() // t is taken: a spawn panic must not lose it
		}
		clear(got)
		w.batchBuf = got[:0]
		return t
	}
}

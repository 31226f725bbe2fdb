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
// A participant looks for its next task in priority order (scan.go), so
// it never starts a lower-priority task while a higher-priority one waits
// where it may take from. Own queues come before the injector, to keep
// work local; so that a stream of local tasks does not starve the
// injector, a worker at its top level looks at the injector first once
// every injectInterval local tasks. The interval follows the tasks'
// duration (as blitz-io's does): the aim is a look at least once per
// millisecond, so interval = 1 ms / (moving average of task time), between
// 8 and 255 tasks.

import (
	"strconv"
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
	return "Priority(" + strconv.Itoa(int(p)) + ")"
}

func (p Priority) check() {
	if p >= numPriorities {
		panic("forkjoin: invalid Priority " + p.String())
	}
}

// injector is the global queue of tasks submitted from outside, one FIFO
// per priority. Its lengths (queued) are atomics so that participants can
// look without the lock.
type injector struct {
	mu     sync.Mutex
	tasks  [numPriorities][]*task // tasks[p][head[p]:] are queued, and holes (nil) left by takeOf
	head   [numPriorities]int
	_      cacheline.Pad
	queued [numPriorities]atomic.Int64
	_      cacheline.Pad
	// high counts the tasks in the participants' High queues, or more
	// (deque.SpawnQueue.CountIn): a participant looks in the others' High queues
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
	in.tasks[p] = append(in.tasks[p], ts...)
	in.queued[p].Add(int64(len(ts)))
	in.mu.Unlock()
	return true
}

// take removes a fair share of priority p's queue: the first task to run
// and the rest, which the caller keeps in its own queue. A helper that may
// run only the tasks of the family fam (family.go) takes the oldest of
// them alone, from wherever it is in the queue (a hole is left there).
func (in *injector) take(p Priority, workers int, fam *family, rest []*task) (*task, []*task) {
	if in.queued[p].Load() == 0 {
		return nil, rest
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if fam != famAny {
		return in.takeOf(p, fam), rest
	}
	q := in.tasks[p][in.head[p]:]
	var t *task
	k := 0 // entries taken, holes included
	want := min(max(int(in.queued[p].Load())/max(workers, 1), 4), 64)
	n := 0 // tasks taken
	for ; k < len(q) && n < want; k++ {
		if q[k] == nil {
			continue // a hole (takeOf)
		}
		if t == nil {
			t = q[k]
		} else {
			rest = append(rest, q[k])
		}
		q[k] = nil
		n++
	}
	in.advance(p, k)
	in.queued[p].Add(-int64(n))
	return t, rest
}

// takeOf removes and returns the oldest task of priority p that the family
// fam may run, among the first takeOfScan entries, or nil. Under in.mu.
func (in *injector) takeOf(p Priority, fam *family) *task {
	q := in.tasks[p][in.head[p]:]
	for i, t := range q[:min(len(q), takeOfScan)] {
		if t != nil && mayRun(t, fam) {
			q[i] = nil
			if i == 0 {
				in.advance(p, 1)
			}
			in.queued[p].Add(-1)
			return t
		}
	}
	return nil
}

// takeMany appends to out up to k of the oldest tasks of priority p, and
// returns it.
func (in *injector) takeMany(p Priority, k int, out []*task) []*task {
	if k <= 0 || in.queued[p].Load() == 0 {
		return out
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	q := in.tasks[p][in.head[p]:]
	i, n := 0, 0
	for ; i < len(q) && n < k; i++ {
		if q[i] != nil { // not a hole (takeOf)
			out = append(out, q[i])
			q[i] = nil
			n++
		}
	}
	in.advance(p, i)
	in.queued[p].Add(int64(-n))
	return out
}

// takeOfScan bounds the entries a helper's look reads under the
// injector's lock (takeOf): a task further back is left to the pool's
// workers.
const takeOfScan = 1024

// advance moves the head of priority p's queue past k entries and past the
// holes after them, and compacts the queue. Under in.mu.
func (in *injector) advance(p Priority, k int) {
	in.head[p] += k
	for in.head[p] < len(in.tasks[p]) && in.tasks[p][in.head[p]] == nil {
		in.head[p]++
	}
	if in.head[p] == len(in.tasks[p]) {
		in.tasks[p], in.head[p] = in.tasks[p][:0], 0
	} else if in.head[p] > 1024 && in.head[p] > len(in.tasks[p])/2 {
		n := copy(in.tasks[p], in.tasks[p][in.head[p]:])
		clear(in.tasks[p][n:])
		in.tasks[p], in.head[p] = in.tasks[p][:n], 0
	}
}

// spawnCounters count spawned tasks by priority: one set per participant
// (written by its owner only) and one on the scheduler for submissions
// from outside any participant.
type spawnCounters struct {
	submitted, completed, panicked, canceled [numPriorities]atomic.Int64
}

// addStats adds the counters to st's totals and per-priority counts, and
// returns this set's totals (for a per-participant entry).
func (c *spawnCounters) addStats(st *pool.Stats) (total pool.PriorityStats) {
	for p := 0; p < numPriorities; p++ {
		ps := &st.ByPriority[p]
		sub, com := c.submitted[p].Load(), c.completed[p].Load()
		pan, can := c.panicked[p].Load(), c.canceled[p].Load()
		ps.Submitted += sub
		ps.Completed += com
		ps.Panicked += pan
		ps.Canceled += can
		total.Submitted += sub
		total.Completed += com
		total.Panicked += pan
		total.Canceled += can
	}
	st.Submitted += total.Submitted
	st.Completed += total.Completed
	st.Panicked += total.Panicked
	st.Canceled += total.Canceled
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

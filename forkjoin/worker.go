package forkjoin

// The Worker: a participant's handle and what the participant owns (its
// private fork stack and poll flag, its deque, queues and LIFO slot, its
// slabs, counters and spawn state), with the poll flag's operations (ask,
// asked, clearAsked). What a Worker does is in the files of its concerns:
// publish.go (forks and their publication), serve.go (a pool worker's
// loop), scan.go (where it looks for work), help.go (waiting while it
// helps), boundary.go (running a task and cleaning up after it).

import (
	"context"
	"runtime/trace"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
	"github.com/forkjoin-go/forkjoin/internal/deque"
)

// Worker is a participant's handle: every task, fork and callback of the
// core receives the *Worker of the goroutine that runs it, and passes it on
// to the forks it makes. Go has no goroutine-local storage, so the handle
// is how code finds its participant's deque and slabs.
//
// A Worker is valid only inside the task that received it, on that task's
// goroutine. Keeping it and using it after the task returned (or from
// another goroutine) is a bug; where the core can detect it, it panics with
// a message saying so. It cannot always: a Run's participant is reused by
// later Runs, and a pool worker's by its later tasks, so a kept handle may
// act on whatever that participant runs now.
type Worker struct {
	// Hot, owner-only fields first.

	// forks is the private stack of pending forks, oldest first: forks[i]
	// for i < forkTop are live; those below published are in deque (or
	// were taken by thieves). See forkEntry (fork.go).
	forks     []forkEntry
	forkTop   int
	published int
	joinTop   int              // the Future a slow Future.Join is for (fork.go)
	slabs     []unsafe.Pointer // *slab[A, R], indexed by the slab id of (A, R)
	resetters []slabResetter   // the same slabs, for resetSlabs
	dirty     bool             // a panic left slots allocated: reset at top level
	// standing: a request for work was taken and nothing has been
	// published since; armed: the worker set its own poll flag (asked)
	// to keep it visible. Owner-only; see Worker.requested.
	standing, armed bool
	run             *runState
	sched           *scheduler
	// obsNow is the observed run whose labels and trace region the
	// participant's goroutine carries (observe.go), nil for none.
	obsNow *observed

	_ cacheline.Pad
	// limit is the poll flag and the capacity of forks in one word, read
	// and written with sync/atomic only. Others (thieves, cancellation,
	// release) set it to 0 to make the owner take the slow path at its
	// next fork: they ask. Otherwise it is len(forks), which only the
	// owner writes. So a fork's fast path tests both "no room" and "asked"
	// with one load and one compare: index >= limit. It has a line of its
	// own because other cores write it.
	//
	// Invariant: limit is 0 or len(forks). The owner stores len(forks)
	// when it takes a request (clearAsked) and moves the limit with the
	// capacity only from the value it had (growForks' compare-and-swap), so
	// a request that arrives meanwhile stays.
	limit uintptr
	_     cacheline.Pad

	deque    *deque.Deque[task]                     // published forks and pushed Tasks
	queues   [numPriorities]*deque.SpawnQueue[task] // spawned tasks, by priority
	batchBuf []*task                                // reused by takeInjected
	forkBuf  []*task                                // reused by underForks

	localRun       int          // local tasks run since the injector was last looked at first
	injectInterval int          // how many local tasks between such looks
	avgTaskNs      int64        // moving average of spawned-task time
	timeTick       uint32       // samples spawned-task times (1 in 64)
	locals         []localValue // see local
	parked         atomic.Bool  // waiting in joinWake for a stolen task or Completion
	inUse          atomic.Bool
	// beat is set by the compensation monitor at each tick and cleared by
	// the participant when a task it ran is over (compensate.go).
	beat atomic.Uint32
	// famNow is the family of the task the participant runs or last ran
	// (its run's, family.go), a hint for helpers that may steal only their
	// own family's tasks (stealPriority, setFam); curFam is the owner's
	// copy, so that it stores only when the family changes.
	famNow atomic.Pointer[family]
	curFam *family
	// retired: a compensator's Worker whose goroutine has retired, in the
	// list of participants until it is collected (participants.go).
	retired atomic.Bool
	// goid is the id of the goroutine the participant runs on, or 0 where
	// it is not known: set for pool workers, compensators, a Group's Wait
	// and Close's drain, the participants that may run a Group's task
	// (Group.Wait's check that it is not called from one).
	goid      atomic.Uint64
	owner     atomic.Int64             // the owning goroutine's id, in race builds (misuse.go)
	stackBuf  atomic.Pointer[[64]byte] // goroutineID's buffer (misuse.go)
	id        int                      // index among all participants of the pool
	poolIndex int                      // the pool worker's index, or -1 for a caller
	rng       uint64
	counters  workerCounters
	tasksRun  int64 // tasks run and not yet in counters.tasks (see publishTasks)
	// Observation state besides obsNow (observe.go), owner-only:
	// labelsNow, the labels set on the goroutine (nil for none); region,
	// the trace region open at the top level; ownLabels, whether the
	// participant may set its goroutine's labels.
	labelsNow *labelSet
	region    *trace.Region
	ownLabels bool

	// Spawned tasks: slack, free list, counters (slack.go). Owner-written
	// per task, so kept off the lines that thieves read (deque, queues,
	// limit).
	_          cacheline.Pad
	spawnState spawnLocal
	spareTasks spareTasks // free scope tasks beyond spawnState.free, in batches (scopetask.go)
	// slot is the LIFO slot (lifo.go): owner-written per spawn, read by
	// others only in their last look for work.
	slot lifoSlot
}

// workerCounters are one participant's counters, summed into pool.Stats.
type workerCounters struct {
	tasks, stealAttempts, steals atomic.Int64
}

// workerCountersSnapshot is a copy of a participant's counters.
type workerCountersSnapshot struct {
	Tasks, StealAttempts, Steals int64
}

func (c *workerCounters) snapshot() workerCountersSnapshot {
	return workerCountersSnapshot{c.tasks.Load(), c.stealAttempts.Load(), c.steals.Load()}
}

func newWorker(s *scheduler, id, poolIndex int) *Worker {
	w := &Worker{
		sched:          s,
		deque:          deque.New[task](),
		id:             id,
		poolIndex:      poolIndex,
		forks:          make([]forkEntry, 16),
		limit:          16,
		injectInterval: injectIntervalMax,
		rng:            uint64(id)*0x9E3779B97F4A7C15 + 1,
	}
	w.beat.Store(1) // a new participant has finished nothing: no progress to show
	if poolIndex >= 0 {
		w.inUse.Store(true)
		w.ownLabels = true // its goroutine is the pool's (observe.go)
	}
	for p := range w.queues {
		w.queues[p] = deque.NewSpawnQueue[task]()
	}
	return w
}

// Index is the participant's number within its pool, for per-participant
// data such as scratch buffers: unique among the pool's participants and
// fixed for each. Participants are numbered from 0 in the order the pool
// first needs them: its workers, and a participant for each goroutine
// inside a Run at once (a later Run reuses a free one). So Index stays
// below Parallelism only while one goroutine at a time runs work on the
// pool; nested Runs, concurrent callers and Handle.Join or Wait (which run
// while they wait) add participants: size a per-participant slice on
// demand.
func (w *Worker) Index() int { return w.id }

// Parallelism is the parallelism of the pool the worker belongs to.
func (w *Worker) Parallelism() int { return w.sched.maxWorkers + 1 }

// Canceled reports whether the run the worker is working on was canceled
// (its context is done, or a task panicked or failed). Long callbacks may
// poll it and return early.
func (w *Worker) Canceled() bool {
	return w.run != nil && w.run.canceled.Load()
}

// Context returns the context of the current run (context.Background for
// Run). While an execution trace is recorded, or if the run's context
// carries pprof labels, it is a context derived from that one, which also
// carries the run's trace task (see docs/observability.md): pass it on to
// a nested run to keep both.
func (w *Worker) Context() context.Context {
	if w.run == nil || w.run.ctx == nil {
		return context.Background()
	}
	return w.run.ctx
}

func (w *Worker) checkActive() {
	if w == nil {
		panic("forkjoin: nil *Worker")
	}
	if !w.inUse.Load() || w.run == nil {
		panic("forkjoin: *Worker used outside the task that received it")
	}
	w.checkOwner()
}

func (w *Worker) nextRand() uint64 {
	w.rng ^= w.rng << 13
	w.rng ^= w.rng >> 7
	w.rng ^= w.rng << 17
	return w.rng
}

// asked reports whether another goroutine asked the owner to take its
// slow path (see limit).
func (w *Worker) asked() bool { return atomic.LoadUintptr(&w.limit) == 0 }

// ask makes the owner take its slow path at its next fork: for a thief
// that wants work, a canceled run, a released handle.
func (w *Worker) ask() { atomic.StoreUintptr(&w.limit, 0) }

// clearAsked takes a request: the owner's forks take the fast path again.
// Owner only.
func (w *Worker) clearAsked() { atomic.StoreUintptr(&w.limit, uintptr(len(w.forks))) }

// taskPointer converts a header pointer back to the struct that starts
// with it. Every container of a task keeps the header as its first field,
// so the conversion of the result to the container's pointer type is
// unsafe.Pointer's rule (1).
func taskPointer(h *task) unsafe.Pointer { return unsafe.Pointer(h) }

package forkjoin

// The scheduler: one per pool, kept on the pool as an attachment.
//
// Participants. Every goroutine that works on a pool is a participant with
// a *Worker: the pool's n-1 background workers (one Worker each, created on
// their first entry) and every goroutine inside Run (a caller Worker, taken
// from a free list and returned when its Run ends). All participants are in
// one copy-on-write list that thieves scan.
//
// Lazy publication (Spice and chili call it heartbeat scheduling; here no
// timer is involved: a thief's request drives it). A fork does not touch
// any shared memory: it pushes a pointer to its slot on the owner's
// private stack. Only when somebody asks — a thief sets the owner's
// poll flag, which is the owner's fork limit set to 0 (Worker.limit), so
// that the fork's one test for "no room" fails for "asked" too — does the
// owner, at its next fork, publish its OLDEST private fork (the biggest
// piece of work it holds) into its Chase–Lev deque, where thieves take it.
// A join checks, with plain loads of its own memory, whether its fork was
// published; if not (almost always), it calls the function directly. The
// heavy machinery is paid only by work that moves.
//
// Sleep and wake-up. The pool's workers enter the scheduler (the pinned
// Job) when woken and leave it when they find nothing; the pool parks them
// on its EventCount. The scheduler throttles wake-ups with one state word:
//
//	bits  0..15  searching: workers inside the scheduler looking for work
//	bits 16..31  active:    workers inside the scheduler
//	bit  32      waking:    a wake-up is on its way and not yet absorbed
//
// New work (a publication, a Push, an injected task) calls wakeCheck, which
// wakes one worker only if nobody is searching, some worker is outside the
// scheduler and no wake-up is already on its way. An entering worker
// absorbs the wake-up (clears waking) and counts itself active and
// searching. A searcher that finds work stops searching; if it was the last
// searcher, it calls wakeCheck, so wake-ups ripple one at a time while work
// is there to take. A searcher that finds nothing leaves: it stops
// searching and stops being active, and if it was the last searcher it
// scans every queue once more before returning to the pool. That rescan is
// what makes the throttle safe: new work is made visible before its
// producer reads the state word (sequentially consistent atomics), so a
// producer that saw a searcher and did not wake anyone is covered by the
// last searcher's rescan, which follows its decrement.
//
// A thief that finds no published work sets the poll flag of every busy
// participant; each publishes one fork at its next fork and calls
// wakeCheck. When a thief gives up and parks, the flags it left behind
// wake it (or another) as soon as work is published. A participant that
// waits for a join (helpUntil) and parks is not a pool worker outside the
// scheduler, so wakeCheck's throttle does not cover it: it counts itself in
// joinParked before its last look for work (park, help.go), and wakeCheck,
// which runs after new work is visible, notifies joinWake while that count
// is not zero.

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/internal/poolcore"
	"github.com/forkjoin-go/forkjoin/pool"
)

type scheduler struct {
	pool       *pool.Pool
	layer      *poolcore.Pool // the pool's layer view: Pin, WakeOne, ...
	maxWorkers int
	job        dispatch.Job
	// scopeChunks counts the chunks of scope tasks allocated
	// (getScopeTask): a burst that reuses the tasks of an earlier one
	// allocates none.
	scopeChunks atomic.Int64

	state atomic.Uint64
	_     cacheline.Pad

	participants atomic.Pointer[[]*Worker] // every participant; copy-on-write under mu

	mu      sync.Mutex
	workers []*Worker // by pool worker index
	free    []*Worker // idle caller Workers
	closed  bool
	// sealed: Close saw every spawned task over (see drain); a task
	// submitted from outside the pool's tasks is refused from then on.
	// Under injector.mu, not mu.
	sealed bool
	nextID int

	// joinWake parks participants waiting for a stolen task or a
	// Completion; the task's finisher notifies it.
	joinWake dispatch.EventCount
	// joinParked counts the participants parked (or about to park) on
	// joinWake (park). New work wakes them: they asked for it (see
	// wakeCheck).
	joinParked atomic.Int32

	// Spawned tasks (priority.go, spawn.go, slack.go).
	injector   injector
	groups     groupLane    // a Group's tasks (grouplane.go)
	pending    atomic.Int64 // spawned tasks submitted and not yet over
	drained    dispatch.EventCount
	spawned    spawnCounters
	helpWanted atomic.Bool // tasks were submitted while no worker could run them
	lifo       bool        // spawns use the LIFO slot (lifo.go, pool.WithLIFOSlot); set before the scheduler is published

	_           cacheline.Pad
	comp        compensation // compensating goroutines (compensate.go)
	searchLimit int          // the most pool workers that look for work at once
	retired     retiredStats // the counters of participants dropped from the list (compactFree)
}

const (
	searchOne  = 1
	activeOne  = 1 << 16
	countMask  = 1<<16 - 1
	wakingBit  = 1 << 32
	stealSpins = 64 // least rounds of an empty look for work before giving up (keepLooking)
)

func searching(s uint64) int { return int(s & countMask) }
func active(s uint64) int    { return int(s >> 16 & countMask) }

type schedKey struct{}

// schedulerOf returns the pool's scheduler, creating and pinning it on
// first use.
func schedulerOf(p *pool.Pool) *scheduler {
	if p == nil {
		panic("forkjoin: nil *pool.Pool")
	}
	if p.Closed() {
		panic("forkjoin: use of a closed pool")
	}
	return (*poolcore.Pool)(p).Attach(schedKey{}, newScheduler).(*scheduler)
}

func newScheduler(p *poolcore.Pool) poolcore.Attachment {
	s := &scheduler{pool: (*pool.Pool)(p), layer: p, maxWorkers: p.Workers()}
	s.searchLimit = max(2, runtime.GOMAXPROCS(0)/2)
	s.lifo = s.layer.LIFOSlot()
	if s.maxWorkers > countMask {
		s.maxWorkers = countMask
	}
	empty := []*Worker{}
	s.participants.Store(&empty)
	s.job = dispatch.Job{Call: workerEntry, Data: unsafe.Pointer(s)}
	s.layer.Pin(&s.job)
	return s
}

// Close unpins the scheduler. Called by Pool.Close.
func (s *scheduler) Close() {
	if s.onParticipant() || s.runInProgress() && onRunStack() {
		panic(errCloseInRun)
	}
	s.drain()
	s.stopCompensation()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.layer.Unpin()
	// Every task is over: let the collector have the free scope tasks
	// kept for later Runs (scopetask.go, spareTasks).
	for _, w := range *s.participants.Load() {
		w.spareTasks.release()
		w.releaseLocals()
	}
}

// workerEntry is the pinned Job's function: a pool worker entering the
// scheduler.
func workerEntry(data unsafe.Pointer, id int) {
	s := (*scheduler)(data) // unsafe.Pointer rule (1): data is newScheduler's s
	w := s.workerFor(id)
	w.serve()
}

// wakeCheck wakes one worker if new work may need it. Called after work
// was made visible to thieves.
func (s *scheduler) wakeCheck() {
	if s.joinParked.Load() != 0 {
		// A participant waiting for a join parked after asking others
		// to publish: this may be what it asked for. (It counted itself
		// in before its last look for work; this load follows the work's
		// publication: one of the two sees the other.)
		s.joinWake.NotifyAll()
	}
	st := s.state.Load()
	if searching(st) != 0 || st&wakingBit != 0 {
		return
	}
	if active(st) >= s.maxWorkers {
		// Every worker is busy: if spawned tasks are about, they may all
		// be held up in tasks that block (compensate.go).
		if s.pending.Load() != 0 {
			s.arm()
		}
		return
	}
	if !s.state.CompareAndSwap(st, st|wakingBit) {
		return // someone else changed the state: they take care of it
	}
	s.wake()
}

// wake asks the pool for a worker to absorb the waking bit just set. If
// none will come (none could be started, or starting one panicked: a
// broken pool.WithSpawn), it takes the bit back, or no wake-up would ever
// be sent again.
func (s *scheduler) wake() {
	woken := false
	defer func() {
		if !woken {
			s.state.Add(^uint64(wakingBit - 1)) // nobody will absorb it
			s.arm()                             // nobody else may run the work (compensate.go)
		}
	}()
	woken = s.layer.WakeOne()
}

// enter: a pool worker arrives: active and searching, absorbing a wake-up,
// and reports true; unless searchLimit workers search already: then it
// absorbs the wake-up only and reports false, and the worker goes back to
// the pool (those searching cover what it was woken for). A pool of many
// workers so never has them all reading every queue at once, whether they
// come back from a task or from the pool.
func (s *scheduler) enter() bool {
	for {
		st := s.state.Load()
		if searching(st) >= s.searchLimit {
			if st&wakingBit == 0 || s.state.CompareAndSwap(st, st&^wakingBit) {
				return false
			}
			continue
		}
		next := (st &^ wakingBit) + activeOne + searchOne
		if s.state.CompareAndSwap(st, next) {
			return true
		}
	}
}

// stopSearching: a searcher found work. The last searcher to find work
// passes the baton: more work may be waiting for another worker.
func (s *scheduler) stopSearching() {
	st := s.state.Add(^uint64(searchOne - 1))
	if searching(st) == 0 {
		s.wakeCheckQuiet()
	}
}

// wakeCheckQuiet is wakeCheck for a pool worker that holds a task it has
// not started: a panic from starting another worker (a broken
// pool.WithSpawn) has no run to fail here, and letting it escape would
// lose the task and hang its joiner. It is dropped: the worker counts as
// not started.
func (s *scheduler) wakeCheckQuiet() {
	defer func() { _ = recover() }()
	s.wakeCheck()
}

// startSearching makes a pool worker that ran out of work a searcher, and
// reports true, unless searchLimit workers search already: then it leaves
// the scheduler (it stops being active) and reports false. Either way the
// throttle stays safe: a worker that leaves this way was not the last
// searcher.
func (s *scheduler) startSearching() bool {
	for {
		st := s.state.Load()
		if searching(st) >= s.searchLimit {
			if s.state.CompareAndSwap(st, st-activeOne) {
				return false
			}
			continue
		}
		if s.state.CompareAndSwap(st, st+searchOne) {
			return true
		}
	}
}

// leave: a searcher found nothing and returns to the pool. It reports
// whether it really left: if it was the last searcher, it scans once more
// and stays (as an active searcher) when it finds work, returned in t.
//
// Staying is an entry, and absorbs a wake-up as enter does: between the
// decrement and the rescan the worker was outside the scheduler, so a
// producer may have set waking for it (the pool's WakeOne answers "a
// worker will come" while one is between a job and its park). If the
// worker kept that bit while it runs the task it found, no wake-up would
// be sent, and no monitor armed (wakeCheck returns at a set waking), until
// it returns to the pool: with that task blocked, never.
func (s *scheduler) leave(w *Worker) (t *task, left bool) {
	st := s.state.Add(^uint64(activeOne + searchOne - 1))
	if searching(st) != 0 {
		return nil, true
	}
	if testHookLeft != nil {
		testHookLeft(w)
	}
	if t = w.scan(lookLast, nil, famAny); t == nil {
		return nil, true
	}
	for {
		st = s.state.Load()
		if s.state.CompareAndSwap(st, (st&^wakingBit)+activeOne+searchOne) {
			return t, false
		}
	}
}

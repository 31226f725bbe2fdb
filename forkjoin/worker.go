package forkjoin

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
	"github.com/forkjoin-go/forkjoin/internal/core"
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
	// for i < sp are live; those below published are in dq (or were taken
	// by thieves). See forkEntry (fork.go).
	forks     []forkEntry
	sp        int
	published int
	joinTop   int              // the Future a slow Future.Join is for (fork.go)
	slabs     []unsafe.Pointer // *slab[A, R], indexed by the slab id of (A, R)
	resetters []slabResetter   // the same slabs, for resetSlabs
	dirty     bool             // a panic left slots allocated: reset at top level
	// standing: a request for work was taken and nothing has been
	// published since; armed: the worker set its own poll flag (asked) to keep it
	// visible. Owner-only; see Worker.requested.
	standing, armed bool
	run             *runState
	sched           *scheduler

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

	dq       *deque
	pq       [numPriorities]*spawnQueue // spawned tasks, by priority
	batchBuf []*task                    // reused by takeInjected
	forkBuf  []*task                    // reused by underForks

	localRun       int          // local tasks run since the injector was last looked at first
	injectInterval int          // how many local tasks between such looks
	avgTaskNs      int64        // moving average of spawned-task time
	timeTick       uint32       // samples spawned-task times (1 in 64)
	locals         []localValue // see local
	parked         atomic.Bool  // waiting in joinWake for a stolen task or Completion
	inUse          atomic.Bool
	owner          atomic.Int64             // the owning goroutine's id, in race builds (misuse.go)
	stackBuf       atomic.Pointer[[64]byte] // goroutineID's buffer (misuse.go)
	id             int                      // index among all participants of the pool
	poolIndex      int                      // the pool worker's index, or -1 for a caller
	rng            uint64
	counters       workerCounters
	tasksRun       int64 // tasks run and not yet in counters.tasks (see publishTasks)

	// Spawned tasks: slack, free list, counters (spawn.go). Owner-written
	// per task, so kept off the lines that thieves read (dq, pq, limit).
	_     cacheline.Pad
	sl    spawnLocal
	spare spareTasks // free scope tasks beyond sl.free, in batches (spawn.go)
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
		dq:             newDeque(),
		id:             id,
		poolIndex:      poolIndex,
		forks:          make([]forkEntry, 64),
		limit:          64,
		injectInterval: injectIntervalMax,
		rng:            uint64(id)*0x9E3779B97F4A7C15 + 1,
	}
	if poolIndex >= 0 {
		w.inUse.Store(true)
	}
	for p := range w.pq {
		w.pq[p] = newSpawnQueue()
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

// Cancelled reports whether the run the worker is working on was cancelled
// (its context is done, or a task panicked or failed). Long callbacks may
// poll it and return early.
func (w *Worker) Cancelled() bool {
	return w.run != nil && w.run.cancelled.Load()
}

// Context returns the context of the current run (context.Background for
// Run).
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
// that wants work, a cancelled run, a released handle.
func (w *Worker) ask() { atomic.StoreUintptr(&w.limit, 0) }

// clearAsked takes a request: the owner's forks take the fast path again.
// Owner only.
func (w *Worker) clearAsked() { atomic.StoreUintptr(&w.limit, uintptr(len(w.forks))) }

// pushFork records a new private fork whose argument is in the slot of h.
// Owner only; no shared memory.
func (w *Worker) pushFork(h *task) {
	w.growForks()
	w.forks[w.sp] = forkEntry{hdr: h}
	w.sp++
}

// growForks makes room for one more entry on the private stack.
func (w *Worker) growForks() {
	if w.sp == len(w.forks) {
		old := uintptr(len(w.forks))
		w.forks = append(w.forks, forkEntry{})
		w.forks = w.forks[:cap(w.forks)]
		// The limit follows the capacity, unless a request came (0): that
		// one stays for the heartbeat, which sets the new capacity.
		atomic.CompareAndSwapUintptr(&w.limit, old, uintptr(len(w.forks)))
	}
}

// heartbeat is the slow path of a fork, taken when the owner was asked
// (its poll flag, limit = 0, is set): check that the handle is valid and
// the run still wanted, then publish the oldest private fork for the thief
// that asked.
func (w *Worker) heartbeat() {
	w.checkActive() // before taking the request: a stale handle keeps failing here
	w.clearAsked()
	w.armed = false
	if w.run.cancelled.Load() {
		panic(unwinding{})
	}
	w.flushSlot() // a thief asked: let it see the slot's task (lifo.go)
	w.publishOldest()
}

// publishOldest moves the oldest private fork into the deque.
func (w *Worker) publishOldest() {
	i := w.published
	if i >= w.sp {
		return
	}
	e := &w.forks[i]
	h := e.hdr
	if wf := e.wordOf(); wf != nil {
		h = wf.publish(w, e) // its argument moves into a slot now
	}
	h.run = w.run
	h.state.Store(taskPending)
	h.thief.Store(nil)
	w.published = i + 1
	w.dq.push(h)
	w.standing = false // a standing request is answered
	w.sched.wakeCheck()
}

// reclaim is the slow path of a join whose fork (private index i, at the
// top of the stack) was published: take it back from the deque and report
// true, or, if a thief has it, help until it finishes and report false.
// Entries above it in the deque are intrusive tasks pushed meanwhile; they
// are run here.
func (w *Worker) reclaim(h *task, i int) (mine bool) {
	w.published = i
	for {
		t := w.dq.pop()
		if t == h {
			return true
		}
		if t == nil {
			w.waitTask(h)
			return false
		}
		w.execute(t)
	}
}

// waitTask helps with other work until the stolen task h has finished.
// Panics with the unwinding sentinel if h failed (its run is cancelled and
// the failure recorded there).
func (w *Worker) waitTask(h *task) {
	w.helpUntil(func() bool { return h.state.Load() != taskPending }, h, nil)
	if h.state.Load() == taskFailed {
		panic(unwinding{})
	}
}

// wait is core.Wait: it helps with other work until c is complete.
func (w *Worker) wait(c *core.Completion) { w.waitLane(c, nil) }

// waitLane is wait that may also run the tasks lane (a Group's Spawner)
// has in the group lane (grouplane.go).
func (w *Worker) waitLane(c *core.Completion, lane *Spawner) {
	w.checkActive()
	if c == nil {
		panic("forkjoin: Wait for a nil *Completion")
	}
	if c.Done() {
		return
	}
	c.AddWaiter(&w.sched.joinWake)
	w.helpUntil(c.Done, nil, lane)
}

// helpUntil runs tasks until done() holds: first the intrusive Tasks at
// the bottom of its own deque (what this frame Pushed and now Waits for;
// at parallelism 1 nobody else would run them; a Wait also looks under
// published forks, see underForks), then, by priority, what helpTake
// finds, and the tasks of lane, a group's Spawner (or laneAny), in the
// group lane (grouplane.go); a nil lane takes no group's task. When there
// is nothing to take it parks on joinWake, which the finisher of h (or the
// completer of a Completion) notifies.
func (w *Worker) helpUntil(done func() bool, h *task, lane *Spawner) {
	idle := 0
	var since time.Time // see keepLooking
	dig := h == nil     // a Wait: see underForks
	for !done() {
		t := w.dq.pop()
		if t != nil && t.owner != nil {
			// A published fork of a frame below: it stays for its joiner
			// or a thief, in the same place.
			if dig {
				t = w.underForks(t)
				dig = t != nil
			} else {
				w.dq.push(t)
				t = nil
			}
		}
		if t == nil {
			t = w.sched.groups.take(lane) // what a Group's Wait waits for
		}
		if t == nil {
			t = w.helpTake(h)
		}
		if t != nil {
			w.execute(t)
			idle, since = 0, time.Time{}
			continue
		}
		if w.holdsSlack() {
			w.flushSlack() // about to go idle (spawn.go)
			continue       // which may have made done() true
		}
		idle++
		if keepLooking(idle, &since) {
			continue
		}
		// Looked as long as a searcher would (see search), for the
		// same reason: a waiter in the middle of a run that parks
		// here is woken for the next piece its thief deals out, and
		// waking costs 0.1 ms to several on a virtual machine.
		//
		// Park until a finisher or a publication wakes us. Count in
		// first, then take the token, then look once more: a publication
		// after the count-in notifies (wakeCheck), one before it is seen
		// by this last look.
		if testHookIdle != nil {
			testHookIdle(w)
		}
		w.parked.Store(true)
		w.sched.joinParked.Add(1)
		tok := w.sched.joinWake.Prepare()
		if done() {
			w.sched.joinParked.Add(-1)
			w.parked.Store(false)
			break
		}
		t = w.stealOnce()
		if t == nil {
			t = w.sched.groups.take(lane)
		}
		if t != nil {
			w.sched.joinParked.Add(-1)
			w.parked.Store(false)
			w.execute(t)
			idle = 0
			continue
		}
		w.sched.joinWake.Wait(tok)
		w.sched.joinParked.Add(-1)
		w.parked.Store(false)
		idle, since = stealSpins/2, time.Time{}
	}
	w.flushSlot() // back to the caller's code (lifo.go)
	if w.holdsSlack() {
		w.flushSlack() // back to the caller's code (spawn.go)
	}
}

// underForks is Wait's look past the published forks at the bottom of its
// own deque, f the first of them (popped): a frame may Push a Task, fork
// (a thief's request publishes the fork, above the Task), then Wait for
// what the Task signals. The Task is the frame's to run (at parallelism 1
// nobody else would), so underForks pops the forks off it and pushes them
// back in the same order. It returns the first Task under them, or nil
// (then Wait stops looking: Tasks pushed later sit above the forks). A
// thief that looks while the forks are off sees fewer tasks for a moment.
func (w *Worker) underForks(f *task) *task {
	forks := append(w.forkBuf[:0], f)
	var t *task
	for {
		t = w.dq.pop()
		if t == nil || t.owner == nil {
			break
		}
		forks = append(forks, t)
	}
	for i := len(forks) - 1; i >= 0; i-- {
		w.dq.push(forks[i])
	}
	clear(forks)
	w.forkBuf = forks[:0]
	return t
}

func (w *Worker) stealFrom(v *Worker) *task {
	if v == w {
		return nil
	}
	return w.stealFromQuiet(v)
}

// stealFromQuiet is stealFrom without reading the victim's private state
// racily: it asks every participant that is in use to publish.
func (w *Worker) stealFromQuiet(v *Worker) *task {
	for {
		t, r := v.dq.steal()
		if r == stolen {
			w.counters.stealAttempts.Add(1)
			w.counters.steals.Add(1)
			return t
		}
		if r == empty {
			if v.inUse.Load() && !v.asked() {
				v.ask()
			}
			return nil
		}
		w.counters.stealAttempts.Add(1)
	}
}

// serve is a pool worker's life inside the scheduler: search, run, repeat;
// leave when there is nothing to do.
func (w *Worker) serve() {
	w.claim()
	s := w.sched
	s.enter()
	left := false
	defer func() {
		if !left { // a task's runtime.Goexit is ending the goroutine
			w.leaveOnGoexit()
		}
	}()
	for {
		t := w.search()
		if t == nil {
			if testHookIdle != nil {
				testHookIdle(w)
			}
			w.dropStale() // about to idle: keep nothing of the work done
			if t, left = s.leave(w); left {
				return
			}
		}
		s.stopSearching()
		w.execute(t)
		for t := w.next(); t != nil; t = w.next() {
			w.execute(t)
		}
		if w.holdsSlack() {
			w.flushSlack() // about to search (spawn.go)
		}
		if w.dirty {
			w.resetSlabs() // top level: no frame holds a slot
		}
		if w.armed { // a request of its own frames, all gone: drop it
			w.clearAsked()
		}
		w.standing, w.armed = false, false
		w.publishTasks()
		s.startSearching()
	}
}

// publishTasks adds the tasks w ran since it last did to its counter. The
// count is kept in a plain field and published in batches (at most
// statsBatch apart, and whenever w stops running tasks: a pool worker
// before it searches, a caller when its Run ends), because an atomic add
// per task is a locked instruction, 3–7% of an empty spawned task's cost.
// Stats.Tasks may therefore lag
// while tasks run, and is exact once the pool is idle.
func (w *Worker) publishTasks() {
	if w.tasksRun != 0 {
		w.counters.tasks.Add(w.tasksRun)
		w.tasksRun = 0
	}
}

// leaveOnGoexit is serve's end for a pool worker whose goroutine a task's
// runtime.Goexit is ending (runTask has ended that task): it gives back
// its slack and what it kept of the work, and leaves the scheduler as the
// active worker it was (it was running a task, so not searching). The pool
// starts a goroutine in its place (pool.Pool.replaceWorker), which takes
// over this Worker and the tasks still queued on it; until then the others
// may steal them, and the wake-up below looks for someone to.
func (w *Worker) leaveOnGoexit() {
	w.flushSlot() // lifo.go
	if w.holdsSlack() {
		w.flushSlack()
	}
	w.publishTasks()
	if w.dirty || w.sp != 0 {
		w.resetSlabs()
	}
	w.clearAsked()
	w.standing, w.armed = false, false
	w.dropStale()
	w.sched.state.Add(^uint64(activeOne - 1))
	w.sched.wakeCheckQuiet()
}

// search looks for a task for a while before giving up: at least
// stealSpins rounds and at least searchFor. Parking and being woken costs
// a parked worker ~0.1 ms on a virtual machine (a futex wake-up and a
// reschedule), more than the gap between the runs of a program that starts
// one run after another; searching a little longer keeps the worker there
// for the next one. It yields its processor every 8 rounds, so a spinning
// worker keeps no goroutine of its own processor's queues waiting, and its
// thread every 64 (osYield), so it never keeps a runnable thread waiting
// either. (A goroutine readied meanwhile onto another, busy processor's
// queue does wait for the search to end: Go's scheduler takes work from
// another processor only when it has none of its own, and the yielding
// searcher always is some. docs/tuning.md says what that costs a program
// that runs other work beside a pool.)
//
// The second yield is for the operating system's placement of threads. The
// Go runtime runs a woken worker on whichever thread it wakes, and Linux
// may queue that thread on the processor of the thread that woke it, the
// one running the owner of the work, while the other processor stays idle
// (on the 2-core VM of docs/BENCHMARKS.md, 55–94% of the wake-ups that
// follow a pause of 3–10 ms). The two threads then share one processor, and a thief that
// spins there for searchFor takes it from the owner it waits for: runs took
// up to 2.2× as long as the owner alone. A sched_yield lets the owner's
// thread run instead; elsewhere it costs a system call every few
// microseconds of a search that found nothing.
func (w *Worker) search() *task {
	var since time.Time
	for idle := 1; ; idle++ {
		if t := w.next(); t != nil {
			return t
		}
		if !keepLooking(idle, &since) {
			return nil
		}
	}
}

// keepLooking paces a look for work that has come back empty idle times in
// a row, for search and for a waiter (helpUntil): every 8th round it yields
// the processor, every 64th the thread too (see search), and it reports
// false, time to give up, once the look has lasted at least stealSpins
// rounds and at least searchFor. since is the caller's: the zero time at
// the start of the look, then when its stealSpins-th round came (the clock
// is read every 8th round only: two reads cost some 50 ns on a virtual
// machine).
func keepLooking(idle int, since *time.Time) bool {
	if idle%8 != 0 {
		return true
	}
	if idle >= stealSpins {
		if since.IsZero() {
			*since = time.Now()
		} else if time.Since(*since) >= searchFor {
			return false
		}
	}
	runtime.Gosched()
	if idle%64 == 0 {
		osYield()
	}
	return true
}

// searchFor is the least time a look for work lasts before it gives up
// (keepLooking).
const searchFor = 100 * time.Microsecond

// unwinding is the panic value the core uses to unwind a cancelled run's
// frames up to the nearest task boundary. It is never seen by users unless
// their own recover catches it; re-panic anything you do not recognise.
type unwinding struct{}

// execute runs a task taken from a deque or the injector: a task boundary.
// It switches the worker to the task's run, recovers a panic (recording it
// in the run and cancelling it), cleans up the forks the panic abandoned,
// and marks the task finished for its joiner.
func (w *Worker) execute(t *task) {
	if w.holdsSlack() {
		w.settleFor(t)
	}
	if w.tasksRun++; w.tasksRun >= statsBatch {
		w.publishTasks()
	}
	// What execute needs of t once t's function has started is read now:
	// from then on an intrusive Task may be pushed again (Task.Init), by
	// its function or by whoever it signalled, and its header rewritten.
	end := taskEnd{owner: t.owner, after: t.after, saved: w.run, savedPub: w.published}
	run := t.run
	w.run = run
	mark := w.sp
	// The private forks below mark belong to the frames this task
	// interrupts (a Wait, say), possibly of another run: the task's
	// heartbeats publish only its own forks.
	w.published = mark
	if end.owner != nil { // a fork's slot: its joiner may help its thief
		t.thief.Store(w)
	}
	ok := w.runTask(t, run, mark, &end)
	if !end.over {
		w.endTask(t, &end, ok)
	}
}

// taskEnd is what execute restores and signals once its task is over: the
// task's owner and after callback, read before it ran, and the worker's run
// and publication mark it interrupted. over is set once endTask has run.
type taskEnd struct {
	owner    *Worker
	after    func(w *Worker, t *task)
	saved    *runState
	savedPub int
	over     bool
}

// endTask ends t for execute: the worker goes back to the interrupted run,
// a fork's joiner learns how it ended, a spawned task reports.
func (w *Worker) endTask(t *task, e *taskEnd, ok bool) {
	e.over = true
	w.run = e.saved
	w.published = e.savedPub
	if e.saved != nil && e.saved.cancelled.Load() {
		w.ask() // let the frames below notice at their next fork
	}
	if e.owner != nil { // a fork's slot: tell the joiner
		if ok {
			t.finish(taskDone)
		} else {
			t.finish(taskFailed)
		}
	}
	if e.after != nil {
		e.after(w, t)
	}
}

// runTask runs t, of run r, at a task boundary; mark is the fork stack's
// height below t's forks. It reports whether t returned normally.
//
// A task that calls runtime.Goexit (t.FailNow in a test, say) neither
// returns nor panics: recover finds nothing, and once the deferred calls
// have run, the goroutine ends, whatever it was (a pool worker, or a
// goroutine that helped while it waited). Goexit cannot be stopped, so the
// deferred call ends the task itself, failed with a *PanicError of
// ErrGoexit, before the goroutine goes: its joiner, its handle, its scope
// learn it, rather than waiting for ever. It runs no other task meanwhile
// (abandonExiting). The frames below then meet the same Goexit: serve and
// runRoot clean up for the goroutine.
func (w *Worker) runTask(t *task, r *runState, mark int, end *taskEnd) (ok bool) {
	if t.owner != nil && r != nil && r.cancelled.Load() {
		return false // a cancelled fork is not started; its joiner unwinds
	}
	defer func() {
		if ok {
			return
		}
		v := recover()
		if v == nil { // runtime.Goexit
			if r != nil {
				r.fail(goexitError())
			}
			w.abandonExiting(mark)
			w.endTask(t, end, false)
			return
		}
		if r != nil {
			r.recovered(v) // record and cancel first: abandon may wait for thieves
		}
		w.abandon(mark)
	}()
	t.exec(w, t)
	if w.sp != mark {
		panic(errUnjoined) // abandon waits for the forks' thieves
	}
	return true
}

const errUnjoined = "forkjoin: a task returned with a forked Future not joined (join every Future before the task that forked it returns)"

// abandon cleans up the private stack after a panic unwound the frames
// that pushed forks[mark:sp]: published forks are taken back from the deque
// or, if a thief has them, waited for, because their slots will be reused.
// The slots stay allocated on their slabs (the frames that would have
// popped them are gone) until the worker is back at its top level, where
// resetSlabs frees every slot at once.
func (w *Worker) abandon(mark int) { w.abandonFrames(mark, false) }

// abandonExiting is abandon on a goroutine that a runtime.Goexit is ending
// (see runTask): it runs no task while it cleans up. A task it ran there
// could call Goexit too, and a Goexit inside a deferred call that Goexit
// runs cuts that call short: the cleanup would stop half-way and the task
// being ended would never end. So a stolen fork is waited for without
// helping (waitQuiet), and the Tasks pushed above a published fork are
// set aside and pushed back (before any wait: the fork's thief may wait
// for what they signal), for a thief or the worker's replacement.
func (w *Worker) abandonExiting(mark int) { w.abandonFrames(mark, true) }

func (w *Worker) abandonFrames(mark int, exiting bool) {
	var aside []*task // pushed Tasks popped on the way, newest first
	for w.sp > mark {
		// Pop the entry first, as a join does: while this waits for a
		// thief, the tasks it helps with fork above sp, and a heartbeat
		// must not publish the abandoned entries again.
		w.sp--
		i := w.sp
		h := w.forks[i].hdr // a word fork's slot only if it was published
		w.forks[i] = forkEntry{}
		if i < w.published {
			w.published = i
			taken := false
			for !taken {
				t := w.dq.pop()
				switch {
				case t == h:
					taken = true
				case t == nil && exiting:
					// Back in the deque before the wait: the fork's
					// thief may be waiting for what they signal.
					aside = w.pushBack(aside)
					w.waitQuiet(h)
					taken = true
				case t == nil:
					w.helpUntil(func() bool { return h.state.Load() != taskPending }, h, nil)
					taken = true
				case exiting:
					aside = append(aside, t)
				default:
					w.execute(t) // an intrusive task pushed above it
				}
			}
		}
	}
	w.pushBack(aside)
	w.dirty = true
	if w.published > mark {
		w.published = mark
	}
}

// pushBack returns the Tasks abandonExiting set aside (newest first) to
// the deque in their order, wakes a thief if one may be needed, and
// returns aside emptied.
func (w *Worker) pushBack(aside []*task) []*task {
	if len(aside) == 0 {
		return aside
	}
	for i := len(aside) - 1; i >= 0; i-- {
		w.dq.push(aside[i])
	}
	w.sched.wakeCheckQuiet()
	return aside[:0]
}

// waitQuiet waits until the stolen task h has finished, running nothing
// meanwhile (see abandonExiting): it spins a little, then parks on
// joinWake, which h's finisher notifies (task.finish: w is h's owner).
func (w *Worker) waitQuiet(h *task) {
	for i := 0; h.state.Load() == taskPending; i++ {
		if i < stealSpins {
			runtime.Gosched()
			continue
		}
		// Count in, then the token, then look once more (as helpUntil).
		w.parked.Store(true)
		w.sched.joinParked.Add(1)
		tok := w.sched.joinWake.Prepare()
		if h.state.Load() == taskPending {
			w.sched.joinWake.Wait(tok)
		}
		w.sched.joinParked.Add(-1)
		w.parked.Store(false)
	}
}

// taskPointer converts a header pointer back to the struct that starts
// with it. Every container of a task keeps the header as its first field.
func taskPointer(h *task) unsafe.Pointer { return unsafe.Pointer(h) }

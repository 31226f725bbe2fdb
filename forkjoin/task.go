package forkjoin

import (
	"sync"
	"sync/atomic"
)

// task is the header of everything that can sit in a deque: a typed fork's
// slot (header first, then argument and result), a Join's slot, or a user's
// intrusive Task. Thieves see only *task; exec knows the rest.
type task struct {
	// exec runs the task on a worker that is not its owner (or on the owner
	// for intrusive tasks). Set when the slot is pushed.
	exec func(w *Worker, t *task)
	// owner is the participant whose private stack the slot belongs to, nil
	// for intrusive tasks. Set once when the slot is created.
	owner *Worker
	// run is the run the task belongs to; set when the task is published.
	run *runState
	// state is taskPending until the task has finished on a thief: then
	// taskDone, or taskFailed if it panicked or was abandoned because its
	// run was cancelled. The joiner reads the result only after it loads
	// taskDone (the store is sequentially consistent, so it happens after
	// the thief's write of the result).
	state atomic.Uint32
	// thief is the worker that took the task, so that a joiner waiting for
	// it helps that worker first.
	thief atomic.Pointer[Worker]
	// after, if set, is called by the worker that ran the task once it is
	// over, whether it returned, panicked or was skipped (spawned tasks
	// report to their handle, scope or graph here).
	after func(w *Worker, t *task)
}

const (
	taskPending uint32 = iota
	taskDone
	taskFailed
)

// finish marks a stolen task done and wakes its owner if the owner parked
// while waiting for it. After the store of state, the task's memory may be
// reused by the owner at once, so everything needed is read before it.
func (t *task) finish(s uint32) {
	owner := t.owner
	t.state.Store(s)
	if owner != nil && owner.parked.Load() {
		owner.sched.joinWake.NotifyAll()
	}
}

// Task is an intrusive unit of work for code that builds its own
// scheduling on the core (the parallel folds do): embed a Task in your own
// struct, set its function with Init, and Push it from a worker. Some
// participant of the same pool calls the function exactly once, on its own
// goroutine, with its own *Worker. Pushing allocates nothing.
//
// The core does not track a pushed Task's completion: the pusher must wait
// for whatever the task signals (see Completion) before its run ends, and
// a task's function must check Worker.Cancelled and return early when its
// run is cancelled, while still signalling completion.
type Task struct {
	st    spawnTask // first field: its header is the Task's header
	fn    func(w *Worker, t *Task)
	next  *Task       // link in a Batch
	panic *PanicError // of the last submitted run
}

// Init sets the function a pushed Task runs. A pushed Task may be pushed
// again once its function has started (by the function itself, say): from
// then on the core reads nothing of it. A submitted Task (Submit,
// SubmitBatch) is the core's until it is over, just after its function
// returns, because its memory holds the state of that submission's run:
// submitting or pushing it again before then is a misuse that the core
// does not detect. Pool.Close returns only once every submitted Task is
// over.
func (t *Task) Init(fn func(w *Worker, t *Task)) {
	if fn == nil {
		panic("forkjoin: Task.Init with a nil function")
	}
	t.fn = fn
	t.st.hdr.exec = execIntrusive
}

// execIntrusive runs a user's Task. The header is the first field of
// Task's first field, so the conversion is exact.
func execIntrusive(w *Worker, h *task) {
	t := (*Task)(taskPointer(h))
	t.fn(w, t)
}

// Push makes t available to the other participants of the pool (and to w
// itself, which runs it later if nobody takes it). t must have been
// initialised with Init.
func (w *Worker) Push(t *Task) {
	w.checkActive()
	if t == nil {
		panic("forkjoin: Push of a nil *Task")
	}
	if t.fn == nil {
		panic("forkjoin: Push of a Task without Init")
	}
	t.st.hdr.exec = execIntrusive
	t.st.hdr.after = nil
	t.st.hdr.run = w.run
	t.st.hdr.state.Store(taskPending)
	w.dq.push(&t.st.hdr)
	w.standing = false // a standing request is answered
	if w.armed {
		// Take the flag down now rather than at the next look, which
		// may be a long callback away: a thief that finishes this task
		// first finds the flag up and asks again.
		w.armed = false
		w.clearAsked()
		if w.run.cancelled.Load() {
			w.ask() // the cancellation's request is not ours to take
		}
	}
	w.sched.wakeCheck()
}

// Completion is a one-shot event a worker can wait for while helping with
// other work: Complete sets it, Worker.Wait returns once it is set. The
// zero value is an incomplete Completion; Reset makes it reusable.
type Completion struct {
	done   atomic.Uint32
	waiter atomic.Pointer[Worker]
	// Waiters from other pools than waiter's (rare) are listed in others,
	// by scheduler; multi says the list is not empty.
	multi  atomic.Bool
	mu     sync.Mutex
	others []*scheduler
}

// addWaiter records that w is about to wait for c, so that Complete wakes
// w's scheduler. The first waiter is kept in waiter; a waiter of another
// pool is added to others. Ordering: a waiter registers before it takes
// its EventCount token and looks at done; Complete stores done before it
// reads waiter and multi. So either Complete sees the registration and
// notifies (after the token, or before it: then the waiter's look at done
// sees it set), or the registration came after Complete's reads, and the
// waiter's look at done, later still, sees it set.
func (c *Completion) addWaiter(w *Worker) {
	if c.waiter.CompareAndSwap(nil, w) {
		return
	}
	first := c.waiter.Load()
	if first == nil || first.sched == w.sched {
		c.waiter.Store(w) // the same scheduler's joinWake either way
		return
	}
	c.mu.Lock()
	for _, s := range c.others {
		if s == w.sched {
			c.mu.Unlock()
			return
		}
	}
	c.others = append(c.others, w.sched)
	c.multi.Store(true)
	c.mu.Unlock()
}

// Complete sets c and wakes the participants parked in Wait(c).
func (c *Completion) Complete() {
	c.done.Store(1)
	if w := c.waiter.Load(); w != nil {
		// Not only when w is parked: waiter holds the last of several
		// waiters of its pool, and an earlier one may be parked while w
		// is not.
		w.sched.joinWake.NotifyAll()
	}
	if c.multi.Load() {
		c.mu.Lock()
		for _, s := range c.others {
			s.joinWake.NotifyAll()
		}
		c.mu.Unlock()
	}
}

// Done reports whether c is set.
func (c *Completion) Done() bool { return c.done.Load() != 0 }

// Reset clears c for reuse; nobody may be waiting on it.
func (c *Completion) Reset() {
	c.done.Store(0)
	c.waiter.Store(nil)
	if c.multi.Load() {
		c.mu.Lock()
		clear(c.others)
		c.others = c.others[:0]
		c.multi.Store(false)
		c.mu.Unlock()
	}
}

// WorkRequested reports whether another participant has asked this worker
// for work and is still waiting for it. Code that keeps its own pending
// work (the parallel folds keep unvisited children) calls it often — it is
// one load of the worker's own memory when nobody asked — and answers a
// true with a Push.
//
// A request stands until the worker publishes something: while no Push
// (or fork) has answered it, WorkRequested keeps returning true, so a
// caller that has nothing to give when asked gives the next thing it can.
// A request answered by nobody would otherwise be lost, and the
// participant that asked may have gone to sleep meanwhile: at the start of
// a run the pool's workers are asleep and wait for the first publication.
//
// If the worker's run has been cancelled, WorkRequested does not return:
// it unwinds the caller's frames with a panic that the nearest task
// boundary recovers (deferred clean-up runs; re-panic what you recover and
// do not recognise).
func (w *Worker) WorkRequested() bool {
	if !w.asked() {
		return false
	}
	return w.requested()
}

// RequestPending reports whether a request for work that WorkRequested
// reported is still unanswered: nothing has been published since (no Push,
// no fork made public). It only reads the worker's own state; it takes no
// new request and never unwinds.
//
// A standing request makes every later WorkRequested return true. Code
// whose answer to a true is a search for something to give (a walk scans
// its pending nodes) can use RequestPending after a search that found
// nothing: while it is true, searching again is useless until the code has
// new work of its own, and the request keeps standing meanwhile. Keep
// calling WorkRequested all the same: it is where a cancelled run unwinds.
func (w *Worker) RequestPending() bool { return w.standing }

// requested is WorkRequested's slow path. A new request is taken by the
// heartbeat, which clears the poll flag and publishes the oldest private fork if
// there is one (publishing clears standing). If nothing was published the
// request stands: the worker sets its own poll flag again (armed), so that
// every later look comes here, and reports true until a Push answers it.
// While it stands, a look costs a few loads and no atomic write: walks
// along a chain, with nothing to give, look at every node. Cancellation
// sets the poll flag too, so an armed look checks the run itself.
//
// The Push that answers the request takes the flag down at once (Push),
// not at the next look: a thief asks only while the flag is up, so a thief
// that took the pushed task and finished it before the owner's next look
// (which may be a long callback away in a walk) would otherwise find the
// flag down, not ask, and give up. So armed implies standing: Push and the
// heartbeat disarm.
//
//go:noinline
func (w *Worker) requested() bool {
	if w.armed {
		if w.run.cancelled.Load() {
			w.heartbeat() // unwinds
		}
		return true // standing
	}
	w.standing = true
	w.heartbeat()
	if !w.standing {
		return true // the oldest private fork answered it
	}
	w.armed = true
	w.ask()
	return true
}

// Cancel cancels the worker's run: no new task of it starts, and every
// participant unwinds at its next fork. cause, if not nil and the first
// failure of the run, is what Run re-panics with and RunCtx returns.
func (w *Worker) Cancel(cause error) {
	w.checkActive()
	w.run.cancel(cause)
}

// Abort cancels the run like Cancel and unwinds the calling task's frames
// at once, up to the nearest task boundary (deferred functions run). Use it
// to fail a run from deep inside a task.
func (w *Worker) Abort(cause error) {
	w.Cancel(cause)
	panic(unwinding{})
}

// RecordPanic records v, a value just recovered from a panic in this run,
// as the run's failure (with the stack of the calling goroutine, which in a
// deferred function still shows where the panic happened) and cancels the
// run. The core's own unwinding panics and nil are ignored. Code that must
// recover a panic to clean up before re-panicking calls it first, so that
// the failure is on record before the clean-up lets anyone see the run
// cancelled.
func (w *Worker) RecordPanic(v any) {
	w.checkActive()
	w.run.recovered(v)
}

// Local returns the value this participant keeps under key, calling create
// to make it on first use. It is storage private to one participant (no
// locking; only code running on this Worker may use the value), for
// scratch memory that layers above reuse from run to run: the parallel
// folds keep their walk stacks here. key must be comparable; use a pointer
// of your own, like a context key.
func (w *Worker) Local(key any, create func() any) any {
	for i := range w.locals {
		if w.locals[i].key == key {
			return w.locals[i].val
		}
	}
	v := create()
	w.locals = append(w.locals, local{key, v})
	return v
}

type local struct{ key, val any }

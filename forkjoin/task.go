package forkjoin

import (
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

// Task is an intrusive unit of work: embed a Task in your own struct, set
// its function with Init, and queue it on a pool with Submit or
// SubmitBatch, from any goroutine. Some participant of the pool calls the
// function exactly once, on its own goroutine, with its own *Worker.
// Submitting allocates nothing: the task lives in your memory.
//
// The core reports nothing back to the submitter, so wait for a submitted
// Task as you would for any goroutine's work (a channel, a
// sync.WaitGroup), or with the pool's Close, which returns only once every
// submitted Task is over. A panic in the function is kept (Panic).
type Task struct {
	st    spawnTask // first field: its header is the Task's header
	fn    func(w *Worker, t *Task)
	next  *Task       // link in a Batch
	panic *PanicError // of the last submitted run
}

// Init sets the function the Task runs. A submitted Task is the core's
// until it is over, just after its function returns, because its memory
// holds the state of that submission's run: submitting it again before
// then (from its own function, or on a signal that function sent) is a
// misuse that the core does not detect. Pool.Close returns only once every
// submitted Task is over.
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

// push is core.Push: it makes t available to the other participants of
// the pool (and to w itself, which runs it later if nobody takes it).
func (w *Worker) push(t *Task) {
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

// requestPending is core.RequestPending: a request for work stands.
func (w *Worker) requestPending() bool { return w.standing }

// requested is the slow path of core.Poll.WorkRequested, taken when the
// poll word (limit) is 0. A new request is taken by the
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

// recordPanic is core.RecordPanic: v, just recovered from a panic in this
// run, becomes the run's failure and cancels it.
func (w *Worker) recordPanic(v any) {
	w.checkActive()
	w.run.recovered(v)
}

// local is core.Local: per-participant storage, for scratch memory that
// the layers above reuse from run to run.
func (w *Worker) local(key any, create func() any) any {
	for i := range w.locals {
		if w.locals[i].key == key {
			return w.locals[i].val
		}
	}
	v := create()
	w.locals = append(w.locals, localValue{key, v})
	return v
}

type localValue struct{ key, val any }

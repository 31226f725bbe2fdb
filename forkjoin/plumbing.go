package forkjoin

// The operations on a Worker that the packages built on the core use
// (internal/walk, fold) and users do not call, registered with package
// internal/core: waiting on a Completion, the poll word and its slow path
// (requested), pushing an intrusive Task, recording a recovered panic, the
// run to cancel from another goroutine, and per-participant storage.

import (
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/internal/core"
)

func init() {
	core.Register(core.Worker[Worker]{
		Wait:           (*Worker).wait,
		PollWord:       func(w *Worker) *uintptr { return &w.limit },
		Requested:      (*Worker).requested,
		RequestPending: (*Worker).requestPending,
		RecordPanic:    (*Worker).recordPanic,
		RunOf:          func(w *Worker) core.RunControl { return w.run },
		Local:          (*Worker).local,
	}, (*Worker).push)
	core.RegisterRun(run)
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
	w.deque.Push(&t.st.hdr)
	w.standing = false // a standing request is answered
	if w.armed {
		// Take the flag down now rather than at the next look, which
		// may be a long callback away: a thief that finishes this task
		// first finds the flag up and asks again.
		w.armed = false
		w.clearAsked()
		if w.run.canceled.Load() {
			w.ask() // the cancellation's request is not ours to take
		}
	}
	w.sched.wakeCheck()
}

// requestPending is core.RequestPending: a request for work stands.
func (w *Worker) requestPending() bool { return w.standing }

// requested is the slow path of core.Poll.WorkRequested, taken when the
// poll word (limit) is 0. A new request is taken by
// answerRequest, which clears the poll flag and publishes the oldest private fork if
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
// flag down, not ask, and give up. So armed implies standing: Push and
// answerRequest disarm.
//
//go:noinline
func (w *Worker) requested() bool {
	if w.armed {
		if w.run.canceled.Load() {
			w.answerRequest() // unwinds
		}
		return true // standing
	}
	w.standing = true
	w.answerRequest()
	if !w.standing {
		return true // the oldest private fork answered it
	}
	w.armed = true
	w.ask()
	return true
}

// recordPanic is core.RecordPanic: v, just recovered from a panic in this
// run, becomes the run's failure and cancels it.
func (w *Worker) recordPanic(v any) {
	w.checkActive()
	w.run.recovered(v)
}

// Cancel is core.RunControl's: it cancels the run from any goroutine, as
// Worker.Cancel does from the run's own.
func (r *runState) Cancel(err error) { r.cancel(err) }

// CanceledFlag is core.RunControl's: the run's canceled flag (cancel sets it
// before it asks the participants).
func (r *runState) CanceledFlag() *atomic.Bool { return &r.canceled }

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

// releaseLocals calls Release on the local values that have one and drops
// them all (see core.Local); Close calls it once every task is over.
func (w *Worker) releaseLocals() {
	for _, l := range w.locals {
		if r, ok := l.val.(interface{ Release() }); ok {
			r.Release()
		}
	}
	w.locals = nil
}

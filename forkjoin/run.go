package forkjoin

// Runs: Run and RunCtx, the state that the participants of one run share
// (runState), its cancellation, and the root task on the caller's
// goroutine.
//
// A run fails once: the first failure (a panic, an error fn returned, a
// Cancel's cause, the context's error) is kept, and every later one is
// dropped. Canceling sets the run's canceled flag and asks every
// participant in use to take its slow path at its next fork, where it sees
// the flag and unwinds.

import (
	"context"
	"errors"
	"runtime/debug"
	"runtime/trace"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/pool"
)

// runState is what the participants of one run share: its context and
// whether it was canceled, and why.
type runState struct {
	canceled atomic.Bool
	failure  atomic.Pointer[error] // the first failure: panic, error or ctx.Err()
	ctx      context.Context
	sched    *scheduler
	// fam is the family of the spawned task this run is (family.go): the
	// tasks of which families the run's participants may run while they
	// wait, and the parent of a Scope made in the run. nil for a Run's.
	fam *family
}

// cancel cancels the run: no new task of it starts, and every participant
// takes its slow path at its next fork to notice. err, if not nil, is
// recorded as the run's failure if it is the first; nil cancels without
// recording one (the failure that made the caller cancel is recorded
// elsewhere, or there is none: a context done under a spawned task).
func (r *runState) cancel(err error) {
	if err != nil {
		r.failure.CompareAndSwap(nil, &err)
	}
	if r.canceled.Swap(true) {
		return
	}
	for _, w := range *r.sched.participants.Load() {
		if w.inUse.Load() {
			w.ask()
		}
	}
	// Participants parked while they help may wait for something the
	// cancellation changes (a Handle.Wait whose context is done).
	r.sched.joinWake.NotifyAll()
}

// recovered records a value recovered at a task boundary, unless it is the
// core's own unwinding sentinel.
func (r *runState) recovered(v any) {
	if v == nil {
		return
	}
	if _, ok := v.(unwinding); ok {
		return
	}
	r.cancel(newPanicError(v, debug.Stack()))
}

// err is the run's outcome: its first failure; else, if it was
// canceled, its context's error or ErrAborted; else nil.
func (r *runState) err() error {
	if p := r.failure.Load(); p != nil {
		return *p
	}
	if r.canceled.Load() {
		if r.ctx != nil && r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		return ErrAborted
	}
	return nil
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

// ErrAborted is what a run returns when it was canceled (Worker.Cancel or
// Worker.Abort with a nil cause) without any recorded failure.
var ErrAborted = errors.New("forkjoin: run aborted")

// goexitError is how a runtime.Goexit in a task is reported: a *PanicError
// of ErrGoexit with the stack of the goroutine that called it (a deferred
// call runs on top of it).
func goexitError() error { return newPanicError(ErrGoexit, debug.Stack()) }

// ErrGoexit is the Value of the *PanicError that reports a task which
// called runtime.Goexit (see dispatch.ErrGoexit): errors.As(err, &pe) &&
// pe.Value == ErrGoexit finds it. The goroutine that ran the task ends, as Goexit demands: a pool
// worker is replaced; a goroutine that helped run the task while it waited
// in Run, Join or Wait ends there, its own run failed with the same error.
var ErrGoexit = dispatch.ErrGoexit

// Run runs fn as the root task of a run on p, with the calling goroutine
// participating, and returns when fn and everything it forked have
// completed. A panic in any task cancels the run and is re-raised here as a
// *PanicError carrying the original value and stack.
//
// Any number of goroutines may call Run on one pool at the same time, and
// a task may call Run again (nesting): each caller participates in its own
// run and helps the others while it waits.
func Run(p *pool.Pool, fn func(w *Worker)) {
	if fn == nil {
		panic("forkjoin: Run with a nil function")
	}
	err := run(nil, p, "forkjoin.Run", func(w *Worker) error {
		fn(w)
		return nil
	})
	if err != nil {
		panic(err)
	}
}

// RunCtx is Run with a context and an error: once ctx is done, no new task
// of the run starts, running tasks finish, and RunCtx returns ctx.Err(). An
// error returned by fn, or a panic in any task (as a *PanicError), cancels
// the run and is returned. The first failure wins.
func RunCtx(ctx context.Context, p *pool.Pool, fn func(w *Worker) error) error {
	if ctx == nil {
		panic("forkjoin: RunCtx with a nil context")
	}
	if fn == nil {
		panic("forkjoin: RunCtx with a nil function")
	}
	return run(ctx, p, "forkjoin.RunCtx", fn)
}

// run runs fn as the root of a run on p, with ctx (nil for none), for the
// entry point name (observe.go).
func run(ctx context.Context, p *pool.Pool, name string, fn func(w *Worker) error) error {
	s := schedulerOf(p)
	if ctx == nil && !trace.IsEnabled() {
		return runOn(nil, s, fn) // nothing to observe: one load
	}
	return runObserved(ctx, s, name, fn)
}

// runObserved is run with a context, or while a trace is recorded: the
// run's context is observed if it carries labels or a trace is on, and its
// trace task ends with it.
func runObserved(ctx context.Context, s *scheduler, name string, fn func(w *Worker) error) error {
	ctx, task := observe(ctx, name, true)
	if task != nil {
		defer task.End()
	}
	return runOn(ctx, s, fn)
}

// runOn is run on a scheduler already found: Handle.Wait's, whose pool
// may have been closed since its task ended (then its look finds the task
// over at once). It is never inlined: Close looks for its frames
// (onRunStack).
//
// ctx, if observed (observe.go), is the caller's: its labels are taken as
// the calling goroutine's, and its region spans the caller's share.
//
//go:noinline
func runOn(ctx context.Context, s *scheduler, fn func(w *Worker) error) error {
	if ctx != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	s.layer.CountRun()
	r := &runState{ctx: ctx, sched: s}
	w := s.acquireCaller()
	w.run = r
	home, _ := ctx.(*observed)
	w.startCaller(home)
	if home != nil {
		defer endRegion(home.startRegion())
	}
	if s.maxWorkers > 0 {
		w.ask() // publish the first fork: it wakes a worker
	}
	if ctx != nil && ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { r.cancel(ctx.Err()) })
		defer stop()
	}
	if !w.runRoot(fn) {
		s.releaseCaller(w)
	}
	if err := r.err(); err != nil {
		return err
	}
	if ctx != nil {
		// The context may be done before its AfterFunc told the run (it
		// runs on a goroutine of its own): done before we returned means
		// canceled.
		return ctx.Err()
	}
	return nil
}

// runRoot runs the root function at a task boundary, then runs what is
// left in the caller's deque (pushed Tasks nobody took).
//
// A runtime.Goexit on the caller's goroutine, from fn or from a task it
// helped with, ends that goroutine: nothing after runRoot runs. The run
// fails with ErrGoexit (its forks elsewhere stop), and runRoot cleans up
// without running any task (see abandonExiting) and gives the caller's
// Worker back to the scheduler before the goroutine goes. It reports whether it did so (with GODEBUG=panicnil=1,
// a panic(nil) looks the same to recover, but returns).
func (w *Worker) runRoot(fn func(w *Worker) error) (released bool) {
	r := w.run
	func() {
		ok := false
		defer func() {
			if ok {
				return
			}
			v := recover()
			if v == nil { // runtime.Goexit
				r.cancel(goexitError())
				w.abandonExiting(0)
				if w.dirty || w.forkTop != 0 {
					w.resetSlabs()
				}
				w.sched.releaseCaller(w)
				released = true
				// Tasks pushed and not taken stay in w's deque, which
				// thieves and w's next user see (abandonExiting).
				w.sched.wakeCheckQuiet()
				return
			}
			r.recovered(v) // record and cancel first: abandon may wait for thieves
			w.abandon(0)
		}()
		if err := fn(w); err != nil {
			r.cancel(err)
		}
		if w.forkTop != 0 {
			panic(errUnjoined)
		}
		ok = true
	}()
	if !released {
		w.finishRoot()
	}
	return released
}

// finishRoot runs the tasks left in the caller's deque (pushed Tasks
// nobody took) and frees the fork slots the run left.
func (w *Worker) finishRoot() {
	for t := w.deque.Pop(); t != nil; t = w.deque.Pop() {
		w.execute(t)
	}
	if w.dirty || w.forkTop != 0 {
		w.resetSlabs()
	}
}

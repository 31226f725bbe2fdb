// Package core is what the packages built on the work-stealing core
// (internal/walk, fold) do with a forkjoin.Worker beyond what a user calls:
// push intrusive Tasks for other participants to take and wait for what
// they signal while helping (Push, Wait, Completion), look for requests for
// work at every node (Poll), record a panic recovered in a run
// (RecordPanic), cancel a run from any of its goroutines (RunOf), and keep
// scratch memory per participant (Local).
//
// Package forkjoin implements these on its Worker and registers them at
// init. The functions here are generic over the worker and task types, so
// this package never names forkjoin's (which would be an import cycle) and
// stays type-safe. Each is an indirect call, made on a cold or per-task
// path; the per-node look (Poll.WorkRequested) is an inlined atomic load of
// the worker's poll word, and calls through only when someone asked.
package core

import "sync/atomic"

// Worker holds forkjoin's implementation of the operations on a worker of
// type W (forkjoin.Worker). See the functions of the same names.
type Worker[W any] struct {
	Wait           func(w *W, c *Completion)
	PollWord       func(w *W) *uintptr
	Requested      func(w *W) bool
	RequestPending func(w *W) bool
	RecordPanic    func(w *W, v any)
	RunOf          func(w *W) RunControl
	Local          func(w *W, key any, create func() any) any
}

var (
	worker any // *Worker[W]
	push   any // func(w *W, t *T)
)

// Register is called once, by package forkjoin at init.
func Register[W, T any](ops Worker[W], pushTask func(w *W, t *T)) {
	if worker != nil {
		panic("core: Register called twice")
	}
	worker, push = &ops, pushTask
}

func ops[W any]() *Worker[W] { return worker.(*Worker[W]) }

// Push makes the intrusive task t (a forkjoin.Task initialised with Init)
// available to the other participants of w's pool, and to w itself, which
// runs it later if nobody takes it; some participant calls its function
// exactly once. Pushing allocates nothing. The core does not track a pushed
// task: the pusher waits (Wait) for what the task signals before its run
// ends, and the task checks Worker.Canceled and returns early when its run
// is canceled, still signalling. A pushed Task may be pushed again once
// its function has started: from then on the core reads nothing of it.
func Push[W, T any](w *W, t *T) { push.(func(*W, *T))(w, t) }

// Wait helps with other work until c is complete: it runs the Tasks w
// pushed that nobody took (also those with forks published on top of them
// since), then what others queued. It returns only then, even once the run
// is canceled: a pushed Task must signal whatever happens.
func Wait[W any](w *W, c *Completion) { ops[W]().Wait(w, c) }

// RecordPanic records v, a value just recovered from a panic in w's run,
// as the run's failure (with the stack of the calling goroutine, which in a
// deferred function still shows where the panic happened) and cancels the
// run. The core's own unwinding panics and nil are ignored. Code that must
// recover a panic to clean up before re-panicking calls it first, so that
// the failure is on record before the clean-up lets anyone see the run
// canceled.
func RecordPanic[W any](w *W, v any) { ops[W]().RecordPanic(w, v) }

// RunControl is a run of the core, which any goroutine may cancel while it
// lasts: Cancel(err) does what Worker.Cancel does on one of the run's
// participants (err, if not nil, becomes the run's failure if it is the
// first; every participant is told at its next look at its poll word),
// without the Worker, which belongs to its own goroutine. CanceledFlag
// returns the flag that is set, first, when the run is canceled: a load
// of it is the cheapest look at the run, for code that has no request to
// look for as well (a fold on a pool of parallelism 1).
type RunControl interface {
	Cancel(err error)
	CanceledFlag() *atomic.Bool
}

// RunOf returns the run w works on. Only w's goroutine may call it; the
// RunControl it returns may be handed to the run's callbacks on other
// participants (a walk's Ops keeps it, so that a callback can stop the
// walk at once wherever it runs).
func RunOf[W any](w *W) RunControl { return ops[W]().RunOf(w) }

// Local returns the value w's participant keeps under key, calling create
// to make it on first use: storage private to one participant (no locking;
// only code running on that participant may use the value), for scratch
// memory reused from run to run. key must be comparable; use a pointer of
// your own, like a context key. A value with a Release() method has it
// called when the participant's pool is closed, once every task is over,
// on the goroutine that closes it: the place to hand the scratch memory to
// a later pool.
func Local[W any](w *W, key any, create func() any) any { return ops[W]().Local(w, key, create) }

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
// calling WorkRequested all the same: it is where a canceled run unwinds.
func RequestPending[W any](w *W) bool { return ops[W]().RequestPending(w) }

// Poll is the look at a worker's poll word that code keeping its own
// pending work (a walk keeps unvisited children) makes at every node. Take
// it once per task with PollOf; WorkRequested is then one atomic load when
// nobody asked, and a call through a function pointer it holds (no lookup)
// while a request stands, which on a chain of single children is at every
// node.
type Poll[W any] struct {
	word *uintptr // the worker's poll word: 0 when it is asked
	w    *W
	slow func(w *W) bool // the worker's Requested
}

// PollOf returns w's Poll.
func PollOf[W any](w *W) Poll[W] {
	o := ops[W]()
	return Poll[W]{word: o.PollWord(w), w: w, slow: o.Requested}
}

// Word returns the poll word WorkRequested looks at first: a caller whose
// WorkRequested is not inlined (a generic function's, on its shape) can
// make that load itself and call WorkRequested only when it reads 0.
func (p Poll[W]) Word() *uintptr { return p.word }

// WorkRequested reports whether another participant has asked the worker
// for work and is still waiting for it; the answer to a true is a Push.
//
// A request stands until the worker publishes something: while no Push
// (or fork) has answered it, WorkRequested keeps returning true, so a
// caller that has nothing to give when asked gives the next thing it can.
// A request answered by nobody would otherwise be lost, and the
// participant that asked may have gone to sleep meanwhile: at the start of
// a run the pool's workers are asleep and wait for the first publication.
//
// If the worker's run has been canceled, WorkRequested does not return:
// it unwinds the caller's frames with a panic that the nearest task
// boundary recovers (deferred clean-up runs; re-panic what you recover and
// do not recognise).
func (p Poll[W]) WorkRequested() bool {
	if atomic.LoadUintptr(p.word) != 0 {
		return false
	}
	return p.slow(p.w)
}

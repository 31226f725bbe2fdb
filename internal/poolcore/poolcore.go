// Package poolcore is what the layers built on a pool (the work-stealing
// core in package forkjoin) do with its workers, beyond what a user calls:
// run a dispatch.Job on them, pin a job for a long time, wake one more
// worker, count a run, keep per-pool state on the pool.
//
// Package pool implements Pool and registers it at init; a layer reaches
// it with Of. Every call here is on a cold or per-run path (a run's start,
// a wake-up decision), so the indirection costs nothing that matters.
package poolcore

import "github.com/forkjoin-go/forkjoin/internal/dispatch"

// Pool is the layers' view of a pool of type P (*pool.Pool).
type Pool[P any] interface {
	// Dispatch runs job on the pool's workers while the calling goroutine
	// runs body: it publishes job, starts or wakes every worker, runs body,
	// then seals the job and waits until no worker is inside it (see
	// package dispatch). When it returns, no worker touches job or its
	// data. Each worker calls job.Call at most once per wake-up, possibly
	// not at all. Dispatches on one pool take turns. A panic in body, or in
	// a worker's call (as a *dispatch.PanicError), is re-raised after the
	// latch. Dispatch panics on a closed pool, or while a job is pinned.
	Dispatch(job *dispatch.Job, body func())

	// Pin publishes job for a layer that runs its own scheduler on the
	// workers until Unpin: workers enter it whenever they are woken
	// (WakeOne) and leave it when it returns. It waits for a Dispatch in
	// progress to end, and panics on a closed pool.
	Pin(job *dispatch.Job)

	// Unpin seals and latches the pinned job; when it returns no worker is
	// inside it.
	Unpin()

	// LIFOSlot reports whether the pool was made with pool.WithLIFOSlot:
	// whether the work-stealing core puts a spawned task in its
	// participant's LIFO slot. It never changes.
	LIFOSlot() bool

	// CountRun records that a run began (for the pool's Stats, and for
	// retrying failed worker starts). A layer that runs work on a pinned
	// job calls it once per run.
	CountRun()

	// WakeOne makes one more worker enter the published job: it wakes a
	// parked worker or, if none is parked and fewer than n-1 are running,
	// starts one. It reports whether some worker will enter the job as a
	// result (false only when no worker is running and none could be
	// started).
	WakeOne() bool

	// Attach returns the attachment stored under key, creating it with
	// create on first use; the lookup is lock-free. While the pool's Close
	// runs, existing attachments are still found (their Close may run work
	// that looks them up) but no new one is created: Attach panics, as it
	// does on a closed pool.
	Attach(key any, create func(p *P) Attachment) Attachment
}

// Attachment is per-pool state that a layer keeps on the pool (the
// work-stealing core keeps its scheduler). The pool's Close calls each
// attachment's Close, in reverse order of attachment, before it stops the
// workers. An attachment that also has a method AddStats(*pool.Stats) adds
// its counters to every snapshot the pool's Stats takes.
type Attachment interface {
	// Close finishes the layer's work on the pool; when it returns the
	// layer no longer needs the workers.
	Close()
}

// of holds the func(*P) Pool[P] that package pool registered.
var of any

// Register is called once, by package pool at init, with the function that
// gives a pool's layer view.
func Register[P any](f func(p *P) Pool[P]) {
	if of != nil {
		panic("poolcore: Register called twice")
	}
	of = f
}

// Of returns the layers' view of p. p must not be nil.
func Of[P any](p *P) Pool[P] {
	return of.(func(*P) Pool[P])(p)
}

package dispatch

// The dispatch lifecycle.
//
// A Dispatcher connects one caller's Job with a set of worker goroutines:
//
//	caller (Dispatch)                      worker (Serve)
//	─────────────────                      ──────────────
//	1. publish: job.Store(j)               a. inJob++          ← counted in
//	   (the pool then wakes workers)       b. j := job.Load()
//	2. body(): the caller works too        c. if j != nil: j.Call(j.Data, w)
//	3. seal:  job.Store(nil)               d. inJob--          ← counted out
//	4. latch: wait until inJob == 0
//	5. return: j and j.Data may be reused
//
// Invariant: after step 4, no worker holds j or anything reachable from
// j.Data that it obtained through this dispatch.
//
// Why it holds: a worker touches j only between (b) and (d). It increments
// inJob at (a) before it loads the pointer at (b). All of these are
// sequentially consistent atomics (Go's sync/atomic), so they are totally
// ordered. Take any worker that loaded j (not nil) at (b): its (b) comes
// before the seal (3), otherwise it would have loaded nil; its (a) comes
// before its (b); so inJob already counted it when the caller, after (3),
// reads inJob at (4). The latch therefore waits for that worker's (d),
// which follows its last use of j. A worker whose (a) comes after the seal
// loads nil and touches nothing. Hence the order "count in, then load" is
// the whole trick: loading first would leave a window between the load and
// the increment in which the latch sees zero and the caller recycles j
// under the worker's feet.
//
// The latch spins for a moment (most jobs return within nanoseconds of the
// seal when the body has finished the work), then parks the caller on an
// EventCount that the last worker to count out notifies. It never gives up:
// a job may legitimately run for minutes.
//
// Dispatches on one Dispatcher take turns: a Dispatch that arrives while
// another is between publish and latch waits for it. A layer that owns the
// workers for a long time (the work-stealing core keeps its scheduler
// published from first use until the pool closes) uses Pin and Unpin
// instead; a Dispatch of another job while one is pinned panics with a
// clear message rather than waiting forever.

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
)

// Dispatcher publishes one Job at a time to the workers that call Serve.
// The zero value is ready to use. A Dispatcher must not be copied.
type Dispatcher struct {
	job atomic.Pointer[Job]
	_   cacheline.Pad
	// inJob counts the workers between "counted in" and "counted out". It is
	// written by every worker on every Serve, so it has a line of its own.
	inJob atomic.Int64
	_     cacheline.Pad

	latching atomic.Bool // a caller is (or is about to be) waiting on the latch
	latch    EventCount  // notified by the last worker to count out while latching

	// The turn: busy from publish to the end of the latch. A condition
	// variable rather than a mutex, so that a Dispatch waiting for its turn
	// can notice that the turn went to a Pin (which lasts until Unpin, for
	// a pool until Close) and fail instead of waiting for ever.
	turnMu   sync.Mutex
	turnCond sync.Cond
	busy     bool
	pinned   atomic.Pointer[Job]
	// lastPinned is the job of the last Pin until the next Dispatch: a
	// worker's call of it may still be running after Unpin has cleared
	// pinned (up to Unpin's latch), and a Goexit there is the pinning
	// layer's to report (recoverCall).
	lastPinned atomic.Pointer[Job]

	panicked atomic.Pointer[Recovered] // first panic of a worker's Call in this dispatch
}

// latchSpins is how many times the latch re-reads inJob before parking.
const latchSpins = 256

// Dispatch runs the lifecycle: it publishes job, runs body on the calling
// goroutine, seals, and waits until no worker is inside job. wake is called
// right after publishing so that the owner of the workers can rouse them; it
// may be nil.
//
// If a worker's call of job panics, the panic is recovered on the worker and
// re-raised here, after the latch, as a *Recovered; a call that ends in
// runtime.Goexit is re-raised as a *Recovered of ErrGoexit. If body panics, the
// dispatch is still sealed and latched before the panic continues.
func (d *Dispatcher) Dispatch(job *Job, wake func(), body func()) {
	if job == nil || job.Call == nil {
		panic("dispatch: Dispatch of a nil Job or a Job with a nil Call")
	}
	d.takeTurn(false)
	d.lastPinned.Store(nil) // every call of it ended in Unpin's latch
	d.publish(job)
	returned := false
	defer d.finish(&returned)
	if wake != nil {
		wake()
	}
	if body != nil {
		body()
	}
	returned = true
}

// Pin publishes job until Unpin, for a layer that runs its own scheduler on
// the workers for a long time. It waits for a Dispatch in progress to end.
func (d *Dispatcher) Pin(job *Job) {
	if job == nil || job.Call == nil {
		panic("dispatch: Pin of a nil Job or a Job with a nil Call")
	}
	d.takeTurn(true)
	d.pinned.Store(job)
	d.lastPinned.Store(job)
	d.turnCond.Broadcast() // Dispatches waiting for the turn: it is pinned now
	d.turnMu.Unlock()
	d.publish(job)
}

// takeTurn waits until no Dispatch or Pin holds the turn and takes it. A
// Dispatch (pin false) panics if the turn is or becomes pinned. For a Pin
// it returns with turnMu held, so that the pin is set before anyone looks.
func (d *Dispatcher) takeTurn(pin bool) {
	d.turnMu.Lock()
	if d.turnCond.L == nil {
		d.turnCond.L = &d.turnMu
	}
	for {
		if p := d.pinned.Load(); p != nil && !pin {
			d.turnMu.Unlock()
			panic(fmt.Sprintf("dispatch: Dispatch while job %p is pinned; pinned jobs are released only by Unpin (for a pool: by Close)", p))
		}
		if !d.busy {
			break
		}
		d.turnCond.Wait()
	}
	d.busy = true
	if !pin {
		d.turnMu.Unlock()
	}
}

func (d *Dispatcher) releaseTurn() {
	d.turnMu.Lock()
	d.busy = false
	if d.turnCond.L != nil {
		d.turnCond.Broadcast()
	}
	d.turnMu.Unlock()
}

// Unpin seals and latches the pinned job: when it returns, no worker is
// inside the job any more. It panics if no job is pinned. A panic recovered
// from a worker's call of the pinned job is re-raised here.
func (d *Dispatcher) Unpin() {
	if d.pinned.Load() == nil {
		panic("dispatch: Unpin without Pin")
	}
	d.pinned.Store(nil)
	d.finish(nil)
}

// Pinned reports the pinned job, or nil.
func (d *Dispatcher) Pinned() *Job { return d.pinned.Load() }

func (d *Dispatcher) publish(job *Job) {
	d.panicked.Store(nil)
	d.job.Store(job)
}

// finish seals, latches and releases the turn; then re-raises a worker's
// panic. Dispatch defers it with returned, which says whether the body
// returned (Unpin calls it with nil): while the body is panicking, or ends
// its goroutine with runtime.Goexit, the body wins and the worker's panic
// (if any) is dropped. (A panic raised during a Goexit would turn it into
// a crash of the program.)
func (d *Dispatcher) finish(returned *bool) {
	d.job.Store(nil) // seal
	d.waitLatch()
	p := d.panicked.Swap(nil)
	d.releaseTurn()
	if p == nil {
		return
	}
	if returned != nil && !*returned {
		if r := recover(); r != nil {
			panic(r) // the body's panic
		}
		return // the body's Goexit goes on
	}
	panic(p)
}

func (d *Dispatcher) waitLatch() {
	for i := 0; i < latchSpins; i++ {
		if d.inJob.Load() == 0 {
			return
		}
		if i%32 == 31 {
			runtime.Gosched()
		}
	}
	d.latching.Store(true)
	for {
		tok := d.latch.Prepare()
		if d.inJob.Load() == 0 {
			break
		}
		d.latch.Wait(tok)
	}
	d.latching.Store(false)
}

// Serve is the worker's side: count in, load the job, call it if one is
// published, count out. It reports whether a job was called. A panic in the
// job's call is recovered and kept for the dispatching caller, and so is a
// runtime.Goexit (as ErrGoexit), which goes on to end the calling goroutine.
func (d *Dispatcher) Serve(worker int) (served bool) {
	d.inJob.Add(1) // count in BEFORE loading the pointer: see the file comment
	defer d.countOut()
	job := d.job.Load()
	if job == nil {
		return false
	}
	defer d.recoverCall(job, &served)
	job.Call(job.Data, worker)
	return true
}

// recoverCall keeps a panic out of a worker's call of job for the caller;
// so is a runtime.Goexit (the call neither returned nor panicked), as a
// *Recovered of ErrGoexit, except in a pinned job: the layer that pinned
// it reports a Goexit in its own work to whoever waits for that work.
func (d *Dispatcher) recoverCall(job *Job, returned *bool) {
	r := recover()
	if r == nil {
		if *returned || d.lastPinned.Load() == job {
			return
		}
		r = ErrGoexit
	}
	d.panicked.CompareAndSwap(nil, NewRecovered(r, debug.Stack()))
}

func (d *Dispatcher) countOut() {
	if d.inJob.Add(-1) == 0 && d.latching.Load() {
		d.latch.NotifyAll()
	}
}

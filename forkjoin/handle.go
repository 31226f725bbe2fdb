package forkjoin

// Handle: a task spawned on its own, and the typed result its caller
// collects.
//
// Spawn makes a Handle, whose spawnTask carries the task through the
// queues; the task's end (Handle.over, on the participant that ran it)
// stores the result, then completes done, then closes the channel Done
// returned if there is one. Join helps run the pool's tasks until done is
// complete; Wait with a context that can be done parks on the channel
// instead, since a helper cannot leave the task it runs when the context
// ends. The result is read only after done is seen complete, and written
// only before it is completed, so the reader sees the writer's values.

import (
	"context"
	"sync"

	"github.com/forkjoin-go/forkjoin/internal/core"
	"github.com/forkjoin-go/forkjoin/pool"
)

// Handle is the result of a spawned task, to be collected with Join or
// Wait, or watched with Done.
type Handle[T any] struct {
	st   spawnTask // first field
	fam  family    // the task's family: what Join may run while it waits (family.go)
	fn   func(w *Worker) (T, error)
	val  T // the result: written before done is completed
	err  error
	done core.Completion
	mu   sync.Mutex    // guards ch, and orders its close after done
	ch   chan struct{} // Done's channel, made by the first Done
}

// Spawn runs fn as a task of its own on p's workers and returns at once
// with a handle to its result. It may be called from any goroutine. A panic
// in fn becomes the handle's error (a *PanicError with the value and
// stack); it never takes down a worker or the pool. Pool.Close (and the
// end of pool.With) waits for every spawned task, including the tasks
// they spawn. Spawning from another goroutine while Close runs is a race
// the pool settles: a task spawned while Close still waits for tasks
// runs, and a Spawn that comes once Close has seen them all over panics
// (the pool is closed) rather than return a handle to a task that would
// never run. The same holds for Submit and SubmitBatch.
func Spawn[T any](p *pool.Pool, fn func(w *Worker) (T, error), opts ...SpawnOption) *Handle[T] {
	if fn == nil {
		panic("forkjoin: Spawn with a nil function")
	}
	s := schedulerOf(p)
	c := spawnOptions(opts)
	h := &Handle[T]{fn: fn}
	h.fam.init(familyIn(c.ctx, s))
	ctx, _ := observe(c.ctx, "forkjoin.Spawn", false) // observe.go
	h.st.init(s, c.prio, &h.fam, ctx, h)
	s.submit(&h.st)
	return h
}

// run is the Handle's spawnBody: it runs fn and keeps its result.
func (h *Handle[T]) run(w *Worker) { h.val, h.err = h.fn(w) }

// over ends the Handle's task: a failure of its run (err: a panic, its
// context's error, a Cancel's cause) replaces what fn returned; then the
// Handle is completed.
func (h *Handle[T]) over(_ *Worker, err error) {
	if err != nil {
		var zero T
		h.val, h.err = zero, err
	}
	h.fn = nil
	h.mu.Lock()
	h.done.Complete()
	if h.ch != nil {
		close(h.ch)
	}
	h.mu.Unlock()
}

// Done returns a channel closed when the task is over. Waiting on it does
// not run tasks: on a pool whose workers could not start (or of
// parallelism 1), a task runs only when some goroutine Joins, Waits, runs
// work on the pool or closes it.
func (h *Handle[T]) Done() <-chan struct{} {
	h.check()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ch == nil {
		h.ch = make(chan struct{})
		if h.done.Done() {
			close(h.ch)
		}
	}
	return h.ch
}

// Join waits for the task and returns its result: fn's value and error, or
// a *PanicError if fn panicked, or the context's error if the task was
// skipped (its context done before it started) or unwound by its forks
// when its context was done. While it waits, the calling goroutine helps
// run the pool's tasks (so Join works even on a pool whose workers could
// not start).
func (h *Handle[T]) Join() (T, error) {
	return h.Wait(context.Background())
}

// Wait is Join with a context: it returns ctx.Err() as soon as ctx is
// done, if the task is not over by then (the task itself goes on; Join or
// Wait again collects its result). With a context that can be done, Wait
// does not run tasks while it waits, since it could not leave one when ctx
// ends: it parks until the task is over or ctx is done. So on a pool whose
// workers could not start (or of parallelism 1) the task runs only when
// some goroutine Joins, runs work on the pool or closes it, as for Done. A
// context that is never done (context.Background) makes Wait a Join.
func (h *Handle[T]) Wait(ctx context.Context) (T, error) {
	h.check()
	if ctx == nil {
		panic("forkjoin: Handle.Wait with a nil context")
	}
	if !h.done.Done() {
		if ctx.Done() != nil {
			return h.park(ctx)
		}
		if testHookBeforeHelp != nil {
			testHookBeforeHelp()
		}
		// On the task's scheduler, not through its pool: if the task ends
		// now and Close runs to its end before the line below, the pool
		// is closed, and helping must find the task over, not panic.
		runOn(nil, h.st.rs.sched, func(w *Worker) error {
			w.waitFam(&h.done, &h.fam) // its task, if nobody took it yet
			return nil
		})
	}
	return h.val, h.err
}

// park is Wait with a context that can be done: it waits, running
// nothing, for the task's end or ctx's, and prefers the task's result when
// both are there.
func (h *Handle[T]) park(ctx context.Context) (T, error) {
	select {
	case <-h.Done():
	case <-ctx.Done():
		if !h.done.Done() {
			var zero T
			return zero, ctx.Err()
		}
	}
	return h.val, h.err
}

// check panics on a nil Handle with a message that says so.
func (h *Handle[T]) check() {
	if h == nil {
		panic("forkjoin: Join, Wait or Done on a nil *Handle")
	}
}

// testHookBeforeHelp, if set (by tests only), runs in Handle.Wait between
// its look at the handle and its helping.
var testHookBeforeHelp func()

package forkjoin

// Scope and Spawner: tasks spawned into a scope that waits for them all.
//
// A Scope's pending counter counts its function and its tasks not yet over
// (plus slack, slack.go); it starts at one for the function. Spawn counts
// a task in before it queues it, and a task's end counts it out, so the
// counter reaches zero only once the function has returned and every task
// spawned in the scope, transitively, is over. The counter's last add
// completes done, on which the Scope's caller waits, helping meanwhile.
//
// The first failure (a panic of the function or of a task, a context's
// error that made a task stop short) is recorded once; from then on the
// tasks not yet started are skipped (scopeTask.run), and the Scope still
// waits for every task before it returns or re-panics, so that no task of
// it runs after it is over.

import (
	"context"
	"runtime/debug"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
	"github.com/forkjoin-go/forkjoin/internal/core"
)

// Spawner spawns the tasks of a Scope.
type Spawner struct {
	fam     family // the scope's family (family.go); fam.scope is the Spawner itself
	sched   *scheduler
	ctx     context.Context
	ctxDone bool // ctx can be done
	// group: a Group's Spawner, whose tasks wait in the group lane
	// (grouplane.go), not in the participants' queues, and all run, even
	// after a failure, as errgroup's do.
	group bool
	// limit holds a token for each of a Group's tasks not yet over, up to
	// the limit SetLimit set; nil for no limit.
	limit chan struct{}
	_     cacheline.Pad
	// pending counts the Scope's function and its tasks not yet over,
	// plus the slack participants hold on it (slack.go). The add that
	// brings it to zero is the last: sequentially consistent, it follows
	// every task's over, so the Scope's caller, which loads done after it,
	// sees every task's effects.
	pending atomic.Int64
	_       cacheline.Pad
	done    core.Completion       // completed when pending reaches zero
	failure atomic.Pointer[error] // the first failure
	failed  atomic.Bool           // failure is set: tasks not started are skipped
	// cancel, if not nil (a Group's), cancels the context of the tasks
	// with the first failure as its cause.
	cancel context.CancelCauseFunc
	lane   laneQueue // a Group's tasks not yet taken (grouplane.go)
}

// Scope runs fn, which spawns tasks with the Spawner it receives, and
// returns when fn and every task spawned in the scope (by fn or by those
// tasks, transitively) have finished; meanwhile the calling goroutine
// helps. If a task or fn itself panics, the scope's tasks that have not
// started are skipped, and Scope re-panics with the first panic (a
// *PanicError) once everything is over: even then, no task of the scope
// runs after Scope has returned.
func Scope(w *Worker, fn func(s *Spawner)) {
	if err := ScopeCtx(w.Context(), w, fn); err != nil {
		panic(err)
	}
}

// ScopeCtx is Scope with a context: tasks of the scope not yet started when
// ctx is done are skipped, running ones see ctx through their Worker. It
// returns the first failure: a task's or fn's panic (*PanicError), or
// ctx.Err() if ctx made a task stop short (skipped, or unwound by its
// canceled forks). Unlike RunCtx, it returns nil when every task ran to
// its end, even if ctx was done by then: as errgroup's Wait, it reports
// what went wrong, not the state of ctx. For tasks that return errors and
// a context canceled at the first failure, use a Group.
func ScopeCtx(ctx context.Context, w *Worker, fn func(s *Spawner)) error {
	w.checkCaller()
	if ctx == nil {
		panic("forkjoin: ScopeCtx with a nil context")
	}
	if fn == nil {
		panic("forkjoin: Scope with a nil function")
	}
	// The scope's tasks carry ctx's labels, or the run's (observe.go).
	sp := &Spawner{sched: w.sched, ctx: observeIn(ctx, w.run.ctx), ctxDone: ctx.Done() != nil}
	sp.fam.init(familyOf(w))
	sp.fam.scope = sp
	sp.pending.Add(1) // fn itself
	unwind := sp.runFunction(fn)
	w.waitFam(&sp.done, &sp.fam)
	if unwind {
		panic(unwinding{})
	}
	return sp.err()
}

// runFunction runs fn, the Scope's own function, and counts it out. If fn
// panics, or its run is canceled under it, the scope fails as for a
// panicking task (its tasks not yet started are skipped) and the caller
// still waits for the others. It reports whether fn was unwound by the
// core's cancellation, which the caller goes on with once the scope is
// over.
func (sp *Spawner) runFunction(fn func(s *Spawner)) (unwind bool) {
	ok := false
	defer func() {
		if !ok {
			switch v := recover(); v.(type) {
			case unwinding:
				unwind = true
				sp.recordFailure(ErrAborted)
			case nil:
				// runtime.Goexit, which goes on unwinding past the
				// caller's wait: the tasks not started are skipped.
				sp.recordFailure(goexitError())
			default:
				sp.recordFailure(newPanicError(v, debug.Stack()))
			}
		}
		sp.release(1)
	}()
	fn(sp)
	ok = true
	return false
}

// err is the scope's first failure, or nil.
func (sp *Spawner) err() error {
	if p := sp.failure.Load(); p != nil {
		return *p
	}
	return nil
}

// release counts n out of pending; the last one completes the Scope.
func (sp *Spawner) release(n int64) {
	if sp.pending.Add(-n) == 0 {
		sp.done.Complete()
	}
}

// recordFailure records err as the scope's failure if it is the first,
// after which the tasks not yet started are skipped, and cancels a
// Group's context with it.
func (sp *Spawner) recordFailure(err error) {
	sp.failure.CompareAndSwap(nil, &err)
	sp.failed.Store(true)
	if sp.cancel != nil {
		sp.cancel(err)
	}
}

// Spawn queues fn as a task of the scope on w, the Worker of the calling
// task (fn of Scope, or a task of the scope), from where other participants
// may take it.
func (sp *Spawner) Spawn(w *Worker, fn func(w *Worker), opts ...SpawnOption) {
	w.checkCaller()
	if fn == nil {
		panic("forkjoin: Spawner.Spawn with a nil function")
	}
	if w.sched != sp.sched {
		panic("forkjoin: Spawner.Spawn with a Worker of another pool")
	}
	if sp.done.Done() {
		panic("forkjoin: Spawner.Spawn after its Scope returned")
	}
	t := w.getScopeTask() // its constant fields set (scopeTask)
	if t == nil {
		// Never: getScopeTask always returns a task. The test is for the
		// compiler: without it, the first pointer store into t (which
		// needs a write barrier branch) is preceded by a nil check that
		// loads t's first line, the line a spawn otherwise leaves alone
		// (scopeTask). A test of the register costs nothing; that load
		// would be a miss on a cold task.
		panic("forkjoin: no scope task")
	}
	prio := Normal // kept in a local, not read back from t
	if len(opts) == 0 {
		t.st.prio, t.st.ctxDone = Normal, sp.ctxDone
		t.st.rs.ctx = sp.ctx
	} else {
		c := spawnOptionsSlow(opts)
		c.prio.check()
		ctx, ctxDone := sp.ctx, sp.ctxDone
		if c.ctx != nil {
			ctx, ctxDone = observeIn(c.ctx, sp.ctx), c.ctx.Done() != nil
		}
		prio = c.prio
		t.st.prio, t.st.ctxDone = prio, ctxDone
		t.st.rs.ctx = ctx
	}
	t.fn = fn
	t.st.rs.fam = &sp.fam
	if w.beat.Load() != 0 {
		w.beat.Store(0) // it moves on (compensate.go)
	}
	// Counted in before it is queued (slack.go), in both pending counters
	// and in the statistics: countLocal's rule for k = 1, written out for
	// each counter. This is the hottest path of spawning, and a helper
	// shared by both counters would add a test, or a nil check of the
	// scheduler, to every spawn.
	w.useScope(sp)
	l, s := &w.spawnState, sp.sched
	if l.scopeSlack > 0 {
		l.scopeSlack--
	} else {
		sp.pending.Add(spawnReserve)
		l.scopeSlack = spawnReserve - 1
	}
	if l.schedSlack > 0 {
		l.schedSlack--
	} else {
		s.pending.Add(spawnReserve)
		l.schedSlack = spawnReserve - 1
	}
	w.countScopeTask(0, prio)
	if l.scopeSlack == 0 || l.schedSlack == 0 {
		w.publishCounts() // no slack left to keep the counters up
	}
	if prio == Normal && s.lifo {
		w.putSlot(&t.st.hdr) // lifo.go
	} else {
		w.queues[prio].Push(&t.st.hdr, true) // pooled: see scopeTask.over
	}
	s.wakeForNew()
}

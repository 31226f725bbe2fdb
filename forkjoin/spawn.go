package forkjoin

// Spawned tasks: the part every kind shares, and how one runs.
//
// A spawned task runs on its own, not joined by the code that made it: a
// Handle's task (handle.go), a Scope's or Group's task (scope.go,
// scopetask.go), a Graph's node (graphrun.go) and a submitted Task
// (submit.go). Each embeds a spawnTask, whose header the queues carry;
// execSpawn runs it at a task boundary and afterSpawn reports its end to
// its kind (spawnBody.over) and counts it out (slack.go).
//
// A spawned task has a run of its own (runState): its forks, its context,
// its failure. Its context is checked when it starts, so a task whose
// context is done never runs; once it runs, its context being done cancels
// its run, which stops its forks, but a task that returns all the same is
// over with what it returned.

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// spawnTask is the part every spawned task shares (a Handle's, a scope
// task's, a graph node's, a submitted Task's): the deque header, the task's
// own run (its forks, its context, its panic), its priority and what to do
// when it is over.
type spawnTask struct {
	hdr  task // first field
	rs   runState
	prio Priority
	// ctxDone: rs.ctx can be done (its Done channel is not nil); a context
	// that never is needs no check when the task starts.
	ctxDone bool
	// returned: the task's function returned (set by execSpawn for
	// afterSpawn, on the same participant).
	returned bool
	body     spawnBody
}

// scopeOf returns the Spawner of a scope task (a Scope's or a Group's),
// nil for any other spawned task.
func (st *spawnTask) scopeOf() *Spawner {
	if st.rs.fam == nil {
		return nil
	}
	return st.rs.fam.scope
}

// spawnBody is what a kind of spawned task does: run it, then learn how it
// ended (err is the task's panic as a *PanicError, or its context's error
// if it never ran, or nil).
type spawnBody interface {
	run(w *Worker)
	over(w *Worker, err error)
}

// init prepares st to be queued: a task of s at priority prio, of the
// family fam (family.go; nil for none), with the context ctx (nil for
// none) and body as its kind.
func (st *spawnTask) init(s *scheduler, prio Priority, fam *family, ctx context.Context, body spawnBody) {
	st.initDone(s, prio, fam, ctx, ctx != nil && ctx.Done() != nil, body)
}

// initDone is init with ctxDone computed by the caller (a Graph computes it
// once for all its nodes). The header's state and thief are left alone:
// they serve joins of forks, and nobody joins a spawned task through them.
func (st *spawnTask) initDone(s *scheduler, prio Priority, fam *family, ctx context.Context, ctxDone bool, body spawnBody) {
	prio.check()
	st.hdr.exec = execSpawn
	st.hdr.after = afterSpawn
	st.hdr.run = &st.rs
	st.rs = runState{ctx: ctx, sched: s, fam: fam}
	st.prio = prio
	st.ctxDone = ctxDone
	st.body = body
}

// execSpawn runs a spawned task at a task boundary (Worker.execute).
func execSpawn(w *Worker, h *task) {
	st := (*spawnTask)(taskPointer(h))
	st.returned = false
	if st.ctxDone {
		ctx := st.rs.ctx
		if err := ctx.Err(); err != nil {
			st.rs.cancel(err) // never started: afterSpawn reports ctx.Err()
			return
		}
		// Once the task runs, its context being done cancels the task's
		// run, which stops its forks (they unwind it), but records no
		// failure: a task that returns all the same is over with what it
		// returned (see afterSpawn).
		defer stopWhenDone(ctx, &st.rs)()
	}
	// Task time feeds the injector interval (priority.go). A clock read
	// costs tens of nanoseconds on a virtual machine, so one task in 64 is
	// timed. (A task that panics is not sampled.)
	if w.timeTick++; w.timeTick%64 != 0 {
		st.body.run(w)
		st.returned = true
		return
	}
	start := time.Now()
	st.body.run(w)
	st.returned = true
	w.noteTaskTime(time.Since(start))
}

// stopWhenDone cancels r, without a failure, when ctx is done, until the
// function it returns is called. That function returns only once nothing
// can touch r any more: if the cancellation has started (on the goroutine
// context.AfterFunc starts), it waits for it to end. r lives in a spawned
// task, which may be reused for another task as soon as this one is over
// (a Scope's tasks are): a late cancellation would stop that other task.
func stopWhenDone(ctx context.Context, r *runState) func() {
	var over atomic.Bool
	stop := context.AfterFunc(ctx, func() {
		r.cancel(nil)
		over.Store(true)
	})
	return func() {
		if stop() {
			return // it will never run
		}
		// It has started: r.cancel is a few loads and stores, on a
		// goroutine that is runnable, so this yields until it has run.
		for !over.Load() {
			runtime.Gosched()
		}
	}
}

// afterSpawn is called by Worker.execute once the task is over, whether it
// returned, panicked or was skipped.
func afterSpawn(w *Worker, h *task) {
	st := (*spawnTask)(taskPointer(h))
	err := st.rs.err()
	if err != nil && st.returned && st.rs.failure.Load() == nil {
		// Canceled without a failure on record (its context was done
		// while it ran, or it called Cancel(nil)), and it returned
		// anyway: what it returned stands. (Its forks all completed: a
		// fork of a canceled run that was not done unwinds its joiner.)
		err = nil
	}
	// The owner's own counters; counted before over, so that a joiner
	// that saw the task over also sees it counted.
	c := &w.spawnState.stats
	switch {
	case err == nil && st.scopeOf() != nil:
		w.countScopeTask(1, st.prio) // published in a batch (slack.go)
	case err == nil:
		c.completed[st.prio].Add(1)
	case IsPanic(err):
		c.panicked[st.prio].Add(1)
	default:
		c.canceled[st.prio].Add(1)
	}
	st.body.over(w, err)
	// Counted out of the scheduler's pending as slack (slack.go); w.sched
	// is the task's: tasks run on their own pool.
	w.spawnState.schedSlack++
}

// submit queues st, a task submitted from any goroutine (Spawn of a
// Handle, Submit), on the injector.
func (s *scheduler) submit(st *spawnTask) {
	s.inject(st)
	s.wakeForNew()
}

// wakeForNew is the wake-up decision after spawned tasks were queued (and
// so made visible): wake a worker if one may be needed, and ask for help
// from waiters if no worker can run them.
func (s *scheduler) wakeForNew() {
	s.wakeCheck()
	if (s.maxWorkers == 0 || s.pool.WorkersAlive() == 0) && !s.helpWanted.Load() {
		s.helpWanted.Store(true) // (a load first: a store per spawn is a locked instruction)
	}
}

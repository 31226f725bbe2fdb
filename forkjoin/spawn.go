package forkjoin

// Spawned tasks: what they share, how they are counted, how they are
// recycled.
//
// Counting without contended atomics. Two counters say when spawned tasks
// are over: the scheduler's pending (Close drains until it is zero) and
// each Scope's pending (the Scope returns when it is zero). Counting every
// task in and out of them with an atomic add makes both workers of a
// spawn-heavy run hammer the same cache lines. Instead each participant
// keeps slack: a private count of how much a shared counter over-counts
// because of it. With S the shared counter, P the true number of tasks
// not yet over (plus one for a Scope's own function) and slack_w ≥ 0 the
// slack of participant w, the invariant is
//
//	S = P + Σ_w slack_w,  every slack_w ≥ 0
//
// so S ≥ P ≥ 0, and S == 0 implies P == 0 (and every slack is zero): a
// counter that reaches zero is exactly right, it is never early. The
// operations keep the invariant:
//
//   - A task over on w: P drops by one, slack_w grows by one (S untouched).
//   - A task spawned by w: P grows by one; if slack_w > 0 it shrinks by
//     one, else w reserves: S += spawnReserve, slack_w += spawnReserve-1.
//     The increment of S happens before the task is queued, so no other
//     participant can count the task out before it was counted in.
//   - A flush: S -= slack_w, slack_w = 0. The flush that brings S to zero
//     completes the Scope (or wakes a draining Close).
//
// S never reaches zero early; what remains is that it does reach zero,
// that is, slack is not held while its owner may wait for the counter. A
// participant holds slack only in the scheduler's own loops (serve,
// helpUntil) or while it runs a spawned task; it flushes before it goes
// idle (no task found: before it searches, spins or parks), when it leaves
// helpUntil back to the code that called it, when a caller's Run ends, and
// before it executes any task that could not keep the counter from zero
// anyway: for a Scope's slack, any task that is not a task of that Scope
// (a task of the Scope keeps P ≥ 1 while it runs, so holding the slack
// through it delays nothing); for the scheduler's, any task that is not a
// spawned task. Slack for one Scope at a time: spawning into or finishing a
// task of another Scope flushes the first one's.
//
// Statistics are per participant: each Worker counts what it submits and
// what finishes on it in counters only it writes (atomic adds on memory no
// other core writes, so the line stays in its cache); Pool.Stats sums them.
// Submissions from outside any worker are counted on the scheduler.
//
// Scope tasks, the bulk of spawning, are counted in plain owner-only
// tallies (submitted at Spawn, completed when one ends without an error)
// that are published, added to the atomic counters, in batches: every
// statsBatch counts, whenever the participant flushes its Scope slack (so
// at every flushSlack and every change of Scope), and at a Spawn that
// leaves its Scope or scheduler slack at zero. Nothing published is lost
// and nothing is counted twice; what remains is that a count is published
// when someone may rely on it:
//
//   - I: while w has unpublished counts, w caches a Scope (sl.scope is not
//     nil). Counts are made only with the task's Scope cached, or just
//     before over makes it cached (useScope, which publishes when it
//     switches); the cache is dropped only by flushScope, which publishes.
//   - A Scope's caller returns after its pending counter reached zero. Each
//     unpublished count of one of its tasks on w was made while w cached
//     the Scope and, right after, held slack ≥ 1 on it: over adds one for
//     a completed task; a Spawn keeps slack ≥ 1 or publishes at once,
//     before it queues the task. That slack keeps the counter above zero
//     until w flushes it, and flushScope publishes before its release: the
//     release that completes the Scope follows the publication (atomics,
//     sequentially consistent), and so does the caller's read of Stats.
//   - When the pool is idle (every participant out of its Runs or about to
//     search), every participant passed through flushSlack since its last
//     count (it holds slack by I, and flushes it before it idles, leaves
//     helpUntil or ends a Run), so every count is published: after Close,
//     Stats are exact.
//
// Failed tasks (panicked, cancelled) and tasks that are not Scope tasks
// (Handles, Graph nodes, submitted Tasks, whose joiners may read Stats at
// once) are counted with an atomic add each, as before.
//
// Recycling. A Scope's task structs come from a per-participant free list;
// surplus moves between participants in batches of spawnBatch through the
// scheduler's spare store (so a producer on one worker and a consumer on
// another pay one locked operation per batch). The pool keeps them, as it
// keeps its queues' rings: memory for the most scope tasks it ever had at
// once (see spareTasks).

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"github.com/forkjoin-go/forkjoin/pool"
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
	// scope is the Scope of a scope task, else nil (see Worker.settleFor).
	scope *Spawner
}

// spawnBody is what a kind of spawned task does: run it, then learn how it
// ended (err is the task's panic as a *PanicError, or its context's error
// if it never ran, or nil).
type spawnBody interface {
	run(w *Worker)
	over(w *Worker, err error)
}

func (st *spawnTask) init(s *scheduler, prio Priority, ctx context.Context, body spawnBody) {
	st.initDone(s, prio, ctx, ctx != nil && ctx.Done() != nil, body)
}

// initDone is init with ctxDone computed by the caller (a Graph computes it
// once for all its nodes). The header's state and thief are left alone:
// they serve joins of forks, and nobody joins a spawned task through them.
func (st *spawnTask) initDone(s *scheduler, prio Priority, ctx context.Context, ctxDone bool, body spawnBody) {
	prio.check()
	st.hdr.exec = execSpawn
	st.hdr.after = afterSpawn
	st.hdr.run = &st.rs
	st.rs = runState{ctx: ctx, sched: s}
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
			st.rs.fail(err) // never started: afterSpawn reports ctx.Err()
			return
		}
		// Once the task runs, its context being done cancels the task's
		// run, which stops its forks (they unwind it), but records no
		// failure: a task that returns all the same is over with what it
		// returned (see afterSpawn).
		defer stopWhenDone(ctx, &st.rs)()
	}
	// Task time feeds the injector interval; sampling one task in 64 keeps
	// two clock reads (some 25 ns each on a virtual machine) off most
	// tasks. (A task that panics is not sampled.)
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
		// Cancelled without a failure on record (its context was done
		// while it ran, or it called Cancel(nil)), and it returned
		// anyway: what it returned stands. (Its forks all completed: a
		// fork of a cancelled run that was not done unwinds its joiner.)
		err = nil
	}
	// The owner's own counters; counted before over, so that a joiner
	// that saw the task over also sees it counted.
	c := &w.sl.stats
	switch {
	case err == nil && st.scope != nil:
		w.countScopeTask(1, st.prio) // published in a batch (file comment)
	case err == nil:
		c.completed[st.prio].Add(1)
	case isPanic(err):
		c.panicked[st.prio].Add(1)
	default:
		c.cancelled[st.prio].Add(1)
	}
	st.body.over(w, err)
	// Counted out of the scheduler's pending as slack (see the file
	// comment); w.sched is the task's: tasks run on their own pool.
	w.sl.schedSlack++
}

// submit queues st: on w's own queue if w is not nil (a task spawned by a
// task), else on the injector.
func (s *scheduler) submit(w *Worker, st *spawnTask) {
	if w != nil {
		s.queueLocal(w, st)
	} else {
		s.inject(st)
	}
	s.wakeForNew()
}

// inject counts st in and queues it on the injector: a task submitted from
// outside the pool's tasks. It panics if Close has sealed the injector
// (see drain).
func (s *scheduler) inject(st *spawnTask) {
	s.pending.Add(1) // before the look at the seal: see drain
	s.spawned.submitted[st.prio].Add(1)
	if !s.inj.push(st.prio, &s.sealed, &st.hdr) {
		s.refuse(st.prio, 1)
	}
}

// refuse counts out n tasks of priority p submitted from outside the
// pool's tasks after the drain sealed the injector, and panics.
func (s *scheduler) refuse(p Priority, n int64) {
	s.spawned.submitted[p].Add(-n)
	if s.pending.Add(-n) == 0 {
		s.pendingOver()
	}
	panic(errSealed)
}

// pendingOver is called by whoever brought pending to zero: it wakes
// Close's drain, which waits for that either on drained or, when it takes
// part in the work (see drain), parked as a participant on joinWake. The
// helper counts itself in joinParked before its last look at pending, and
// the load of joinParked here follows the decrement to zero: one of the
// two sees the other, so a parked helper is always woken.
func (s *scheduler) pendingOver() {
	s.drained.NotifyAll()
	if s.joinParked.Load() != 0 {
		s.joinWake.NotifyAll()
	}
}

const errSealed = "forkjoin: Spawn or Submit on a closed pool (its Close had already run every task)"

// queueLocal counts st in and queues it on w's own queue of its priority,
// without the wake-up decision: the caller makes one (wakeForNew) after
// queueing one task or several.
func (s *scheduler) queueLocal(w *Worker, st *spawnTask) {
	// Counted in before it is queued (see the file comment).
	if w.sl.schedSlack > 0 {
		w.sl.schedSlack--
	} else {
		s.pending.Add(spawnReserve)
		w.sl.schedSlack = spawnReserve - 1
	}
	w.sl.stats.submitted[st.prio].Add(1)
	w.pq[st.prio].push(&st.hdr, false)
}

// countLocal counts k spawned tasks of priority p, made on w, in: in the
// scheduler's pending (from w's slack, reserving more if it has too
// little: the file comment's invariant with P growing by k) and in w's
// statistics. The caller then queues them (queueMany) or runs them.
func (s *scheduler) countLocal(w *Worker, k int64, p Priority) {
	if l := &w.sl; l.schedSlack >= k {
		l.schedSlack -= k
	} else {
		s.pending.Add(k + spawnReserve - 1 - l.schedSlack)
		l.schedSlack = spawnReserve - 1
	}
	w.sl.stats.submitted[p].Add(k)
}

// queueMany counts ts, spawned tasks of priority p, in and queues them on
// w's own queue with one publication (a Normal batch's last task goes to
// w's LIFO slot), without the wake-up decision.
func (s *scheduler) queueMany(w *Worker, p Priority, ts []*task) {
	if len(ts) == 0 {
		return
	}
	s.countLocal(w, int64(len(ts)), p)
	if p == Normal && s.lifo.Load() {
		// The last goes to the LIFO slot (lifo.go).
		n := len(ts) - 1
		w.pq[p].pushMany(ts[:n])
		w.putSlot(ts[n])
		return
	}
	w.pq[p].pushMany(ts)
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

// spawnReserve is how much a participant adds to a shared pending counter
// at once when it has no slack to spawn from.
const spawnReserve = 64

// spawnLocal is a participant's private state for spawned tasks: its slack
// on the pending counters, its free scope tasks and its counters. Only the
// owner writes it (the counters are atomics because Pool.Stats reads them).
type spawnLocal struct {
	schedSlack int64    // by how much sched.pending over-counts because of us
	scope      *Spawner // the Scope whose slack we hold, or nil
	scopeSlack int64    // by how much scope.pending over-counts because of us
	free       []*scopeTask
	stats      spawnCounters
	// Scope tasks' counts not yet added to stats (see the file comment),
	// and how many there are.
	unpub  [2][numPriorities]int64 // [0] submitted, [1] completed
	nUnpub int
}

// statsBatch is how many unpublished counts a participant keeps at most.
const statsBatch = 64

// countScopeTask tallies a Scope task submitted (k = 0) or completed (k =
// 1) for a later publication.
func (w *Worker) countScopeTask(k int, p Priority) {
	l := &w.sl
	l.unpub[k][p]++
	if l.nUnpub++; l.nUnpub >= statsBatch {
		w.publishCounts()
	}
}

// publishCounts adds w's unpublished counts to its counters.
func (w *Worker) publishCounts() {
	l := &w.sl
	if l.nUnpub == 0 {
		return
	}
	l.nUnpub = 0
	for p := range l.unpub[0] {
		if n := l.unpub[0][p]; n != 0 {
			l.unpub[0][p] = 0
			l.stats.submitted[p].Add(n)
		}
		if n := l.unpub[1][p]; n != 0 {
			l.unpub[1][p] = 0
			l.stats.completed[p].Add(n)
		}
	}
}

// settleFor flushes the slack that executing t could hold up: all of it
// before a task that is not a spawned task (a fork, an intrusive Task: one
// may run for long without keeping any counter from zero), and a Scope's
// before a spawned task of another Scope (or none).
func (w *Worker) settleFor(t *task) {
	if t.after == nil { // only spawned tasks have an after hook
		w.flushSlack()
		return
	}
	if sp := w.sl.scope; sp != nil && (*spawnTask)(taskPointer(t)).scope != sp {
		w.flushScope()
	}
}

// holdsSlack reports whether w holds any slack (or a cached Scope).
func (w *Worker) holdsSlack() bool { return w.sl.scope != nil || w.sl.schedSlack != 0 }

// flushSlack gives back all of w's slack.
func (w *Worker) flushSlack() {
	if w.sl.scope != nil {
		w.flushScope()
	}
	if n := w.sl.schedSlack; n != 0 {
		w.sl.schedSlack = 0
		if w.sched.pending.Add(-n) == 0 {
			w.sched.pendingOver()
		}
	}
}

// flushScope gives back w's slack on its cached Scope and forgets it.
func (w *Worker) flushScope() {
	w.publishCounts() // before the release (see the file comment)
	sp, n := w.sl.scope, w.sl.scopeSlack
	w.sl.scope, w.sl.scopeSlack = nil, 0
	if n != 0 {
		sp.release(n) // may complete sp: not touched after
	}
}

// useScope makes sp the Scope whose slack w holds.
func (w *Worker) useScope(sp *Spawner) {
	if w.sl.scope != sp {
		if w.sl.scope != nil {
			w.flushScope()
		}
		w.sl.scope = sp
	}
}

// SpawnOption configures a spawned task.
type SpawnOption func(*spawnConfig)

type spawnConfig struct {
	prio Priority
	ctx  context.Context
}

// WithPriority sets a spawned task's priority (default Normal).
func WithPriority(p Priority) SpawnOption {
	p.check()
	return func(c *spawnConfig) { c.prio = p }
}

// WithContext ties a spawned task to ctx: if ctx is done before the task
// starts, it is skipped and its handle reports ctx.Err(); once it runs, its
// Worker's Context is ctx and its forks stop when ctx is done (the task
// then unwinds, and its handle reports ctx.Err()). A task that returns is
// over with what it returned, even if ctx was done meanwhile.
func WithContext(ctx context.Context) SpawnOption {
	if ctx == nil {
		panic("forkjoin: WithContext with a nil context")
	}
	return func(c *spawnConfig) { c.ctx = ctx }
}

func spawnOptions(opts []SpawnOption) spawnConfig {
	if len(opts) == 0 {
		return spawnConfig{prio: Normal}
	}
	return spawnOptionsSlow(opts)
}

// spawnOptionsSlow applies options; c escapes to them, so it is kept off
// the common path.
func spawnOptionsSlow(opts []SpawnOption) spawnConfig {
	c := spawnConfig{prio: Normal}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// Handle is the result of a spawned task, to be collected with Join or
// Wait, or watched with Done.
type Handle[T any] struct {
	st   spawnTask // first field
	fn   func(w *Worker) (T, error)
	val  T
	err  error
	done core.Completion
	mu   sync.Mutex
	ch   chan struct{}
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
	h.st.init(s, c.prio, c.ctx, h)
	s.submit(nil, &h.st)
	return h
}

func (h *Handle[T]) run(w *Worker) { h.val, h.err = h.fn(w) }

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
			h.done.AddWaiter(&w.sched.joinWake)
			w.helpUntil(h.done.Done, nil, nil)
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

func (h *Handle[T]) check() {
	if h == nil {
		panic("forkjoin: Join, Wait or Done on a nil *Handle")
	}
}

// testHookBeforeHelp, if set (by tests only), runs in Handle.Wait between
// its look at the handle and its helping.
var testHookBeforeHelp func()

// Spawner spawns the tasks of a Scope.
type Spawner struct {
	sched   *scheduler
	ctx     context.Context
	ctxDone bool // ctx can be done
	// group: a Group's Spawner, whose tasks wait in the group lane
	// (grouplane.go), not in the participants' queues.
	group bool
	_     cacheline.Pad
	// pending counts the Scope's function and its tasks not yet over,
	// plus the slack participants hold on it (see the file comment). The
	// add that brings it to zero is the last: sequentially consistent, it
	// follows every task's over, so the Scope's caller, which loads done
	// after it, sees every task's effects.
	pending atomic.Int64
	_       cacheline.Pad
	done    core.Completion
	failure atomic.Pointer[error]
	failed  atomic.Bool
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
// cancelled forks). Unlike RunCtx, it returns nil when every task ran to
// its end, even if ctx was done by then: as errgroup's Wait, it reports
// what went wrong, not the state of ctx. For tasks that return errors and
// a context cancelled at the first failure, use a Group.
func ScopeCtx(ctx context.Context, w *Worker, fn func(s *Spawner)) error {
	w.checkCaller()
	if ctx == nil {
		panic("forkjoin: ScopeCtx with a nil context")
	}
	if fn == nil {
		panic("forkjoin: Scope with a nil function")
	}
	sp := &Spawner{sched: w.sched, ctx: ctx, ctxDone: ctx.Done() != nil}
	sp.pending.Add(1) // fn itself
	unwind := false
	func() {
		ok := false
		defer func() {
			if !ok {
				// fn panicked, or its run was cancelled under it: the
				// scope fails like a panicking task (its tasks not yet
				// started are skipped), and it still waits for the
				// others below.
				switch v := recover(); v.(type) {
				case unwinding:
					unwind = true // the core's: it goes on once the scope is over
					sp.recordFailure(ErrAborted)
				case nil:
					// runtime.Goexit, which goes on unwinding past the
					// Wait below: the tasks not started are skipped.
					sp.recordFailure(goexitError())
				default:
					sp.recordFailure(newPanicError(v, debug.Stack()))
				}
			}
			sp.finishOne(nil)
		}()
		fn(sp)
		ok = true
	}()
	w.wait(&sp.done)
	if unwind {
		panic(unwinding{})
	}
	if p := sp.failure.Load(); p != nil {
		return *p
	}
	return nil
}

func (sp *Spawner) finishOne(err error) {
	if err != nil {
		sp.recordFailure(err)
	}
	sp.release(1)
}

// release counts n out of pending; the last one completes the Scope.
func (sp *Spawner) release(n int64) {
	if sp.pending.Add(-n) == 0 {
		sp.done.Complete()
	}
}

func (sp *Spawner) recordFailure(err error) {
	sp.failure.CompareAndSwap(nil, &err)
	sp.failed.Store(true)
	if sp.cancel != nil {
		sp.cancel(err)
	}
}

// scopeTask is a task spawned in a Scope. Its Scope is st.scope, which
// settleFor reads too: one pointer, not a copy of it here. The struct is
// 128 bytes, so that in the chunks getScopeTask allocates each task spans
// exactly two cache lines (TestScopeTaskSize and TestScopeTaskSpawnLine
// keep it there).
//
// A spawn writes one of those lines, not both, and reads neither (see
// the nil test in Spawn). What is the same for every task a struct will
// carry (its header's exec, after and run, its run's scheduler, its body)
// is set once, when the struct is made (makeFor); what varies (the run's
// context, prio, ctxDone, scope and fn) lies in the second line
// (TestScopeTaskSpawnLine); and over leaves the struct as makeFor did,
// clearing the rest. On a cold cache each line a spawn writes is a miss,
// which a locked instruction after it (the queue's atomic publication of
// the task) waits for: writing both lines makes Spawn the slowest part of
// a burst of small tasks.
type scopeTask struct {
	st spawnTask // first field
	fn func(w *Worker)
}

// makeFor sets the fields every task of s that t carries shares (see
// scopeTask). t is a new struct, never used before.
func (t *scopeTask) makeFor(s *scheduler) {
	t.st.hdr.exec, t.st.hdr.after, t.st.hdr.run = execSpawn, afterSpawn, &t.st.rs
	t.st.rs.sched, t.st.body = s, t
}

func (t *scopeTask) run(w *Worker) {
	if t.st.scope.failed.Load() {
		w.Cancel(ErrAborted)
		return
	}
	t.fn(w)
}

func (t *scopeTask) over(w *Worker, err error) {
	sp := t.st.scope
	if err != nil && !errors.Is(err, ErrAborted) {
		// (ErrAborted: skipped because of an earlier failure, which is on
		// record.)
		sp.recordFailure(err)
	}
	// Back to what makeFor made, for the next Spawn to fill in: nothing
	// else touches the run once its task is over (its forks were joined,
	// stopWhenDone waited for a cancellation in progress).
	t.fn, t.st.rs.ctx, t.st.scope = nil, nil, nil
	if t.st.rs.cancelled.Load() || t.st.rs.failure.Load() != nil {
		t.st.rs.cancelled.Store(false)
		t.st.rs.failure.Store(nil)
	}
	w.putScopeTask(t) // nothing touches t after over returns
	// Counted out of sp.pending as slack (see the file comment).
	w.useScope(sp)
	w.sl.scopeSlack++
}

// spawnBatch is how many free scope tasks move between participants at
// once.
const spawnBatch = 64

// spareTasks is a participant's store of free scope tasks beyond the two
// batches its own list keeps: the batches that a producer of tasks frees
// on one participant, for a consumer on another to take. The store keeps
// them until the pool is closed, as the participants' queues keep their
// grown rings. A new scope task is allocated only when the participant's
// list and every store are empty, so the free and busy tasks together
// never exceed what the pool's busiest moment had in use at once, plus
// two batches per participant (those in other participants' own lists).
// (Not a sync.Pool: it drops its contents at every other garbage
// collection; with bursts of many thousands of tasks separated by
// collections, every burst would allocate all its tasks again: 31 MB and
// half the time of zap's spawn test, BenchmarkZapSpawn/p2-gc.)
//
// Per participant, not per scheduler: the owner puts and takes its own
// newest batches (one uncontended lock per batch, memory its core touched
// last); a participant whose list and store are empty takes the oldest
// batch of another's store (memory the other core touched longest ago:
// taking the newest made zap's spawn test 30% slower).
type spareTasks struct {
	mu   sync.Mutex
	free []*scopeTask // free[head:] are free, the oldest first
	head int
}

// put moves ts (spawnBatch tasks at most) into the store.
func (s *spareTasks) put(ts []*scopeTask) {
	s.mu.Lock()
	if s.head > 0 && len(s.free)+len(ts) > cap(s.free) {
		n := copy(s.free, s.free[s.head:])
		clear(s.free[n:])
		s.free, s.head = s.free[:n], 0
	}
	s.free = append(s.free, ts...)
	s.mu.Unlock()
}

// take appends up to spawnBatch free tasks from the store to dst: the
// newest for the owner, the oldest for another participant (the memory
// the owner touched longest ago, likely out of its core's caches).
func (s *spareTasks) take(dst []*scopeTask, own bool) []*scopeTask {
	s.mu.Lock()
	if n := len(s.free) - s.head; n > 0 {
		k := min(n, spawnBatch)
		var lo int
		if own {
			lo = len(s.free) - k
			dst = append(dst, s.free[lo:]...)
			clear(s.free[lo:])
			s.free = s.free[:lo]
		} else {
			lo = s.head
			dst = append(dst, s.free[lo:lo+k]...)
			clear(s.free[lo : lo+k])
			s.head += k
		}
		if s.head == len(s.free) {
			s.free, s.head = s.free[:0], 0
		}
	}
	s.mu.Unlock()
	return dst
}

// release drops the store's tasks (the pool is closed).
func (s *spareTasks) release() {
	s.mu.Lock()
	s.free, s.head = nil, 0
	s.mu.Unlock()
}

// getScopeTask returns a free scope task from w's list, refilled from the
// scheduler's spare batches or, failing that, freshly allocated (a batch
// of spawnBatch at once, in chunks of scopeTaskChunk).
func (w *Worker) getScopeTask() *scopeTask {
	l := &w.sl
	if len(l.free) == 0 {
		l.free = w.spare.take(l.free, true)
		if len(l.free) == 0 {
			for _, o := range *w.sched.parts.Load() {
				if o != w {
					if l.free = o.spare.take(l.free, false); len(l.free) > 0 {
						break
					}
				}
			}
		}
	}
	if len(l.free) == 0 {
		for range spawnBatch / scopeTaskChunk {
			chunk := new([scopeTaskChunk]scopeTask)
			for i := range chunk {
				chunk[i].makeFor(w.sched)
				l.free = append(l.free, &chunk[i])
			}
		}
	}
	n := len(l.free)
	t := l.free[n-1]
	l.free[n-1] = nil
	l.free = l.free[:n-1]
	return t
}

// scopeTaskChunk is how many scope tasks getScopeTask allocates together:
// 512 bytes, the largest object the Go runtime allocates without a header
// in front (an 8-byte header above that would shift every task by 8 bytes
// and make it straddle three cache lines). Objects of one size class lie at
// multiples of their size from a page boundary, so each task starts on a
// line (TestScopeTaskSpawnLine).
const scopeTaskChunk = 4

// putScopeTask returns t to w's free list, moving a batch to the
// scheduler's spare ones when the list holds two.
func (w *Worker) putScopeTask(t *scopeTask) {
	l := &w.sl
	l.free = append(l.free, t)
	if len(l.free) < 2*spawnBatch {
		return
	}
	k := len(l.free) - spawnBatch
	w.spare.put(l.free[k:])
	clear(l.free[k:])
	l.free = l.free[:k]
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
		// was a miss on a cold task.
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
			ctx, ctxDone = c.ctx, c.ctx.Done() != nil
		}
		prio = c.prio
		t.st.prio, t.st.ctxDone = prio, ctxDone
		t.st.rs.ctx = ctx
	}
	t.fn = fn
	t.st.scope = sp
	// Counted in before it is queued (see the file comment), in both
	// pending counters and in the statistics.
	w.useScope(sp)
	l, s := &w.sl, sp.sched
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
	if sp.group {
		s.groups.push(sp, &t.st.hdr) // grouplane.go
	} else if prio == Normal && s.lifo.Load() {
		w.putSlot(&t.st.hdr) // lifo.go
	} else {
		w.pq[prio].push(&t.st.hdr, true) // pooled: see scopeTask.over
	}
	s.wakeForNew()
}

// Submit queues an intrusive Task on p from any goroutine; some
// participant runs it once. Of the options, WithPriority applies (default
// Normal); WithContext does not (a Task has no result to report a skip
// in) and panics. Submitting without options allocates nothing.
// Pool.Close waits for submitted tasks. A panic in the task's function is
// kept (see Task.Panic) and counted; it does not affect other tasks.
func Submit(p *pool.Pool, t *Task, opts ...SpawnOption) {
	if t == nil {
		panic("forkjoin: Submit of a nil *Task")
	}
	s := schedulerOf(p)
	t.prepareSubmit(s, submitPriority("Submit", opts))
	s.submit(nil, &t.st)
}

// Batch collects intrusive Tasks to submit together: one lock of the
// injector and one wake-up decision for all of them. A Batch is reusable
// once submitted; it links the tasks through themselves and allocates
// nothing.
type Batch struct {
	head, tail *Task
	n          int
}

// Push adds t to the batch. t must have been initialised with Init and not
// be queued elsewhere.
func (b *Batch) Push(t *Task) {
	if t == nil {
		panic("forkjoin: Batch.Push of a nil *Task")
	}
	if t.fn == nil {
		panic("forkjoin: Batch.Push of a Task without Init")
	}
	t.next = nil
	if b.tail == nil {
		b.head = t
	} else {
		b.tail.next = t
	}
	b.tail = t
	b.n++
}

// Len is the number of tasks in the batch.
func (b *Batch) Len() int { return b.n }

// SubmitBatch submits every task of b and empties b. Its options are
// Submit's.
func SubmitBatch(p *pool.Pool, b *Batch, opts ...SpawnOption) {
	if b == nil {
		panic("forkjoin: SubmitBatch of a nil *Batch")
	}
	s := schedulerOf(p)
	prio := submitPriority("SubmitBatch", opts)
	if b.n == 0 {
		return
	}
	s.pending.Add(int64(b.n)) // before the look at the seal: see drain
	s.spawned.submitted[prio].Add(int64(b.n))
	s.inj.mu.Lock()
	if s.sealed {
		s.inj.mu.Unlock()
		s.refuse(prio, int64(b.n))
	}
	for t := b.head; t != nil; {
		next := t.next
		t.next = nil
		t.prepareSubmit(s, prio)
		s.inj.q[prio] = append(s.inj.q[prio], &t.st.hdr)
		t = next
	}
	s.inj.n[prio].Add(int64(b.n))
	s.inj.mu.Unlock()
	b.head, b.tail, b.n = nil, nil, 0
	s.wakeCheck()
	if s.maxWorkers == 0 || s.pool.WorkersAlive() == 0 {
		s.helpWanted.Store(true)
	}
}

// submitPriority is the priority of Submit's or SubmitBatch's options.
func submitPriority(who string, opts []SpawnOption) Priority {
	c := spawnOptions(opts)
	if c.ctx != nil {
		panic("forkjoin: " + who + " with WithContext: a submitted Task has no context")
	}
	return c.prio
}

func (t *Task) prepareSubmit(s *scheduler, prio Priority) {
	if t.fn == nil {
		panic("forkjoin: Submit of a Task without Init")
	}
	t.panic = nil
	t.st.init(s, prio, nil, (*submittedTask)(t))
}

// submittedTask is a Task seen as a spawnBody.
type submittedTask Task

func (t *submittedTask) run(w *Worker) { t.fn(w, (*Task)(t)) }

func (t *submittedTask) over(_ *Worker, err error) {
	if err != nil {
		t.panic = asPanic(err)
	}
}

// asPanic returns err's *PanicError, or nil. (Kept apart from the callers:
// errors.As makes its target escape, an allocation they avoid when err is
// nil.)
func asPanic(err error) *PanicError {
	var pe *PanicError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// Panic returns the panic of a submitted Task's last run, or nil.
func (t *Task) Panic() *PanicError { return t.panic }

// drain runs from Pool.Close: it waits until every spawned task is over,
// running tasks on the calling goroutine if the pool has no worker to.
//
// When it returns, the injector is sealed: a task submitted from outside
// the pool's tasks (Spawn, Submit, SubmitBatch from a goroutine that is not
// running one) would never run, so it is refused with a panic. The seal
// is set under the injector's lock, after pending is seen zero under it;
// such a submission counts itself in pending, then looks at the seal
// under the same lock. So either its count came first, the drain saw
// pending not zero and waits for the task; or the drain's look came
// first, and the submission, taking the lock after, sees the seal and
// counts itself out. A task that spawns while it runs counts in pending
// itself, so while it could spawn, pending is not zero and there is no
// seal: tasks spawned by tasks are never refused.
func (s *scheduler) drain() {
	for {
		if s.pending.Load() == 0 {
			s.inj.mu.Lock()
			if s.pending.Load() == 0 {
				s.sealed = true
				s.inj.mu.Unlock()
				return
			}
			s.inj.mu.Unlock()
			continue
		}
		tok := s.drained.Prepare()
		if s.pending.Load() == 0 {
			continue // to seal
		}
		if s.maxWorkers == 0 || s.pool.WorkersAlive() == 0 || s.helpWanted.Load() {
			// Nobody else may run them: take part until they are done.
			_ = run(nil, s.pool, func(w *Worker) error {
				w.helpUntil(func() bool { return s.pending.Load() == 0 }, nil, laneAny)
				return nil
			})
			continue
		}
		s.wakeCheck()
		s.drained.Wait(tok)
	}
}

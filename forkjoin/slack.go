package forkjoin

// Counting spawned tasks in and out without contended atomics, and
// publishing their statistics in batches.
//
// Two counters say when spawned tasks are over: the scheduler's pending
// (Close drains until it is zero, drain.go) and each Scope's pending (the
// Scope returns when it is zero, scope.go). An atomic add per task in and
// per task out would make every participant of a spawn-heavy run write the
// same cache lines. Instead each participant keeps slack: a private count
// of how much a shared counter over-counts because of it. With S the
// shared counter, P the true number of tasks not yet over (plus one for a
// Scope's own function) and slack_w ≥ 0 the slack of participant w, the
// invariant is
//
//	S = P + Σ_w slack_w,  every slack_w ≥ 0
//
// so S ≥ P ≥ 0, and S == 0 implies P == 0 (and every slack is zero): a
// counter that reaches zero is exactly right, never early. The operations
// keep the invariant:
//
//   - A task over on w: P drops by one, slack_w grows by one (S untouched):
//     afterSpawn, scopeTask.over.
//   - k tasks spawned by w: P grows by k; if slack_w ≥ k it shrinks by k,
//     else w reserves: S grows by k + spawnReserve-1 - slack_w and slack_w
//     becomes spawnReserve-1 (countLocal; Spawner.Spawn for k = 1). The add to S happens before the
//     tasks are queued, so no participant can count a task out before it
//     was counted in.
//   - A flush: S -= slack_w, slack_w = 0 (flushSlack, flushScope). The
//     flush that brings S to zero completes the Scope (or wakes a draining
//     Close).
//
// S never reaches zero early; what remains is that it does reach zero,
// that is, slack is not held while its owner may wait for the counter. A
// participant holds slack only in the scheduler's own loops (serve,
// helpUntil) or while it runs a spawned task; it flushes before it goes
// idle (no task found: before it searches, spins or parks), when it leaves
// helpUntil back to the code that called it, when a caller's Run ends, and
// before it executes any task that could not keep the counter from zero
// anyway (settleFor): for a Scope's slack, any task that is not a task of
// that Scope (a task of the Scope keeps P ≥ 1 while it runs, so holding
// the slack through it delays nothing); for the scheduler's, any task that
// is not a spawned task. Slack is held for one Scope at a time: spawning
// into or finishing a task of another Scope flushes the first one's
// (useScope).
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
//   - I: while w has unpublished counts, w caches a Scope (spawnState.scope is not
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
// Failed tasks (panicked, canceled) and tasks that are not Scope tasks
// (Handles, Graph nodes, submitted Tasks, whose joiners may read Stats at
// once) are counted with an atomic add each.

// spawnReserve is how much more than it needs a participant adds to a
// shared pending counter when it has too little slack to spawn from.
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

// countLocal counts k spawned tasks of priority p, made on w, in: in the
// scheduler's pending, out of w's slack or with a reserve (the file
// comment's spawn, with P growing by k), and in w's statistics. The caller
// then queues them (queueMany) or runs them.
func (s *scheduler) countLocal(w *Worker, k int64, p Priority) {
	if l := &w.spawnState; l.schedSlack >= k {
		l.schedSlack -= k
	} else {
		s.pending.Add(k + spawnReserve - 1 - l.schedSlack)
		l.schedSlack = spawnReserve - 1
	}
	w.spawnState.stats.submitted[p].Add(k)
}

// queueMany counts ts, spawned tasks of priority p, in and queues them on
// w's own queue with one publication (a Normal batch's last task goes to
// w's LIFO slot), without the wake-up decision.
func (s *scheduler) queueMany(w *Worker, p Priority, ts []*task) {
	if len(ts) == 0 {
		return
	}
	s.countLocal(w, int64(len(ts)), p)
	if p == Normal && s.lifo {
		// The last goes to the LIFO slot (lifo.go).
		n := len(ts) - 1
		w.queues[p].PushMany(ts[:n])
		w.putSlot(ts[n])
		return
	}
	w.queues[p].PushMany(ts)
}

// countScopeTask tallies a Scope task submitted (k = 0) or completed (k =
// 1) for a later publication.
func (w *Worker) countScopeTask(k int, p Priority) {
	l := &w.spawnState
	l.unpub[k][p]++
	if l.nUnpub++; l.nUnpub >= statsBatch {
		w.publishCounts()
	}
}

// publishCounts adds w's unpublished counts to its counters.
func (w *Worker) publishCounts() {
	l := &w.spawnState
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
	if sp := w.spawnState.scope; sp != nil && (*spawnTask)(taskPointer(t)).rs.fam != &sp.fam {
		w.flushScope()
	}
}

// holdsSlack reports whether w holds any slack (or a cached Scope).
func (w *Worker) holdsSlack() bool { return w.spawnState.scope != nil || w.spawnState.schedSlack != 0 }

// flushSlack gives back all of w's slack.
func (w *Worker) flushSlack() {
	if w.spawnState.scope != nil {
		w.flushScope()
	}
	if n := w.spawnState.schedSlack; n != 0 {
		w.spawnState.schedSlack = 0
		if w.sched.pending.Add(-n) == 0 {
			w.sched.pendingOver()
		}
	}
}

// flushScope gives back w's slack on its cached Scope and forgets it.
func (w *Worker) flushScope() {
	w.publishCounts() // before the release (see the file comment)
	sp, n := w.spawnState.scope, w.spawnState.scopeSlack
	w.spawnState.scope, w.spawnState.scopeSlack = nil, 0
	if n != 0 {
		sp.release(n) // may complete sp: not touched after
	}
}

// useScope makes sp the Scope whose slack w holds.
func (w *Worker) useScope(sp *Spawner) {
	if w.spawnState.scope != sp {
		if w.spawnState.scope != nil {
			w.flushScope()
		}
		w.spawnState.scope = sp
	}
}

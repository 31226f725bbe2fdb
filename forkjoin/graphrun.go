package forkjoin

// Graph: running it, as spawned tasks on the core (graph.go builds it).
//
// Run counts, for every node, the dependencies it waits for, runs the
// first source of the highest priority at once on the calling goroutine
// and queues the other nodes that wait for none. When a node is over, the
// worker that ran it counts itself in each dependent's count of finished
// dependencies and queues, on its own queue, every dependent whose count
// reached its number of dependencies, in batches of up to readyBatchMax
// with one wake-up decision each: no coordinating goroutine, and a
// dependent usually runs where its inputs are hot in cache. A node whose
// dependency failed (error, panic or cancellation) is not run: it fails
// with a *DependencyError, and so do its dependents.
//
// Run state. A node's graphTask (the spawned task and its counts) lives
// only while a run is under way, in an array the run borrows: a graph of
// up to graphTasksPooled nodes takes a zeroed array from graphTaskArrays,
// a pool shared by all graphs, and gives it back, zeroed again, when Run
// returns; a bigger one keeps its own for its next run.
//
// Ordering. A finishing node stores finished (Value's check) and its error
// in its graphNode before it adds to a dependent's count in the
// dependent's graphTask; the addition that completes it queues the
// dependent, and queueing publishes the task (deque atomics, sequentially
// consistent), so the dependent's function sees its dependencies' results
// and errors. The node's error is written before the graph's count of
// sinks left is decremented (only nodes without dependents count); the
// decrement that reaches zero completes the graph's Completion, after
// which Run reads every node's error. Counting sinks is enough: a sink is
// over only after each of its dependencies added itself to the sink's
// count, and by induction every node is then over except for the tail of
// over in a node with dependents (the wake-up decisions after its
// additions, and afterSpawn's counting on its worker), which touches
// neither the graph nor any node nor any graphTask. Only one shared
// counter is touched per sink instead of one per node.
//
// Reuse of the run state. When Run returns, every graphTask of the run has
// had its last access: a node reads and writes a dependent's graphTask
// only before the addition that may launch it, and its own only before its
// last addition (a sink: before its decrement of left); what may still be
// running of the run (the tails above, a Complete notifying waiters)
// touches the scheduler, the worker and the Completion's atomics only. So
// Run zeroes the array and hands it on at once, without waiting for
// anything, and the next Run of any graph may initialise it again. One
// exception: a task whose context can be done registers a context.AfterFunc
// that fails the task's run state, and that function may still be under
// way after the task ended (the stop function does not wait for it). A run
// with such a context does not reuse its array: it leaves it to the
// collector, and the next run takes another.
//
// Running again. Run may be called again once it has returned. It resets
// each node's finished flag, error and result without waiting for
// anything: by the argument above, when Run returned every node had made
// its last access to them (a node reads a dependency's only from its own
// run, launched after the dependency's last addition, and writes its own
// only before its last addition), and the graph's edges and Completion
// are reset between runs the same way. Two Runs of one Graph at once are
// refused (running).

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/pool"
)

// Run runs the graph on p, the calling goroutine taking part, and returns
// when every node is over: nil if all succeeded, else the errors of the
// nodes that failed on their own (not those skipped for a failed
// dependency), in the order nodes were added: one error as it is, several
// joined with errors.Join.
//
// Run may be called again once it has returned: every node runs again,
// and Value and Err report the latest run. Calling Run while a Run of the
// same Graph is under way panics.
func (g *Graph) Run(p *pool.Pool) error { return g.RunCtx(context.Background(), p) }

// RunCtx is Run with a context: nodes not yet started when ctx is done are
// skipped (their error is ctx.Err()), running ones see ctx through their
// Worker, and a node that returns is over with what it returned. The
// context's error is among the errors returned once, however many nodes it
// skipped; if every node ran to its end, RunCtx returns what Run would.
func (g *Graph) RunCtx(ctx context.Context, p *pool.Pool) error {
	g.checkRun(ctx, p)
	launched, returned := false, false
	defer func() {
		if !launched || returned {
			g.running.Store(false)
			return
		}
		// A runtime.Goexit on this goroutine (in the source node it runs,
		// or in a task it helped with) left the Run with nodes still to
		// run elsewhere, on the node array: the Run ends when they do.
		g.orphaned.Store(true)
		g.orphanOver()
	}()
	first := !g.ran
	g.ran = true
	g.chunks = nil // no node is added after this
	if len(g.nodes) == 0 {
		return nil
	}
	s := schedulerOf(p)
	if len(g.nodes) > 1 {
		// A parked worker takes tens of microseconds to arrive: wake one
		// now, so that it comes while the graph is prepared and its first
		// source runs, in time for what that source launches. (It finds
		// nothing yet, and searches for a while before it leaves.)
		s.wakeForNew()
	}
	g.resetNodes(first)
	g.fam.init(familyIn(ctx, s))
	ctxDone := ctx.Done() != nil
	// The nodes' context, observed (observe.go) if ctx carries labels or
	// a trace is being recorded; the caller's run has its labels and
	// trace task but not its cancellation (nodeErrors reports that).
	nodes, task := observe(ctx, "forkjoin.Graph", true)
	if task != nil {
		defer task.End()
	}
	ts := g.initTasks(nodes, s, ctxDone)
	launched = true
	var caller context.Context = context.Background()
	if o, ok := nodes.(*observed); ok {
		caller = &observed{Context: context.WithoutCancel(o), labels: o.labels, name: o.name, traced: o.traced}
	}
	err := runOn(caller, s, func(w *Worker) error {
		g.runSources(w, s, ts)
		w.waitFam(&g.done, &g.fam)
		return nil
	})
	// Every node is over (RunCtx returns an error only if the function
	// above did not return, and then no node may be running: it panics
	// only by a fault of ours): the run state can be reused.
	g.putTasks(err == nil && !ctxDone)
	returned = true
	if err != nil {
		return err
	}
	return g.nodeErrors(ctx, ctxDone)
}

// checkRun panics for a Run that cannot start: a nil Graph, context or
// pool, a closed pool, or a Run of g under way. Otherwise it marks g as
// running.
func (g *Graph) checkRun(ctx context.Context, p *pool.Pool) {
	if g == nil {
		panic("forkjoin: Run on a nil *Graph")
	}
	if ctx == nil {
		panic("forkjoin: Graph.RunCtx with a nil context")
	}
	if p == nil {
		// Even for an empty graph: the pool is checked as for any other.
		panic("forkjoin: Graph.Run with a nil *pool.Pool")
	}
	if p.Closed() {
		panic("forkjoin: use of a closed pool")
	}
	if !g.running.CompareAndSwap(false, true) {
		panic("forkjoin: Graph.Run while a Run of the same Graph is under way")
	}
}

// resetNodes prepares the nodes for a run: on the first, it lays out their
// dependents; on any other, it clears what the last run left in them.
func (g *Graph) resetNodes(first bool) {
	if first {
		g.layoutDependents()
		return
	}
	// The last run is over: each node did its last write to the fields
	// reset here before its dependents could run (see the file comment),
	// and its sinks are over.
	g.done.Reset()
	for _, n := range g.nodes {
		n.finished.Store(false)
		n.err = nil
		n.body.clearValue()
	}
}

// initTasks takes the run state of every node (takeTasks), sets each
// node's task to wait for its dependencies, and sets the count of sinks
// left.
func (g *Graph) initTasks(ctx context.Context, s *scheduler, ctxDone bool) []graphTask {
	ts := g.takeTasks()
	sinks := 0
	for i, n := range g.nodes {
		t := &ts[i]
		t.n, t.g, t.depsLeft = n, g, n.ndeps
		t.st.initDone(s, n.prio, &g.fam, ctx, ctxDone, t)
		if n.nout == 0 {
			sinks++
		}
	}
	g.left.Store(int64(sinks))
	return ts
}

// runSources starts a run's nodes on w: the first source of the highest
// priority runs here at once (so that no other participant takes it while
// this one looks for it and then parks; it is the one Wait would have
// taken first from this participant's queues), the other sources are
// queued in batches.
func (g *Graph) runSources(w *Worker, s *scheduler, ts []graphTask) {
	src := -1
	for i, n := range g.nodes {
		if n.ndeps == 0 && (src < 0 || n.prio < g.nodes[src].prio) {
			src = i
		}
	}
	var b readyBatch
	for i, n := range g.nodes {
		if n.ndeps == 0 && i != src {
			b.add(w, s, &ts[i])
		}
	}
	b.flush(w, s)
	s.countLocal(w, 1, g.nodes[src].prio)
	w.execute(&ts[src].st.hdr)
}

// nodeErrors is what a Run whose nodes are all over returns: the errors of
// the nodes that failed on their own, in the order they were added; the
// nodes skipped because ctx was done all hold ctx.Err(), which is reported
// once, where the first of them is.
func (g *Graph) nodeErrors(ctx context.Context, ctxDone bool) error {
	var ctxErr error
	if ctxDone {
		ctxErr = ctx.Err()
	}
	var errs []error
	skipped := false
	for _, n := range g.nodes {
		switch {
		case n.err == nil || isDependencyError(n.err):
		case ctxErr != nil && n.err == ctxErr:
			if !skipped {
				skipped = true
				errs = append(errs, ctxErr)
			}
		default:
			errs = append(errs, n.err)
		}
	}
	if len(errs) == 1 {
		return errs[0] // itself, not wrapped: RunCtx returns ctx.Err() as it is
	}
	return errors.Join(errs...)
}

// takeTasks returns zeroed run state for every node of g, and keeps it in
// g.tasks for the Run: the graph's own array, one from graphTaskArrays or
// a new one.
func (g *Graph) takeTasks() []graphTask {
	n := len(g.nodes)
	if g.tasks == nil && n <= graphTasksPooled {
		if a, _ := graphTaskArrays.Get().(*graphTasks); a != nil && len(a.ts) >= n {
			g.tasks = a
		}
		// (An array too small is dropped: it was zero, and the new one,
		// of the next power of two, serves this size and the ones below.)
	}
	if g.tasks == nil {
		size := n
		if n <= graphTasksPooled {
			size = 1
			for size < n {
				size *= 2
			}
		}
		g.tasks = &graphTasks{ts: make([]graphTask, size)}
	}
	return g.tasks.ts[:n]
}

// putTasks zeroes the run state of the Run that is over and hands it on:
// to graphTaskArrays, or kept in g for its next run if it has more than
// graphTasksPooled nodes. If reuse is false (the run's tasks had a context
// that can be done, or the run failed) the array is left to the collector
// instead (see the file comment).
func (g *Graph) putTasks(reuse bool) {
	a := g.tasks
	g.tasks = nil
	if !reuse {
		return
	}
	clear(a.ts[:len(g.nodes)])
	if len(g.nodes) > graphTasksPooled {
		g.tasks = a
	} else {
		graphTaskArrays.Put(a)
	}
}

// isDependencyError reports whether err is a *DependencyError. (Kept apart:
// errors.As makes its target escape, an allocation Run pays only for
// nodes that failed.)
func isDependencyError(err error) bool {
	var de *DependencyError
	return errors.As(err, &de)
}

// orphanOver ends a Run whose goroutine a runtime.Goexit ended, once its
// nodes are over too: called by both sides, it acts once, for the later.
// The node array is left to the collector (a node's after may still be
// returning from it), and the graph may be run again.
func (g *Graph) orphanOver() {
	if g.done.Done() && g.orphaned.CompareAndSwap(true, false) {
		g.putTasks(false)
		g.running.Store(false)
	}
}

// graphTask is a node's run state, for one Run: the spawned task and the
// counts its dependencies update. It is zero before the Run initialises it
// and after the Run that used it returned.
type graphTask struct {
	st spawnTask // first field; st.body is the graphTask itself
	n  *graphNode
	g  *Graph
	// depsLeft counts the dependencies not yet over, down from n.ndeps
	// (written by Run before the task can be launched, then only with
	// atomic adds; the add that reaches zero launches the task).
	depsLeft int32
	// depFailed is 1 + the index of a failed dependency, or 0.
	depFailed atomic.Int32
}

// graphTasks is an array of run state, boxed so that it goes in and out
// of graphTaskArrays without an allocation.
type graphTasks struct{ ts []graphTask }

// graphTaskArrays keeps zeroed *graphTasks for the Runs of graphs of up to
// graphTasksPooled nodes (see the file comment).
var graphTaskArrays sync.Pool

// graphTasksPooled is the most nodes of a graph whose run state comes from
// graphTaskArrays (about 600 KB of it).
const graphTasksPooled = 1 << 12

// run is the node's task: its function, unless a dependency failed.
func (t *graphTask) run(w *Worker) {
	n := t.n
	if d := t.depFailed.Load(); d != 0 {
		n.err = &DependencyError{Index: int(d - 1), Err: t.g.nodes[d-1].err}
		return
	}
	n.err = n.body.runFn(w)
}

// over runs on the worker that ran the node (or skipped it): it launches
// the dependents this node was the last to wait for, queued on w's own
// queues in batches (one publication and one wake-up decision per batch:
// a thief can take the first ones while the rest are counted down).
func (t *graphTask) over(w *Worker, err error) {
	n, g := t.n, t.g
	if err != nil && n.err == nil {
		n.err = err
	}
	n.finished.Store(true)
	s := t.st.rs.sched
	failed := n.err != nil
	ts := g.tasks.ts
	var b readyBatch
	deps := g.out[n.first : n.first+n.nout]
	for _, i := range deps {
		d := &ts[i]
		if failed {
			d.depFailed.CompareAndSwap(0, n.index+1)
		}
		if atomic.AddInt32(&d.depsLeft, -1) == 0 {
			b.add(w, s, d)
		}
	}
	// Neither t nor n is touched from here on (see the file comment).
	b.flush(w, s)
	if len(deps) == 0 && g.left.Add(-1) == 0 {
		g.done.Complete() // Run may return: nothing is touched after
		if g.orphaned.Load() {
			g.orphanOver() // unless the Run's goroutine ended first
		}
	}
}

// readyBatch collects graph nodes ready to run, of one priority, and
// queues them together; it lives on the stack of the code that launches
// them.
type readyBatch struct {
	n    int
	prio Priority
	ts   [readyBatchMax]*task
}

// readyBatchMax is the most ready nodes queued at once.
const readyBatchMax = 16

// add adds d, queueing what is collected first if the batch is full or of
// another priority.
func (b *readyBatch) add(w *Worker, s *scheduler, d *graphTask) {
	if b.n == readyBatchMax || (b.n > 0 && d.st.prio != b.prio) {
		b.flush(w, s)
	}
	b.prio = d.st.prio
	b.ts[b.n] = &d.st.hdr
	b.n++
}

// flush queues what is collected on w's queue and makes the wake-up
// decision for it.
func (b *readyBatch) flush(w *Worker, s *scheduler) {
	if b.n == 0 {
		return
	}
	s.queueMany(w, b.prio, b.ts[:b.n])
	clear(b.ts[:b.n])
	b.n = 0
	s.wakeForNew()
}

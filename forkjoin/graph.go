package forkjoin

// Graph: tasks with dependencies, run on the core as spawned tasks.
//
// A node may depend only on nodes added before it, so a Graph cannot have
// a cycle. Run counts, for every node, the dependencies it waits for, runs
// the first source of the highest priority at once on the calling
// goroutine and queues the other nodes that wait for none. When a node is
// over, the worker that ran it counts itself in each dependent's count of
// finished dependencies and queues, on its own queue, every dependent whose
// count reached its number of dependencies, in batches of up to
// readyBatchMax with one wake-up decision each: no coordinating goroutine,
// and a dependent usually runs where its inputs are hot in cache. A node whose dependency
// failed (error, panic or cancellation) is not run: it fails with a
// *DependencyError, and so do its dependents.
//
// Memory. A node is kept in two parts. What lasts from one run to the next
// is small: a GraphNode[T] holds the function, the result, the error and
// the node's place among the edges (a graphNode of 56 bytes, plus the
// function and the result). What a node needs only while a run is under
// way, the spawned task (deque header, run state, priority: 120 bytes) and
// its counts of dependencies over and failed, is a graphTask, one per node
// in an array the run borrows: a graph of up to graphTasksPooled nodes
// takes a zeroed array from graphTaskArrays, a pool shared by all graphs,
// and gives it back, zeroed again, when Run returns; a bigger one keeps its
// own for its next run. So a graph built for every run pays for its nodes'
// run state once for all the runs (until collections drop the pool), not
// once per build.
//
// Nodes are carved out of chunks the graph allocates per result type (8,
// 16, ... up to graphChunkMax nodes at once), so building n nodes costs
// O(n/graphChunkMax + log n) allocations for the nodes, not n; a chunk lives
// as long as any of its nodes is referenced. Edges are appended to one
// slice per graph while it is built: the index of each dependency, node
// after node (4 bytes an edge; the dependent is implied by the position);
// the first Run lays the dependents of all nodes out in one more slice of
// indices, node i's at a contiguous range (a counting sort by dependency),
// so the edges cost O(log e) allocations, not a slice per node.
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
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/core"
	"github.com/forkjoin-go/forkjoin/pool"
)

// Graph is a set of tasks with dependencies. Build it with AddNode, then
// Run it. A built Graph may be run again, any number of times, one run at a
// time: each run starts every node afresh (results, errors), so a plan made
// once can be executed per request or per frame without building it again.
// A Graph is not safe for concurrent building.
type Graph struct {
	nodes []*graphNode // in the order added; in scratch while the graph is built
	deps  []int32      // in scratch: the dependencies of every node, node by node, in the order added; the first Run sorts them into out
	out   []int32      // from the first Run: the indices of the dependents of every node, by node
	slabs []any        // a *graphSlab[T] per result type of the nodes added
	// scratch holds the storage nodes and deps grow in while the graph is
	// built (nil before the first AddNode and from the first Run on).
	scratch *graphScratch
	// tasks is the run state of every node (tasks.ts[i] is node i's)
	// during a Run; between Runs, a graph of more than graphTasksPooled
	// nodes keeps its zeroed array here, a smaller one has none.
	tasks   *graphTasks
	ran     bool         // Run was called: the graph is laid out and can no longer grow
	running atomic.Bool  // a Run is under way
	left    atomic.Int64 // sinks (nodes without dependents) not yet over during Run
	done    core.Completion
	// orphaned: the goroutine of a Run ended in runtime.Goexit before its
	// nodes were over; whichever comes last, that goroutine's deferred
	// call or the last sink, ends the Run (orphanOver).
	orphaned atomic.Bool
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

// NewGraph returns an empty Graph.
func NewGraph() *Graph { return &Graph{} }

// graphNode is the part of a node that lasts between runs.
type graphNode struct {
	body  graphBody // the *GraphNode[T] this is the first field of
	err   error
	index int32
	ndeps int32 // dependencies (an edge each, duplicates included)
	// The node's dependents are g.out[first:first+nout] once Run laid
	// them out; nout counts them while the graph is built.
	first, nout int32
	prio        Priority
	finished    atomic.Bool
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

// graphScratch is where a graph's list of nodes and its edges grow while
// it is built. The first Run copies the nodes to a slice of their exact
// number and sorts the edges into out, and hands the scratch on, emptied,
// to the next graph built (graphScratches): a graph built for every run
// does not pay again and again for the arrays that append's growth leaves
// behind.
type graphScratch struct {
	nodes []*graphNode
	deps  []int32
}

// graphScratches keeps emptied *graphScratch, each slice of a capacity up
// to graphScratchMax.
var graphScratches sync.Pool

// graphScratchMax is the largest capacity of a slice kept in
// graphScratches (512 KB of nodes, 256 KB of edges).
const graphScratchMax = 1 << 16

// graphTasks is an array of run state, boxed so that it goes in and out
// of graphTaskArrays without an allocation.
type graphTasks struct{ ts []graphTask }

// graphTaskArrays keeps zeroed *graphTasks for the Runs of graphs of up to
// graphTasksPooled nodes (see the file comment).
var graphTaskArrays sync.Pool

// graphTasksPooled is the most nodes of a graph whose run state comes from
// graphTaskArrays (about 600 KB of it).
const graphTasksPooled = 1 << 12

// graphBody is a *GraphNode[T]: it runs the node's function into its
// result, and clears the result between runs.
type graphBody interface {
	runFn(w *Worker) error
	clearValue()
}

// Dep is a node another node can depend on: any *GraphNode.
type Dep interface{ node() *graphNode }

// GraphNode is a task of a Graph with a result of type T.
type GraphNode[T any] struct {
	n   graphNode
	fn  func(w *Worker) (T, error)
	val T
}

func (gn *GraphNode[T]) node() *graphNode {
	if gn == nil {
		return nil
	}
	return &gn.n
}

// AddNode adds a task to g that runs fn once every node of deps has
// finished successfully; fn may read their results with Value. deps must
// be nodes of g (added earlier, so no cycle can be built). opts may set the
// priority (WithPriority); a context is given to RunCtx instead, and
// AddNode panics if opts hold one (WithContext).
func AddNode[T any](g *Graph, fn func(w *Worker) (T, error), deps []Dep, opts ...SpawnOption) *GraphNode[T] {
	if g == nil {
		panic("forkjoin: AddNode to a nil *Graph")
	}
	if g.ran {
		panic("forkjoin: AddNode on a Graph that has run (a Graph can be run again, but not grown)")
	}
	if fn == nil {
		panic("forkjoin: AddNode with a nil function")
	}
	if len(g.nodes) == math.MaxInt32 {
		panic("forkjoin: a Graph holds at most 2^31-1 nodes")
	}
	c := spawnOptions(opts)
	if c.ctx != nil {
		panic("forkjoin: AddNode with WithContext (a Graph's nodes run under the context given to Graph.RunCtx)")
	}
	prio := c.prio
	if g.scratch == nil {
		g.takeScratch()
	}
	for _, d := range deps {
		if d == nil || d.node() == nil {
			panic("forkjoin: AddNode with a nil dependency")
		}
		// A node of g is g.nodes[its index]: this also refuses a node
		// of another Graph (and a GraphNode not made by AddNode).
		if dn := d.node(); int(dn.index) >= len(g.nodes) || g.nodes[dn.index] != dn {
			panic("forkjoin: AddNode with a dependency from another Graph")
		}
	}
	gn := newGraphNode[T](g)
	gn.fn = fn
	n := &gn.n
	n.body, n.index, n.prio = gn, int32(len(g.nodes)), prio
	for _, d := range deps {
		dn := d.node()
		n.ndeps++
		dn.nout++
		g.deps = append(g.deps, dn.index)
	}
	g.nodes = append(g.nodes, n)
	return gn
}

// takeScratch gives g, being built, storage to grow its nodes and edges
// in: an emptied one of an earlier graph, or a new one.
func (g *Graph) takeScratch() {
	sc, _ := graphScratches.Get().(*graphScratch)
	if sc == nil {
		sc = &graphScratch{}
	}
	g.scratch, g.nodes, g.deps = sc, sc.nodes[:0], sc.deps[:0]
}

// dropScratch gives g's scratch, no longer used, back to graphScratches,
// emptied, unless it grew too big to keep.
func (g *Graph) dropScratch(nodes []*graphNode, deps []int32) {
	sc := g.scratch
	g.scratch = nil
	clear(nodes) // (the next graph must not keep these nodes alive)
	sc.nodes, sc.deps = nodes[:0], deps[:0]
	if cap(sc.nodes) > graphScratchMax {
		sc.nodes = nil
	}
	if cap(sc.deps) > graphScratchMax {
		sc.deps = nil
	}
	graphScratches.Put(sc)
}

// graphSlab is the chunk from which a Graph carves its nodes of result
// type T.
type graphSlab[T any] struct {
	free []GraphNode[T] // not yet handed out
	last int            // the bytes of the last chunk
}

// A Graph allocates its nodes of one type in chunks of graphChunkMin
// bytes, then twice as many, up to graphChunkMax, as many nodes as fit.
// The sizes are size classes of Go's allocator, whose objects of more than
// 512 bytes that hold pointers (as nodes do) carry a header of
// graphChunkHeader bytes: without counting it, a chunk of 32 nodes of 72
// bytes (2,304) took 2,688. At most a chunk's worth (4 KB) is left unused,
// whatever the number of nodes.
const (
	graphChunkMin    = 512
	graphChunkMax    = 4096
	graphChunkHeader = 8
)

// newGraphNode returns a zero node of g, from g's chunk for T.
func newGraphNode[T any](g *Graph) (gn *GraphNode[T]) {
	var sl *graphSlab[T]
	for _, s := range g.slabs {
		if x, ok := s.(*graphSlab[T]); ok {
			sl = x
			break
		}
	}
	if sl == nil {
		sl = &graphSlab[T]{}
		g.slabs = append(g.slabs, sl)
	}
	if len(sl.free) == 0 {
		sl.last = min(max(2*sl.last, graphChunkMin), graphChunkMax)
		room := sl.last
		if room > 512 {
			room -= graphChunkHeader
		}
		sl.free = make([]GraphNode[T], max(1, room/int(unsafe.Sizeof(*gn))))
	}
	gn = &sl.free[0]
	sl.free = sl.free[1:]
	return gn
}

// runFn runs the node's function into its result.
func (gn *GraphNode[T]) runFn(w *Worker) (err error) {
	gn.val, err = gn.fn(w)
	return err
}

// clearValue forgets the result of an earlier run.
func (gn *GraphNode[T]) clearValue() {
	var zero T
	gn.val = zero
}

// Value returns the node's result (of the latest run). It may be called
// by a dependent's function, or after Run returned; calling it before the
// node is over panics.
func (n *GraphNode[T]) Value() T {
	if !n.n.finished.Load() {
		panic("forkjoin: GraphNode.Value before the node has run")
	}
	return n.val
}

// Err returns the node's error after Run: the function's error, a
// *PanicError, a *DependencyError, or the context's error.
func (n *GraphNode[T]) Err() error { return n.n.err }

// DependencyError is the error of a node that did not run because a node it
// depends on failed.
type DependencyError struct {
	// Index is the failed dependency's position in the order of AddNode.
	Index int
	// Err is that dependency's error.
	Err error
}

// Error names the failed dependency and its error.
func (e *DependencyError) Error() string {
	return fmt.Sprintf("forkjoin: dependency %d failed: %v", e.Index, e.Err)
}

// Unwrap returns the dependency's error, for errors.Is and errors.As.
func (e *DependencyError) Unwrap() error { return e.Err }

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
	g.slabs = nil // no node is added after this
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
	if first {
		g.layoutDependents()
	} else {
		// A run again. The last one is over: each node did its last
		// write to the fields reset here before its dependents could run
		// (see the file comment), and its sinks are over.
		g.done.Reset()
		for _, n := range g.nodes {
			n.finished.Store(false)
			n.err = nil
			n.body.clearValue()
		}
	}
	ctxDone := ctx != nil && ctx.Done() != nil
	ts := g.takeTasks()
	sinks := 0
	for i, n := range g.nodes {
		t := &ts[i]
		t.n, t.g, t.depsLeft = n, g, n.ndeps
		t.st.initDone(s, n.prio, ctx, ctxDone, t)
		if n.nout == 0 {
			sinks++
		}
	}
	g.left.Store(int64(sinks))
	launched = true
	err := RunCtx(context.Background(), p, func(w *Worker) error {
		// The sources: the first of the highest priority is run here at
		// once (so that no other participant takes it while this one
		// looks for it and then parks; it is the one Wait would have
		// taken first from this participant's queues), the others are
		// queued in batches.
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
		w.wait(&g.done)
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
	// The nodes skipped because ctx was done all hold ctx.Err(): it is
	// reported once, where the first of them is.
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

// layoutDependents gives every node its dependents, in the order their
// edges were added, as a range of one slice (a counting sort of the edges
// by dependency), keeps the nodes in a slice of their exact number, and
// hands the scratch they were built in on.
func (g *Graph) layoutDependents() {
	built, deps := g.nodes, g.deps
	g.nodes = make([]*graphNode, len(built))
	copy(g.nodes, built)
	g.out = make([]int32, len(g.deps))
	off := int32(0)
	for _, n := range g.nodes {
		n.first = off
		off += n.nout
		n.nout = 0 // counted again below, as the range fills
	}
	for _, n := range g.nodes { // n's dependencies come next in deps
		for _, i := range deps[:n.ndeps] {
			d := g.nodes[i]
			g.out[d.first+d.nout] = n.index
			d.nout++
		}
		deps = deps[n.ndeps:]
	}
	g.dropScratch(built, g.deps)
	g.deps = nil
}

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

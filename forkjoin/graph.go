package forkjoin

// Graph: tasks with dependencies, run on the core as spawned tasks.
//
// A node may depend only on nodes added before it, so a Graph cannot have
// a cycle. Run counts, for every node, the dependencies it waits for and
// queues the nodes that wait for none. When a node is over, the worker that
// ran it decrements the counters of its dependents and queues, on its own
// queue, every dependent whose counter reached zero, then makes one wake-up
// decision for all of them: no coordinating goroutine, and a dependent
// usually runs where its inputs are hot in cache. A node whose dependency
// failed (error, panic or cancellation) is not run: it fails with a
// *DependencyError, and so do its dependents.
//
// Memory. A GraphNode[T] holds the spawned task, the function and the
// result, and is itself the task's body (no closure). Nodes are carved out
// of chunks the graph allocates per result type (8, 16, ... up to 256 nodes
// at once), so building n nodes costs O(log n) allocations for the nodes,
// not n; a chunk lives as long as any of its nodes is referenced. Edges
// are appended to one slice per graph while it is built (dependency index,
// dependent); Run lays the dependents of all nodes out in one more slice,
// node i's at a contiguous range (a counting sort by dependency), so the
// edges cost O(log e) allocations, not a slice per node.
//
// Ordering. A finishing node stores finished (Value's check) and its error
// before it decrements a dependent's counter; the decrement that reaches
// zero queues the dependent, and queueing publishes the task (deque
// atomics, sequentially consistent), so the dependent's function sees its
// dependencies' results and errors. The node's error is written before the
// graph's count of sinks left is decremented (only nodes without
// dependents count); the decrement that reaches zero completes the graph's
// Completion, after which Run reads every node's error. Counting sinks is
// enough: a sink is over only after each of its dependencies made its last
// decrement of the sink's counter, and by induction every node is then over
// except for the tail of over in a node with dependents (the wake-up
// decision after its decrements, and afterSpawn's counting on its worker),
// which touches neither the graph nor any node's result. Only one shared
// counter is touched per sink instead of one per node.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/pool"
)

// Graph is a set of tasks with dependencies. Build it with AddNode, then
// Run it (once). A Graph is not safe for concurrent building.
type Graph struct {
	nodes []*graphNode
	edges []graphEdge  // in the order added; Run sorts them into out
	out   []*graphNode // from Run: the dependents of every node, by node
	slabs []any        // a *graphSlab[T] per result type of the nodes added
	ran   bool
	left  atomic.Int64 // sinks (nodes without dependents) not yet over during Run
	done  Completion
}

// graphEdge says that node `to` depends on the node of index from.
type graphEdge struct {
	from int32
	to   *graphNode
}

// NewGraph returns an empty Graph.
func NewGraph() *Graph { return &Graph{} }

type graphNode struct {
	st    spawnTask // first field
	g     *Graph
	index int32
	ndeps int32 // dependencies (an edge each, duplicates included)
	// The node's dependents are g.out[first:first+nout] once Run laid
	// them out; nout counts them while the graph is built.
	first, nout int32
	waiting     atomic.Int32 // dependencies not yet over, during Run
	finished    atomic.Bool
	depFailed   atomic.Pointer[graphNode]
	err         error
}

// Dep is a node another node can depend on: any *GraphNode.
type Dep interface{ node() *graphNode }

// GraphNode is a task of a Graph with a result of type T.
type GraphNode[T any] struct {
	n   graphNode
	fn  func(w *Worker) (T, error)
	val T
}

func (gn *GraphNode[T]) node() *graphNode { return &gn.n }

// AddNode adds a task to g that runs fn once every node of deps has
// finished successfully; fn may read their results with Value. deps must
// be nodes of g (added earlier, so no cycle can be built). opts may set the
// priority (WithPriority); a context is given to Run instead.
func AddNode[T any](g *Graph, fn func(w *Worker) (T, error), deps []Dep, opts ...SpawnOption) *GraphNode[T] {
	if g.ran {
		panic("forkjoin: AddNode on a Graph that has run")
	}
	if fn == nil {
		panic("forkjoin: AddNode with a nil function")
	}
	gn := newGraphNode[T](g)
	gn.fn = fn
	n := &gn.n
	if len(g.nodes) == math.MaxInt32 {
		panic("forkjoin: a Graph holds at most 2^31-1 nodes")
	}
	n.g, n.index = g, int32(len(g.nodes))
	// The task's priority and body, kept in it until Run initialises it.
	n.st.prio, n.st.body = spawnOptions(opts).prio, gn
	for _, d := range deps {
		dn := d.node()
		if dn.g != g {
			panic("forkjoin: AddNode with a dependency from another Graph")
		}
		n.ndeps++
		dn.nout++
		g.edges = append(g.edges, graphEdge{from: dn.index, to: n})
	}
	g.nodes = append(g.nodes, n)
	return gn
}

// graphSlab is the chunk from which a Graph carves its nodes of result
// type T.
type graphSlab[T any] struct {
	free []GraphNode[T] // not yet handed out
	last int            // the size of the last chunk
}

// graphChunkMax is the most nodes a Graph allocates at once.
const graphChunkMax = 256

// newGraphNode returns a zero node of g, from g's chunk for T.
func newGraphNode[T any](g *Graph) *GraphNode[T] {
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
		sl.last = min(max(2*sl.last, 8), graphChunkMax)
		sl.free = make([]GraphNode[T], sl.last)
	}
	gn := &sl.free[0]
	sl.free = sl.free[1:]
	return gn
}

// run is the node's task: fn, unless a dependency failed.
func (gn *GraphNode[T]) run(w *Worker) {
	n := &gn.n
	if d := n.depFailed.Load(); d != nil {
		n.err = &DependencyError{Index: int(d.index), Err: d.err}
		return
	}
	gn.val, n.err = gn.fn(w)
}

func (gn *GraphNode[T]) over(w *Worker, err error) {
	gn.fn = nil
	gn.n.over(w, err)
}

// Value returns the node's result. It may be called by a dependent's
// function, or after Run returned; calling it before the node is over
// panics.
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
// dependency), joined with errors.Join in the order nodes were added.
func (g *Graph) Run(p *pool.Pool) error { return g.RunCtx(context.Background(), p) }

// RunCtx is Run with a context: nodes not yet started when ctx is done are
// skipped (their error is ctx.Err()), running ones see ctx through their
// Worker.
func (g *Graph) RunCtx(ctx context.Context, p *pool.Pool) error {
	if g.ran {
		panic("forkjoin: a Graph runs once")
	}
	g.ran = true
	g.slabs = nil // no node is added after this
	if len(g.nodes) == 0 {
		return nil
	}
	s := schedulerOf(p)
	g.layoutDependents()
	sinks := 0
	for _, n := range g.nodes {
		n.waiting.Store(n.ndeps)
		n.st.init(s, n.st.prio, ctx, n.st.body)
		if n.nout == 0 {
			sinks++
		}
	}
	g.left.Store(int64(sinks))
	err := RunCtx(context.Background(), p, func(w *Worker) error {
		k := 0
		for _, n := range g.nodes {
			if n.ndeps == 0 {
				s.queueLocal(w, &n.st)
				k++
			}
		}
		if k > 0 {
			s.wakeForNew()
		}
		w.Wait(&g.done)
		return nil
	})
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range g.nodes {
		if n.err != nil && !isDependencyError(n.err) {
			errs = append(errs, n.err)
		}
	}
	return errors.Join(errs...)
}

// isDependencyError reports whether err is a *DependencyError. (Kept apart:
// errors.As makes its target escape, an allocation Run pays only for
// nodes that failed.)
func isDependencyError(err error) bool {
	var de *DependencyError
	return errors.As(err, &de)
}

// layoutDependents gives every node its dependents, in the order their
// edges were added, as a range of one slice: a counting sort of the edges
// by dependency.
func (g *Graph) layoutDependents() {
	g.out = make([]*graphNode, len(g.edges))
	off := int32(0)
	for _, n := range g.nodes {
		n.first = off
		off += n.nout
		n.nout = 0 // counted again below, as the range fills
	}
	for _, e := range g.edges {
		d := g.nodes[e.from]
		g.out[d.first+d.nout] = e.to
		d.nout++
	}
	g.edges = nil
}

// over runs on the worker that ran the node (or skipped it): it launches
// the dependents this node was the last to wait for, queued on w's own
// queues with one wake-up decision for all of them.
func (n *graphNode) over(w *Worker, err error) {
	if err != nil && n.err == nil {
		n.err = err
	}
	n.finished.Store(true)
	s := n.st.rs.sched
	launched := false
	deps := n.g.out[n.first : n.first+n.nout]
	for _, d := range deps {
		if n.err != nil {
			d.depFailed.CompareAndSwap(nil, n)
		}
		if d.waiting.Add(-1) == 0 {
			s.queueLocal(w, &d.st)
			launched = true
		}
	}
	if launched {
		s.wakeForNew()
	}
	if len(deps) == 0 && n.g.left.Add(-1) == 0 {
		n.g.done.Complete() // Run may return: nothing is touched after
	}
}

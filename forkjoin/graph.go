package forkjoin

// Graph: tasks with dependencies. This file builds a Graph (its nodes,
// their edges, and where they are kept); graphrun.go runs it.
//
// A node may depend only on nodes added before it, so a Graph cannot have
// a cycle.
//
// Memory. A node is kept in two parts. What lasts from one run to the next
// is small: a GraphNode[T] holds the function, the result, the error and
// the node's place among the edges (its graphNode). What a node needs only
// while a run is under way, the spawned task and its counts of
// dependencies over and failed, is a graphTask, one per node in an array
// the run borrows (see graphrun.go). So a graph built for every run pays
// for its nodes' run state once for all the runs, not once per build.
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

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/core"
)

// Graph is a set of tasks with dependencies. Build it with AddNode, then
// Run it. A built Graph may be run again, any number of times, one run at a
// time: each run starts every node afresh (results, errors), so a plan made
// once can be executed per request or per frame without building it again.
// A Graph is not safe for concurrent building.
type Graph struct {
	nodes  []*graphNode // in the order added; in scratch while the graph is built
	deps   []int32      // in scratch: the dependencies of every node, node by node, in the order added; the first Run sorts them into out
	out    []int32      // from the first Run: the indices of the dependents of every node, by node
	chunks []any        // a *graphNodeChunk[T] per result type of the nodes added
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
	fam     family // the nodes' family: what Run may run while it waits (family.go)
	// orphaned: the goroutine of a Run ended in runtime.Goexit before its
	// nodes were over; whichever comes last, that goroutine's deferred
	// call or the last sink, ends the Run (orphanOver).
	orphaned atomic.Bool
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

// graphNodeChunk is the chunk from which a Graph carves its nodes of
// result type T.
type graphNodeChunk[T any] struct {
	free []GraphNode[T] // not yet handed out
	last int            // the bytes of the last chunk
}

// A Graph allocates its nodes of one type in chunks of graphChunkMin
// bytes, then twice as many, up to graphChunkMax, as many nodes as fit.
// The sizes are size classes of Go's allocator, whose objects of more than
// 512 bytes that hold pointers (as nodes do) carry a header of
// graphChunkHeader bytes: the nodes of a chunk leave room for it, so that
// the chunk stays in its size class instead of taking the next one up. At
// most a chunk's worth (4 KB) is left unused, whatever the number of nodes.
const (
	graphChunkMin    = 512
	graphChunkMax    = 4096
	graphChunkHeader = 8
)

// newGraphNode returns a zero node of g, from g's chunk for T.
func newGraphNode[T any](g *Graph) (gn *GraphNode[T]) {
	var chunk *graphNodeChunk[T]
	for _, c := range g.chunks {
		if x, ok := c.(*graphNodeChunk[T]); ok {
			chunk = x
			break
		}
	}
	if chunk == nil {
		chunk = &graphNodeChunk[T]{}
		g.chunks = append(g.chunks, chunk)
	}
	if len(chunk.free) == 0 {
		chunk.last = min(max(2*chunk.last, graphChunkMin), graphChunkMax)
		room := chunk.last
		if room > 512 {
			room -= graphChunkHeader
		}
		chunk.free = make([]GraphNode[T], max(1, room/int(unsafe.Sizeof(*gn))))
	}
	gn = &chunk.free[0]
	chunk.free = chunk.free[1:]
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

package forkjoin

// Graph: tasks with dependencies, run on the core as spawned tasks.
//
// A node may depend only on nodes added before it, so a Graph cannot have
// a cycle. Run counts, for every node, the dependencies it waits for and
// queues the nodes that wait for none. When a node is over, the worker that
// ran it decrements the counters of its dependents and queues, on its own
// queue, every dependent whose counter reached zero: no coordinating
// goroutine, and a dependent usually runs where its inputs are hot in
// cache. A node whose dependency failed (error, panic or cancellation) is
// not run: it fails with a *DependencyError, and so do its dependents.

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/pool"
)

// Graph is a set of tasks with dependencies. Build it with AddNode, then
// Run it (once). A Graph is not safe for concurrent building.
type Graph struct {
	nodes []*graphNode
	ran   bool
	left  atomic.Int64 // nodes not yet over during Run
	done  Completion
}

// NewGraph returns an empty Graph.
func NewGraph() *Graph { return &Graph{} }

type graphNode struct {
	st         spawnTask // first field
	g          *Graph
	index      int
	deps       []*graphNode
	dependents []*graphNode
	waiting    atomic.Int64
	depFailed  atomic.Pointer[graphNode]
	err        error
	finished   atomic.Bool
	call       func(w *Worker) error
	prio       Priority
}

// Dep is a node another node can depend on: any *GraphNode.
type Dep interface{ node() *graphNode }

// GraphNode is a task of a Graph with a result of type T.
type GraphNode[T any] struct {
	n   graphNode
	val T
}

func (n *GraphNode[T]) node() *graphNode { return &n.n }

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
	gn := &GraphNode[T]{}
	n := &gn.n
	n.g, n.index, n.prio = g, len(g.nodes), spawnOptions(opts).prio
	n.call = func(w *Worker) error {
		v, err := fn(w)
		gn.val = v
		return err
	}
	for _, d := range deps {
		dn := d.node()
		if dn.g != g {
			panic("forkjoin: AddNode with a dependency from another Graph")
		}
		n.deps = append(n.deps, dn)
		dn.dependents = append(dn.dependents, n)
	}
	g.nodes = append(g.nodes, n)
	return gn
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
	if len(g.nodes) == 0 {
		return nil
	}
	s := schedulerOf(p)
	g.left.Store(int64(len(g.nodes)))
	for _, n := range g.nodes {
		n.waiting.Store(int64(len(n.deps)))
		n.st.init(s, n.prio, ctx, n)
	}
	err := RunCtx(context.Background(), p, func(w *Worker) error {
		for _, n := range g.nodes {
			if len(n.deps) == 0 {
				s.submit(w, &n.st)
			}
		}
		w.Wait(&g.done)
		return nil
	})
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range g.nodes {
		var de *DependencyError
		if n.err != nil && !errors.As(n.err, &de) {
			errs = append(errs, n.err)
		}
	}
	return errors.Join(errs...)
}

func (n *graphNode) run(w *Worker) {
	if d := n.depFailed.Load(); d != nil {
		n.err = &DependencyError{Index: d.index, Err: d.err}
		return
	}
	n.err = n.call(w)
}

func (n *graphNode) over(w *Worker, err error) {
	if err != nil && n.err == nil {
		n.err = err
	}
	n.call = nil
	n.finished.Store(true)
	for _, d := range n.dependents {
		if n.err != nil {
			d.depFailed.CompareAndSwap(nil, n)
		}
		if d.waiting.Add(-1) == 0 {
			n.st.rs.sched.submit(w, &d.st)
		}
	}
	if n.g.left.Add(-1) == 0 {
		n.g.done.Complete()
	}
}

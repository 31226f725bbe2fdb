package fold

// RunDAG in three phases.
//
//  1. Discovery, in parallel: a walk of the graph that expands each
//     distinct key once. Every node gets an entry (a map from key to entry
//     shared by all participants; the first to store a key claims it and
//     is the only one to list its children). An entry records its children
//     as entries, in order and with repetitions.
//  2. Checking, on the caller: a depth-first search over the entries (no
//     user code runs) finds a cycle, or computes for each entry the number
//     of child occurrences it waits for and the list of its parents.
//  3. Folding, in parallel, bottom up: every entry without children is a
//     ready task. A task runs the node's Init, then Accumulate for each
//     child occurrence in order (all its children are finished), then
//     Finalize, and then decrements its parents' counters; a parent whose
//     counter reaches zero is pushed as a task by the participant that
//     finished its last child. The run ends when the root's task is done.
//
// So each key is folded exactly once however many parents reach it and
// however many participants discover it at once, results reach every
// parent in its child order, and a cycle is reported before any Init runs.
// The price is memory: an entry per key and a pointer per edge, kept until
// RunDAG returns.

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

type dagNode[N, H, R any, K comparable] struct {
	task    forkjoin.Task // first field: *forkjoin.Task converts back
	run     *dagRun[N, H, R, K]
	node    N
	key     K
	kids    []*dagNode[N, H, R, K] // written only by the claimant, in phase 1
	parents []*dagNode[N, H, R, K] // one per occurrence; phase 2
	pending atomic.Int64           // child occurrences not yet finished
	res     R
	color   uint8 // phase 2's depth-first search
}

type dagRun[N, H, R any, K comparable] struct {
	f       Fold[N, H, R]
	g       tree.Treeish[N]
	key     func(N) K
	entries sync.Map // K -> *dagNode
	root    *dagNode[N, H, R, K]
	done    core.Completion
	failed  atomic.Bool

	// live counts the node tasks pushed and not over. After a failure the
	// root's waiter is woken at once (fail), while tasks that other
	// participants started may still be in callbacks: RunDAG waits for
	// live to reach zero (drain) before it returns, so that no callback
	// runs after it.
	live     atomic.Int64
	draining atomic.Bool
	drained  core.Completion
}

// RunDAG folds the directed acyclic graph below root in parallel on p,
// computing each distinct key once. It returns the same result as
// SeqDAG(f, g, root, key): a node's result is accumulated into every parent
// that lists a node with its key, in each parent's child order, so
// Accumulate must not modify what a child's result points to. That holds
// when a key identifies a node; if different nodes share a key, RunDAG
// folds whichever of them its parallel discovery reaches first (with its
// children), where SeqDAG folds the first in depth-first order.
//
// If the graph has a cycle, RunDAG returns a *CycleError[K] naming a node
// on it, before any Init runs. A panic in a callback is returned as a
// *forkjoin.PanicError; ctx cancels the fold as in RunCtx. Either way, no
// callback runs after RunDAG returns.
//
// g is called once per distinct key, possibly from several goroutines at
// once. Memory: an entry per distinct key and a pointer per edge, kept
// until RunDAG returns; unlike Run, Init runs bottom-up (a node's Init just
// before its Accumulate calls, once all its children are finished).
func RunDAG[N, H, R any, K comparable](ctx context.Context, p *pool.Pool, f Fold[N, H, R], g tree.Treeish[N], root N, key func(N) K) (R, error) {
	var zero R
	if ctx == nil {
		panic("fold: RunDAG with a nil context")
	}
	mustCheck("fold.RunDAG", f, g)
	mustNotNil("fold.RunDAG", []string{"key"}, key == nil)
	d := &dagRun[N, H, R, K]{f: f, g: g, key: key}
	var res R
	err := forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
		d.discover(w, root)
		leaves, err := d.check()
		if err != nil {
			return err
		}
		defer d.drain(w) // also when a node's panic unwinds the Wait below
		for _, e := range leaves {
			d.push(w, e)
		}
		core.Wait(w, &d.done)
		if d.failed.Load() {
			w.Abort(nil) // the failure is on record; see runNode
		}
		res = d.root.res
		return nil
	})
	if err != nil {
		return zero, err
	}
	return res, nil
}

func (d *dagRun[N, H, R, K]) entry(n N) (e *dagNode[N, H, R, K], claimed bool) {
	k := d.key(n)
	if v, ok := d.entries.Load(k); ok {
		return v.(*dagNode[N, H, R, K]), false
	}
	e = &dagNode[N, H, R, K]{run: d, node: n, key: k}
	v, loaded := d.entries.LoadOrStore(k, e)
	return v.(*dagNode[N, H, R, K]), !loaded
}

// discover is phase 1: a parallel walk that lists the children of every
// claimed entry and descends only into the children it claims.
func (d *dagRun[N, H, R, K]) discover(w *forkjoin.Worker, root N) {
	d.root, _ = d.entry(root)
	ops := &walk.Ops[N, *dagNode[N, H, R, K], struct{}]{
		Init: func(n N) *dagNode[N, H, R, K] {
			e, _ := d.entry(n) // claimed by whoever yielded n
			return e
		},
		Accumulate: func(**dagNode[N, H, R, K], struct{}) {},
		Finalize:   func(**dagNode[N, H, R, K]) struct{} { return struct{}{} },
		Children: func(n N, yield func(N) bool) {
			e, _ := d.entry(n)
			d.g(n, func(c N) bool {
				ce, claimed := d.entry(c)
				e.kids = append(e.kids, ce)
				if claimed {
					return yield(c)
				}
				return true
			})
		},
	}
	walk.Run(w, ops, root)
}

// check is phase 2: an iterative depth-first search from the root that
// reports a cycle, links parents, sets the counters and returns the
// entries without children.
func (d *dagRun[N, H, R, K]) check() ([]*dagNode[N, H, R, K], error) {
	const (
		white = iota
		grey
		black
	)
	type frame struct {
		e    *dagNode[N, H, R, K]
		next int
	}
	var leaves []*dagNode[N, H, R, K]
	stack := []frame{{e: d.root}}
	d.root.color = grey
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.e.kids) {
			c := top.e.kids[top.next]
			top.next++
			c.parents = append(c.parents, top.e)
			switch c.color {
			case grey:
				i := len(stack) - 1
				for stack[i].e != c { // c is grey: on the stack
					i--
				}
				cycle := make([]K, 0, len(stack)-i)
				for _, f := range stack[i:] {
					cycle = append(cycle, f.e.key)
				}
				return nil, &CycleError[K]{Key: c.key, Cycle: cycle}
			case white:
				c.color = grey
				stack = append(stack, frame{e: c})
			}
			continue
		}
		e := top.e
		e.color = black
		e.pending.Store(int64(len(e.kids)))
		if len(e.kids) == 0 {
			leaves = append(leaves, e)
		}
		e.task.Init(runNode[N, H, R, K])
		stack = stack[:len(stack)-1]
	}
	return leaves, nil
}

// runNode is phase 3's task: fold one entry whose children are finished,
// then release its parents.
func runNode[N, H, R any, K comparable](w *forkjoin.Worker, t *forkjoin.Task) {
	e := (*dagNode[N, H, R, K])(unsafe.Pointer(t))
	d := e.run
	defer d.over() // last: after the callbacks and the pushes of parents
	if w.Cancelled() || d.failed.Load() {
		d.fail()
		return
	}
	ok := false
	defer func() {
		if !ok {
			v := recover()
			d.fail()
			if v == nil {
				// runtime.Goexit: it goes on unwinding; the run
				// fails with ErrGoexit and the stack of the call.
				core.RecordPanic(w, forkjoin.ErrGoexit)
				return
			}
			core.RecordPanic(w, v)
			panic(v)
		}
	}()
	h := d.f.Init(e.node)
	for _, c := range e.kids {
		d.f.Accumulate(&h, c.res)
	}
	e.res = d.f.Finalize(&h)
	ok = true
	if e == d.root {
		d.done.Complete()
		return
	}
	for _, p := range e.parents {
		if p.pending.Add(-1) == 0 {
			d.push(w, p)
		}
	}
}

// push makes e's task available to the run's participants, counted in
// live until it is over.
func (d *dagRun[N, H, R, K]) push(w *forkjoin.Worker, e *dagNode[N, H, R, K]) {
	d.live.Add(1)
	core.Push(w, &e.task)
}

// over counts a node task out of live.
func (d *dagRun[N, H, R, K]) over() {
	if d.live.Add(-1) == 0 && d.draining.Load() {
		d.drained.Complete()
	}
}

// drain waits, helping, until no node task is live. After a success there
// is none but the root's, which is over but for its count; after a failure
// the others return at once (runNode sees the failure) or finish the
// callback they are in. live is read after draining is set, and over reads
// draining after its count: whichever comes second sees the other.
func (d *dagRun[N, H, R, K]) drain(w *forkjoin.Worker) {
	if d.live.Load() == 0 {
		return
	}
	d.draining.Store(true)
	if d.live.Load() == 0 {
		return
	}
	core.Wait(w, &d.drained)
}

// fail wakes the root's waiter once the run cannot finish.
func (d *dagRun[N, H, R, K]) fail() {
	if !d.failed.Swap(true) {
		d.done.Complete()
	}
}

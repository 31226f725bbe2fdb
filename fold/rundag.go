package fold

// RunDAG in three phases.
//
//  1. Discovery, in parallel. Every distinct key gets a dagNode: the
//     participant that first inserts a key into the shared key map
//     (dagKeys) claims it, and only the claimant calls g on its node and
//     records its children, as nodes, in order and with repetitions. Each
//     participant keeps the claimed nodes it has yet to expand on a stack
//     of its own and, when another participant asks for work, pushes the
//     older half of that stack as a task (unasked, before each node, while
//     nodes are slow: dagPace).
//  2. Checking, on the caller: a depth-first search over the nodes (no
//     user code runs) finds a cycle, or gives each node its parent
//     occurrences and its counter of child occurrences, and lists the
//     nodes without children. The search keeps its path in the nodes
//     themselves (a node's parent field is the node it was reached from,
//     its pos field the next child to visit), so it needs no stack however
//     deep the graph is.
//  3. Folding, in parallel, bottom up, from the nodes without children.
//     Folding a node runs Init, Accumulate for each child occurrence in
//     order (all its children are folded), then Finalize, and then takes
//     one off each parent's counter; the participant that brings a counter
//     to 0 folds that parent next, or keeps it on its stack when it already
//     has one to go on with. Stacks are shared out on request as in phase
//     1. The run ends when the root is folded.
//
// Why it is right: a key is claimed once (its map insert happens once, under
// the shard's mutex), so g runs once per key and each key has one node. The
// check makes the counters count every child occurrence, and a node is
// folded by the one participant whose decrement brings its counter from 1
// to 0, so Init runs once per key, after all its children's Finalize (the
// atomic decrements order their results before it), and never
// concurrently for one key. A cycle is reported before any Init runs.
// Every task pushed is counted until it is over, and RunDAG waits for each
// phase's count to reach 0, so no callback runs after it returns, and no
// discovery is going on when the check starts. Nothing recurses on the
// goroutine stack, so depth is bounded by memory only.
//
// Cancellation: a participant looks at its poll word before every node
// (core.Poll), which the core lowers when the run is canceled; the core
// learns of a done context from a goroutine of the context's, which may
// wait for a processor while every worker is busy, so each phase's loop
// also looks at the context itself (checkRun) at its first node and every
// ctxEvery nodes after.
//
// Memory: a node per key, a pointer per child occurrence and a link per
// additional parent occurrence, carved out of chunks (dagstore.go) and kept
// until RunDAG returns, besides the key map.

import (
	"context"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

type dagRun[N, H, R any, K comparable] struct {
	f     Fold[N, H, R]
	g     tree.Treeish[N]
	key   func(N) K
	keys  dagKeys[N, R, K]
	root  *dagNode[N, R]
	links dagLinks[N, R] // additional parent occurrences; phase 2

	failed atomic.Bool
	done   core.Completion // the root is folded, or the run failed

	disc, fold dagPhase

	// discoverTask and foldTask for this run's types, made once (a
	// generic function used as a value is a closure over its
	// dictionary)
	discoverFn, foldFn func(*forkjoin.Worker, *forkjoin.Task)
}

// dagTask is a share of a participant's stack, pushed for others to take.
type dagTask[N, H, R any, K comparable] struct {
	task  forkjoin.Task // first field: *forkjoin.Task converts back
	run   *dagRun[N, H, R, K]
	nodes []*dagNode[N, R]
	eager bool // the giver's dagPace was eager: nodes are slow
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
	d := &dagRun[N, H, R, K]{f: f, g: g, key: key,
		discoverFn: discoverTask[N, H, R, K], foldFn: foldTask[N, H, R, K]}
	var res R
	err := core.Run(ctx, p, "fold.RunDAG", func(w *forkjoin.Worker) error {
		return d.run(w, root, &res)
	})
	if err != nil {
		return zero, err
	}
	return res, nil
}

// run is RunDAG's root task: the three phases, on the caller's
// participant.
func (d *dagRun[N, H, R, K]) run(w *forkjoin.Worker, root N, res *R) error {
	// The drains come last, also when a panic unwinds the phases.
	defer d.disc.drain(w)
	defer d.fold.drain(w)
	ok := false
	defer func() {
		if !ok {
			d.abandon(w, recover())
		}
	}()
	d.keys.init(w.Parallelism())
	x := &dagDiscoverer[N, H, R, K]{d: d}
	d.root, _ = d.keys.claim(d.key(root), root)
	x.stack = append(x.stack, d.root)
	x.run(w, true)
	d.disc.drain(w)
	if d.failed.Load() || w.Canceled() {
		ok = true
		w.Abort(nil) // a failure is on record, or the run was canceled
	}
	leaves, err := d.check()
	if err != nil {
		ok = true
		return err
	}
	d.foldNodes(w, leaves, true)
	core.Wait(w, &d.done)
	ok = true
	if d.failed.Load() {
		w.Abort(nil)
	}
	*res = d.root.res
	return nil
}

// dagDiscoverer is one participant's share of phase 1.
type dagDiscoverer[N, H, R any, K comparable] struct {
	d     *dagRun[N, H, R, K]
	stack []*dagNode[N, R] // claimed, not yet expanded
	kids  []*dagNode[N, R] // the children of the node being expanded
	arena dagArena[N, R]
}

// yield records a child of the node being expanded, claiming its key if
// nobody has.
func (x *dagDiscoverer[N, H, R, K]) yield(c N) bool {
	e, claimed := x.d.keys.claim(x.d.key(c), c)
	x.kids = append(x.kids, e)
	if claimed {
		x.stack = append(x.stack, e)
	}
	return true
}

// run expands the nodes on the stack until it is empty, sharing out the
// older half of it when asked.
func (x *dagDiscoverer[N, H, R, K]) run(w *forkjoin.Worker, eager bool) {
	d := x.d
	yield := x.yield
	poll := core.PollOf(w)
	pace := newDAGPace(w, eager)
	ticks := 0
	for len(x.stack) > 0 {
		if ticks%ctxEvery == 0 {
			checkRun(w) // see dagRun's header
		}
		ticks++
		e := x.stack[len(x.stack)-1]
		x.stack = x.stack[:len(x.stack)-1]
		if pace.eager {
			x.stack = d.give(w, &d.disc, d.discoverFn, x.stack, (len(x.stack)+1)/2, true)
		}
		d.g.Each(e.node, yield)
		e.kids, x.kids = x.arena.keep(x.kids)
		pace.tick()
		if poll.WorkRequested() {
			x.stack = d.give(w, &d.disc, d.discoverFn, x.stack, len(x.stack)/2, pace.eager)
		}
	}
}

// discoverTask is phase 1's task: expand a share of someone's stack.
func discoverTask[N, H, R any, K comparable](w *forkjoin.Worker, t *forkjoin.Task) {
	dt := (*dagTask[N, H, R, K])(unsafe.Pointer(t)) // unsafe.Pointer rule (1): t is dagTask's first field
	d := dt.run
	defer d.disc.over()
	if d.failed.Load() || w.Canceled() {
		return
	}
	ok := false
	defer func() {
		if !ok {
			d.abandon(w, recover())
		}
	}()
	x := &dagDiscoverer[N, H, R, K]{d: d, stack: dt.nodes}
	x.run(w, dt.eager)
	ok = true
}

// check is phase 2: an iterative depth-first search from the root in
// child order, whose path is the chain of parent fields from the node on
// top. It reports the first cycle it meets, links every parent occurrence,
// sets the counters and returns the nodes without children.
func (d *dagRun[N, H, R, K]) check() ([]*dagNode[N, R], error) {
	var leaves []*dagNode[N, R]
	top := d.root
	top.pos = 1
	for top != nil {
		if i := top.pos - 1; i < len(top.kids) {
			top.pos++
			c := top.kids[i]
			switch {
			case c.pos == 0: // first reached: descend
				c.parent, c.pos, top = top, 1, c
			case c.pos > 0: // on the path
				return nil, d.cycleError(top, c)
			default: // finished: another parent occurrence
				d.links.add(c, top)
			}
			continue
		}
		top.pos = -1
		top.pending.Store(int64(len(top.kids)))
		if len(top.kids) == 0 {
			leaves = append(leaves, top)
		}
		top = top.parent
	}
	return leaves, nil
}

// cycleError reports the cycle closed by the edge from top to c, which is
// on the search's path: the path from c to top, in order.
func (d *dagRun[N, H, R, K]) cycleError(top, c *dagNode[N, R]) *CycleError[K] {
	n := 1
	for e := top; e != c; e = e.parent {
		n++
	}
	cycle := make([]K, n)
	for e := top; n > 0; e = e.parent {
		n--
		cycle[n] = d.key(e.node)
	}
	return &CycleError[K]{Key: cycle[0], Cycle: cycle}
}

// foldNodes is phase 3 on one participant: fold the nodes on the stack and
// every parent they make ready, sharing out the older half of the stack
// when asked.
func (d *dagRun[N, H, R, K]) foldNodes(w *forkjoin.Worker, stack []*dagNode[N, R], eager bool) {
	init, acc, fin := d.f.Init, d.f.Accumulate, d.f.Finalize
	poll := core.PollOf(w)
	pace := newDAGPace(w, eager)
	h := new(H) // the heap of the node being folded
	var zero H
	ticks := 0
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for e != nil {
			if d.failed.Load() {
				return
			}
			if ticks%ctxEvery == 0 {
				checkRun(w) // see dagRun's header
			}
			ticks++
			if pace.eager {
				stack = d.give(w, &d.fold, d.foldFn, stack, (len(stack)+1)/2, true)
			}
			*h = init(e.node)
			for _, c := range e.kids {
				acc(h, c.res)
			}
			e.res = fin(h)
			*h = zero
			if e == d.root {
				d.done.Complete()
				return
			}
			e, stack = d.release(e, stack)
			pace.tick()
			if poll.WorkRequested() {
				n := len(stack) / 2
				if e != nil {
					n = (len(stack) + 1) / 2
				}
				stack = d.give(w, &d.fold, d.foldFn, stack, n, pace.eager)
			}
		}
	}
}

// release takes e's occurrences off its parents' counters. It returns a
// parent made ready, to fold next, and the stack with any others.
func (d *dagRun[N, H, R, K]) release(e *dagNode[N, R], stack []*dagNode[N, R]) (*dagNode[N, R], []*dagNode[N, R]) {
	var next *dagNode[N, R]
	if e.parent.pending.Add(-1) == 0 {
		next = e.parent
	}
	for l := e.more; l != nil; l = l.next {
		if l.parent.pending.Add(-1) == 0 {
			if next == nil {
				next = l.parent
			} else {
				stack = append(stack, l.parent)
			}
		}
	}
	return next, stack
}

// foldTask is phase 3's task: fold a share of someone's stack.
func foldTask[N, H, R any, K comparable](w *forkjoin.Worker, t *forkjoin.Task) {
	dt := (*dagTask[N, H, R, K])(unsafe.Pointer(t)) // rule (1), as in discoverTask
	d := dt.run
	defer d.fold.over() // last: after the callbacks
	if d.failed.Load() || w.Canceled() {
		d.fail()
		return
	}
	ok := false
	defer func() {
		if !ok {
			d.abandon(w, recover())
		}
	}()
	d.foldNodes(w, dt.nodes, dt.eager)
	ok = true
}

// give pushes the n oldest nodes of stack, if n > 0, as a task of phase
// ph running fn, and returns the rest of the stack. The two never share
// an element: the task's slice has no room beyond its own. eager is the
// giver's pace, which the task starts with.
func (d *dagRun[N, H, R, K]) give(w *forkjoin.Worker, ph *dagPhase, fn func(*forkjoin.Worker, *forkjoin.Task), stack []*dagNode[N, R], n int, eager bool) []*dagNode[N, R] {
	if n <= 0 {
		return stack
	}
	t := &dagTask[N, H, R, K]{run: d, nodes: stack[:n:n], eager: eager}
	t.task.Init(fn)
	ph.live.Add(1)
	core.Push(w, &t.task)
	return stack[n:]
}

// dagPace decides when a participant shares its stack unasked. Work is
// shared when another participant asks, at the next node boundary; while
// nodes take long (a callback that downloads, a g that reads a
// directory), the asker would wait a whole node for its answer, so then
// the participant gives half of its stack away before each node. It looks
// at the clock after every node while it is eager and after every
// paceEvery nodes otherwise. On a pool of parallelism above 1 the caller
// starts each phase eager (nothing is known yet), and a task starts as
// its giver was when it gave it.
type dagPace struct {
	eager    bool
	parallel bool
	count    int
	last     time.Time
}

const (
	paceSlow  = 20 * time.Microsecond // a node this long on average is slow
	paceEvery = 16
)

func newDAGPace(w *forkjoin.Worker, eager bool) dagPace {
	if w.Parallelism() == 1 {
		return dagPace{}
	}
	return dagPace{eager: eager, parallel: true, last: time.Now()}
}

// tick counts a node done.
func (p *dagPace) tick() {
	p.count++
	if !p.parallel || !p.eager && p.count < paceEvery {
		return
	}
	now := time.Now()
	p.eager = now.Sub(p.last) >= paceSlow*time.Duration(p.count)
	p.last, p.count = now, 0
}

// abandon handles v, recovered from a panic (nil: runtime.Goexit) in one
// of the run's phases: it records the failure, so that the run is
// canceled, wakes the root's waiter, and goes on unwinding.
func (d *dagRun[N, H, R, K]) abandon(w *forkjoin.Worker, v any) {
	if v == nil {
		// runtime.Goexit: it goes on unwinding; the run fails with
		// ErrGoexit and the stack of the call.
		core.RecordPanic(w, forkjoin.ErrGoexit)
		d.fail()
		return
	}
	core.RecordPanic(w, v) // the core's own unwinding is ignored
	d.fail()
	panic(v)
}

// fail wakes the root's waiter once the run cannot finish.
func (d *dagRun[N, H, R, K]) fail() {
	if !d.failed.Swap(true) {
		d.done.Complete()
	}
}

// dagPhase counts the tasks a phase pushed that are not over. RunDAG waits
// for the count to reach zero (drain) before it moves on or returns, so
// that no callback runs after it; after a failure, tasks return at once
// (they see it) or finish the callback they are in.
type dagPhase struct {
	live     atomic.Int64
	draining atomic.Bool
	drained  core.Completion
}

// over counts a task out.
func (ph *dagPhase) over() {
	if ph.live.Add(-1) == 0 && ph.draining.Load() {
		ph.drained.Complete()
	}
}

// drain waits, helping, until no task of the phase is live. live is read
// after draining is set, and over reads draining after its count:
// whichever comes second sees the other. No task is pushed once drain has
// begun: tasks are pushed by the caller before it drains and by live tasks.
func (ph *dagPhase) drain(w *forkjoin.Worker) {
	if ph.live.Load() == 0 {
		return
	}
	ph.draining.Store(true)
	if ph.live.Load() == 0 {
		return
	}
	core.Wait(w, &ph.drained)
}

package foldtest

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// maxParallelism is the largest parallelism the checkers draw.
const maxParallelism = 64

// Check draws roots from gen and checks f's contract on each: fold.Run on
// a pool of random parallelism (1 to 64), with a randomised schedule that
// forces hand-offs between participants (see the package documentation),
// returns what fold.Seq returns, compared with eq, or with
// reflect.DeepEqual (== for numbers, strings and structs of them) when eq
// is nil; Init and Finalize run once per node and Accumulate once per
// child, in g's child order, between the node's Init and its Finalize; and
// no two calls run at once on one heap. Child order is checked by node
// when N is comparable, and by count otherwise.
//
// On a failure, rapid shrinks the input, and Check fails t with the
// smallest failing root, the parallelism and the schedule it found (rapid
// prints the drawn values; a root of a type other than *Node is also
// logged as a numbered tree, see the package documentation). A panic in
// f fails the check the same way. g must be deterministic: the checker
// lists each node's children more than once, and a node whose children
// come in a different order fails the check as such. So does a *H kept
// past the call it was passed to.
func Check[N, H, R any](t *testing.T, f fold.Fold[N, H, R], g tree.Treeish[N], gen *rapid.Generator[N], eq func(a, b R) bool) {
	t.Helper()
	mustArgs(t, "Check", f.Init != nil && f.Accumulate != nil && f.Finalize != nil, !g.IsZero(), gen != nil)
	eq = orDeepEqual(eq)
	id := idOf[N]()
	pools := newPools()
	defer pools.close()
	rapid.Check(t, func(rt *rapid.T) {
		root := gen.Draw(rt, "root")
		o := drawn(rt, g, root, id)
		par := rapid.IntRange(1, maxParallelism).Draw(rt, "parallelism")
		p := pools.get(par)
		s := drawSchedule(rt, par)
		want := fold.Seq(f, g, root)
		c := testtree.NewChecker[any](false)
		c.Watch = true
		got, err := runScheduled(s, p, testtree.Check(c, f, g, o.key), g, root)
		if err != nil {
			rt.Fatalf("fold.Run failed: %v", err)
		}
		c.CheckFinalized()
		if err := c.Err(); err != nil {
			rt.Fatal(err)
		}
		ref := reference[R]{eq: eq, want: want, name: "fold.Seq",
			again: func() R { return fold.Seq(f, g, root) },
			own:   func() R { return fold.Seq(ownHeaps(f), g, root) },
		}
		if msg := ref.heapsMatter(); msg != "" {
			rt.Fatal(msg)
		}
		if !eq(got.Value, want) {
			rt.Fatal(ref.differs("fold.Run", got.Value))
		}
		nodes := countNodes(g, root)
		if c.Inits() != nodes || c.Finals() != nodes {
			rt.Fatalf("the tree has %d nodes: Init ran %d times, Finalize %d", nodes, c.Inits(), c.Finals())
		}
	})
}

// CheckDAG is Check for fold.RunDAG: it draws roots of graphs that may
// share nodes (see DAGs), and checks that fold.RunDAG on a pool of random
// parallelism returns what fold.SeqDAG returns (compared as in Check),
// that Init and Finalize run once per distinct key, and Accumulate once per
// edge, in child order, never two calls at once on one heap. key must
// identify nodes (Key does for Node); a failure numbers the distinct keys
// in pre-order, as Check numbers nodes. A graph with a cycle fails the
// check.
func CheckDAG[N, H, R any, K comparable](t *testing.T, f fold.Fold[N, H, R], g tree.Treeish[N], key func(N) K, gen *rapid.Generator[N], eq func(a, b R) bool) {
	t.Helper()
	mustArgs(t, "CheckDAG", f.Init != nil && f.Accumulate != nil && f.Finalize != nil, !g.IsZero() && key != nil, gen != nil)
	eq = orDeepEqual(eq)
	pools := newPools()
	defer pools.close()
	rapid.Check(t, func(rt *rapid.T) {
		root := gen.Draw(rt, "root")
		o := drawn(rt, g, root, func(n N) any { return key(n) })
		p := pools.get(rapid.IntRange(1, maxParallelism).Draw(rt, "parallelism"))
		want, err := fold.SeqDAG(f, g, root, key)
		if err != nil {
			rt.Fatalf("fold.SeqDAG: %v", err)
		}
		c := testtree.NewChecker[any](true)
		c.Watch = true
		got, err := fold.RunDAG(context.Background(), p, testtree.Check(c, f, g, o.key), g, root, key)
		if err != nil {
			rt.Fatalf("fold.RunDAG failed: %v", err)
		}
		c.CheckFinalized()
		if err := c.Err(); err != nil {
			rt.Fatal(err)
		}
		ref := reference[R]{eq: eq, want: want, name: "fold.SeqDAG",
			again: func() R { r, _ := fold.SeqDAG(f, g, root, key); return r },
			own:   func() R { r, _ := fold.SeqDAG(ownHeaps(f), g, root, key); return r },
		}
		if msg := ref.heapsMatter(); msg != "" {
			rt.Fatal(msg)
		}
		if !eq(got.Value, want) {
			rt.Fatal(ref.differs("fold.RunDAG", got.Value))
		}
		keys := countKeys(g, root, key)
		if c.Keys() != keys || c.Inits() != int64(keys) || c.Finals() != int64(keys) {
			rt.Fatalf("the graph has %d keys: %d initialised, Init ran %d times, Finalize %d", keys, c.Keys(), c.Inits(), c.Finals())
		}
	})
}

// drawn numbers the nodes below a drawn root (see outline), logs the tree
// when rapid's own line for the draw does not show it (any node type but
// *Node), and fails the example if the children function answers twice
// differently.
func drawn[N any](rt *rapid.T, g tree.Treeish[N], root N, id func(N) any) *outline[N] {
	o := newOutline(g, root, id)
	if _, isNode := any(root).(*Node); !isNode {
		rt.Logf("%v", describe[N]{o})
	}
	if msg := o.unstable(); msg != "" {
		rt.Fatal(msg)
	}
	return o
}

// reference is the sequential side of a check: what the sequential
// executor returned on the drawn root, and how to run it again, as it is
// or with a heap of its own for every node.
type reference[R any] struct {
	eq         func(a, b R) bool
	want       R
	name       string
	again, own func() R
}

// heapsMatter runs the sequential executor with a heap of its own for
// every node (never reused, as in the checked parallel run) and explains
// a result that differs: the fold uses a heap after the call it was passed
// to, or, if the plain executor changes its own answer too, keeps state
// between calls or runs. It returns "" when the results agree.
func (r reference[R]) heapsMatter() string {
	own := r.own()
	if r.eq(own, r.want) {
		return ""
	}
	if msg := r.unsteady(); msg != "" {
		return msg
	}
	return fmt.Sprintf("%s returned %#v, and %#v when every node's heap has memory of its own: the fold uses a heap "+
		"after the call it was passed to (a *H is valid only during that call, and the executors reuse a finalised "+
		"heap's memory)", r.name, r.want, own)
}

// differs describes a parallel result got that differs from the
// sequential one, with the reason when a second sequential run shows it.
func (r reference[R]) differs(run string, got R) string {
	msg := fmt.Sprintf("%s returned %#v, %s %#v", run, got, r.name, r.want)
	if why := r.unsteady(); why != "" {
		msg += "; " + why
	}
	return msg
}

// unsteady runs the sequential executor again and describes a result
// that changed, or returns "".
func (r reference[R]) unsteady() string {
	again := r.again()
	if r.eq(again, r.want) {
		return ""
	}
	return fmt.Sprintf("%s returned %#v, then %#v on the same root: the fold's result depends on state kept between "+
		"calls or runs, not only on the tree", r.name, r.want, again)
}

// ownHeaps is f with every heap in memory of its own, never reused.
func ownHeaps[N, H, R any](f fold.Fold[N, H, R]) fold.Fold[N, *H, R] {
	return fold.Fold[N, *H, R]{
		Init: func(n N) *H {
			h := f.Init(n)
			return &h
		},
		Accumulate: func(h **H, c R) { f.Accumulate(*h, c) },
		Finalize:   func(h **H) R { return f.Finalize(*h) },
	}
}

func mustArgs(t *testing.T, who string, fold, children, gen bool) {
	t.Helper()
	switch {
	case !fold:
		t.Fatalf("foldtest.%s: the fold has a nil callback", who)
	case !children:
		t.Fatalf("foldtest.%s: the zero Treeish or a nil key", who)
	case !gen:
		t.Fatalf("foldtest.%s: nil generator", who)
	}
}

func orDeepEqual[R any](eq func(a, b R) bool) func(a, b R) bool {
	if eq != nil {
		return eq
	}
	return func(a, b R) bool { return reflect.DeepEqual(a, b) }
}

// idOf returns what tells nodes apart: the node itself when N is
// comparable, else nil (then the checker compares counts only).
func idOf[N any]() func(N) any {
	if reflect.TypeFor[N]().Comparable() {
		return func(n N) any { return n }
	}
	return nil
}

// schedule is how a checked run hands work around (a walk.Schedule):
// with every == 0 fold.Run runs as it is, handing work over only when a
// participant asks; otherwise the walk deals work on about one look in
// every, as if a participant had asked, and at parallelism 2 or more its
// owner then waits until another participant has taken it.
type schedule struct {
	every uint64
	seed  uint64
	wait  bool

	looks   atomic.Uint64
	waiting atomic.Bool  // a participant waits for a taker
	misses  atomic.Int32 // waits in a row that ended with nobody taking, once work has moved
	moved   atomic.Int64 // deals that another participant took
}

// The owner waits up to takeWait for a taker. One participant waits at a
// time (the others deal and go on), so that two never wait for each
// other. Once work has moved, after maxMisses waits in a row that nobody
// answered (every other participant is busy), it stops waiting for the
// rest of the run; before anything has moved, the others may still be
// waking up, and every deal waits.
const (
	takeWait  = 5 * time.Millisecond
	maxMisses = 3
)

func drawSchedule(rt *rapid.T, parallelism int) *schedule {
	return &schedule{
		every: uint64(rapid.IntRange(0, 8).Draw(rt, "hand-off every (0: on request only)")),
		seed:  rapid.Uint64().Draw(rt, "schedule seed"),
		wait:  parallelism > 1,
	}
}

// Deal implements walk.Schedule.
func (s *schedule) Deal() bool { return mix(s.seed+s.looks.Add(1))%s.every == 0 }

// Dealt implements walk.Schedule: a bounded wait for a taker.
func (s *schedule) Dealt(taken func() bool) {
	if !s.wait || s.misses.Load() >= maxMisses || !s.waiting.CompareAndSwap(false, true) {
		return
	}
	defer s.waiting.Store(false)
	deadline := time.Now().Add(takeWait)
	defer func() {
		if taken() {
			s.moved.Add(1)
		}
	}()
	for !taken() {
		if time.Now().After(deadline) {
			if s.moved.Load() > 0 {
				s.misses.Add(1)
			}
			return
		}
		runtime.Gosched()
	}
	s.misses.Store(0)
}

// runScheduled folds the tree below root with f on p under schedule s.
func runScheduled[N, H, R any](s *schedule, p *pool.Pool, f fold.Fold[N, H, R], g tree.Treeish[N], root N) (R, error) {
	if s.every == 0 {
		return fold.Run(p, f, g, root), nil
	}
	return fold.RunCtx(walk.WithSchedule(context.Background(), s), p, f, g, root)
}

// mix scrambles x (a 64-bit finaliser), so that dealing is spread over
// the looks rather than periodic.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}

// countNodes counts the nodes of the tree below root as g lists them.
func countNodes[N any](g tree.Treeish[N], root N) int64 {
	var count int64
	stack := []N{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		count++
		g.Each(n, func(c N) bool {
			stack = append(stack, c)
			return true
		})
	}
	return count
}

// countKeys counts the distinct keys of the graph below root.
func countKeys[N any, K comparable](g tree.Treeish[N], root N, key func(N) K) int {
	seen := map[K]bool{key(root): true}
	stack := []N{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		g.Each(n, func(c N) bool {
			if k := key(c); !seen[k] {
				seen[k] = true
				stack = append(stack, c)
			}
			return true
		})
	}
	return len(seen)
}

// pools keeps one pool per parallelism for the examples of one check.
type pools map[int]*pool.Pool

func newPools() pools { return pools{} }

func (ps pools) get(n int) *pool.Pool {
	p := ps[n]
	if p == nil {
		p = pool.New(n)
		ps[n] = p
	}
	return p
}

func (ps pools) close() {
	for _, p := range ps {
		p.Close()
	}
}

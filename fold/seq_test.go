package fold_test

import (
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/tree"
	"pgregory.net/rapid"
)

type Node = testtree.Node

var children = testtree.Children

// checkedSeq runs spec's fold wrapped in a checker with Seq and returns the
// result, failing t on any contract violation.
func checkedSeq(t *rapid.T, spec testtree.FoldSpec, root *Node) testtree.Res {
	c := testtree.NewChecker[int](true)
	r := fold.Seq(testtree.Check(c, spec.Fold(), children, testtree.Key), children, root)
	if err := c.Complete(); err != nil {
		t.Fatal(err)
	}
	if r.Key != root.ID {
		t.Fatalf("result comes from node %d, not the root", r.Key)
	}
	return r.Value
}

func TestSeqMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(400).Draw(t, "graph")
		spec := testtree.GenFold().Draw(t, "fold")
		want := spec.Ref(g.Root)
		for _, g2 := range testtree.Treeishes {
			if got := fold.Seq(spec.Fold(), g2.G, g.Root); !got.Equal(want) {
				t.Fatalf("Seq (%s): got %v\nwant %v", g2.Name, got, want)
			}
		}
		if got := checkedSeq(t, spec, g.Root); !got.Equal(want) {
			t.Fatalf("checked Seq: got %v\nwant %v", got, want)
		}
		if got, err := fold.SeqErr(fold.Lift(spec.Fold()), children, g.Root); err != nil || !got.Equal(want) {
			t.Fatalf("SeqErr: got %v, %v\nwant %v", got, err, want)
		}
		// On a tree, every node is its own key: SeqDAG is Seq.
		if got, err := fold.SeqDAG(spec.Fold(), children, g.Root, testtree.Key); err != nil || !got.Equal(want) {
			t.Fatalf("SeqDAG: got %v, %v\nwant %v", got, err, want)
		}
	})
}

// TestSeqPastRecursionDepth folds a comb deeper than Seq's recursion
// (a spine whose every node also has a leaf child before and after the
// next spine node, and a few children at the bottom), so that many
// subtrees are handed to the explicit-stack loop, which reuses its stacks:
// the result must still equal the reference, for order-sensitive folds too.
func TestSeqPastRecursionDepth(t *testing.T) {
	const spine = 400
	g := testtree.ChainGraph(3 * spine)
	for i := 0; i < spine-1; i++ {
		// Node i: children leaf (spine+2i), next spine node i+1, leaf (spine+2i+1).
		g.Nodes[i].Children = []*Node{g.Nodes[spine+2*i], g.Nodes[i+1], g.Nodes[spine+2*i+1]}
	}
	for i := spine; i < 3*spine; i++ {
		g.Nodes[i].Children = nil
	}
	g.Nodes[spine-1].Children = []*Node{g.Nodes[3*spine-2], g.Nodes[3*spine-1]}
	rapid.Check(t, func(t *rapid.T) {
		spec := testtree.GenFold().Draw(t, "fold")
		for _, g2 := range testtree.Treeishes {
			if got, want := fold.Seq(spec.Fold(), g2.G, g.Root), spec.Ref(g.Root); !got.Equal(want) {
				t.Fatalf("%s: got %v\nwant %v", g2.Name, got, want)
			}
		}
	})
}

func TestSeqSumMatchesRecursion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(1000).Draw(t, "graph")
		if got, want := fold.Seq(testtree.SumFold(), children, g.Root), testtree.RefSum(g.Root); got != want {
			t.Fatalf("got %d want %d", got, want)
		}
	})
}

func refHeight(n *Node) int {
	h := 0
	for _, c := range n.Children {
		h = max(h, refHeight(c))
	}
	return h + 1
}

func TestReadyMadeFolds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(400).Draw(t, "graph")
		if n := fold.Seq(fold.Size[*Node](), children, g.Root); n != len(g.Nodes) {
			t.Fatalf("Count = %d, want %d", n, len(g.Nodes))
		}
		if d, want := fold.Seq(fold.Depth[*Node](), children, g.Root), refHeight(g.Root); d != want {
			t.Fatalf("Depth = %d, want %d", d, want)
		}
		l := fold.Seq(fold.PreOrder[*Node](), children, g.Root)
		var got []int
		for _, n := range l.Slice() {
			got = append(got, n.ID)
		}
		want := testtree.FoldSpec{Kind: testtree.KindPreOrder}.Ref(g.Root).IDs
		if !slices.Equal(got, want) || l.Len() != len(want) {
			t.Fatalf("PreOrder = %v (len %d), want %v", got, l.Len(), want)
		}
	})
}

func TestCombinators(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(300).Draw(t, "graph")
		s1 := testtree.GenFold().Draw(t, "first")
		s2 := testtree.GenFold().Draw(t, "second")
		p := fold.Seq(fold.Product(s1.Fold(), s2.Fold()), children, g.Root)
		if !p.First.Equal(s1.Ref(g.Root)) || !p.Second.Equal(s2.Ref(g.Root)) {
			t.Fatalf("Product: got %v, want %v and %v", p, s1.Ref(g.Root), s2.Ref(g.Root))
		}
		// Contramap: the same fold over node IDs, projected back to nodes.
		byID := tree.Map(children, testtree.Key, func(id int) *Node { return g.Nodes[id] })
		cm := fold.Contramap(s1.Fold(), func(id int) *Node { return g.Nodes[id] })
		if got := fold.Seq(cm, byID, 0); !got.Equal(s1.Ref(g.Root)) {
			t.Fatalf("Contramap: got %v want %v", got, s1.Ref(g.Root))
		}
		// Wrap with no hooks changes nothing; hooks see every call.
		if got := fold.Seq(fold.Wrap(s1.Fold(), fold.Hooks[*Node, testtree.Res, testtree.Res]{}), children, g.Root); !got.Equal(s1.Ref(g.Root)) {
			t.Fatalf("Wrap without hooks: got %v", got)
		}
		var inits, accs, fins int
		var order []int
		wrapped := fold.Wrap(s1.Fold(), fold.Hooks[*Node, testtree.Res, testtree.Res]{
			Init: func(n *Node, next func(*Node) testtree.Res) testtree.Res {
				inits++
				order = append(order, n.ID)
				return next(n)
			},
			Accumulate: func(h *testtree.Res, c testtree.Res, next func(*testtree.Res, testtree.Res)) {
				accs++
				next(h, c)
			},
			Finalize: func(h *testtree.Res, next func(*testtree.Res) testtree.Res) testtree.Res {
				fins++
				return next(h)
			},
		})
		if got := fold.Seq(wrapped, children, g.Root); !got.Equal(s1.Ref(g.Root)) {
			t.Fatalf("Wrap: got %v", got)
		}
		n := len(g.Nodes)
		if inits != n || fins != n || accs != n-1 {
			t.Fatalf("hooks saw %d inits, %d accumulates, %d finalizes on %d nodes", inits, accs, fins, n)
		}
		if want := (testtree.FoldSpec{Kind: testtree.KindPreOrder}).Ref(g.Root).IDs; !slices.Equal(order, want) {
			t.Fatalf("Init order %v, want pre-order %v", order, want)
		}
		// Finish maps the root's result only.
		calls := 0
		fin := fold.Finish(s1.Fold(), func(r testtree.Res) string { calls++; return r.String() })
		if got := fin.Seq(children, g.Root); got != s1.Ref(g.Root).String() || calls != 1 {
			t.Fatalf("Finish: got %q after %d calls", got, calls)
		}
	})
}

func TestSeqDAG(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var g *testtree.Graph
		var spec testtree.FoldSpec
		if rapid.Bool().Draw(t, "big") {
			g = testtree.DAG(200).Draw(t, "graph")
			spec = testtree.GenFold(testtree.KindSum, testtree.KindHash).Draw(t, "fold")
		} else {
			g = testtree.DAG(12).Draw(t, "graph")
			spec = testtree.GenFold().Draw(t, "fold")
		}
		c := testtree.NewChecker[int](true)
		r, err := fold.SeqDAG(testtree.Check(c, spec.Fold(), children, testtree.Key), children, g.Root, testtree.Key)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Complete(); err != nil {
			t.Fatal(err)
		}
		if want := spec.Ref(g.Root); !r.Value.Equal(want) {
			t.Fatalf("got %v want %v", r.Value, want)
		}
		// Every node is reachable from the root: each key once.
		if c.Keys() != len(g.Nodes) || c.Inits() != int64(len(g.Nodes)) {
			t.Fatalf("%d keys, %d inits for %d nodes", c.Keys(), c.Inits(), len(g.Nodes))
		}
		if len(g.Nodes) <= 12 {
			// Seq expands the DAG into a tree (exponential in the
			// sharing, hence the small graphs only): same result.
			if got := fold.Seq(spec.Fold(), children, g.Root); !got.Equal(r.Value) {
				t.Fatalf("Seq on the DAG: got %v want %v", got, r.Value)
			}
		}
	})
}

func TestSeqDAGCycle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.Cyclic(60).Draw(t, "graph")
		c := testtree.NewChecker[int](true)
		_, err := fold.SeqDAG(testtree.Check(c, testtree.SumFold(), children, testtree.Key), children, g.Root, testtree.Key)
		var ce *fold.CycleError[int]
		if !errors.As(err, &ce) {
			t.Fatalf("got %v, want a *CycleError", err)
		}
		if len(ce.Cycle) == 0 || ce.Cycle[0] != ce.Key || !g.IsCycle(ce.Cycle) {
			t.Fatalf("cycle %v (key %d) is not a cycle of the graph", ce.Cycle, ce.Key)
		}
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestSeqDAGSelfLoop(t *testing.T) {
	g := tree.FromFunc(func(n int, yield func(int) bool) {
		if n < 3 {
			yield(n + 1)
		} else {
			yield(3)
		}
	})
	_, err := fold.SeqDAG(fold.Size[int](), g, 0, func(n int) int { return n })
	var ce *fold.CycleError[int]
	if !errors.As(err, &ce) || ce.Key != 3 || !slices.Equal(ce.Cycle, []int{3}) {
		t.Fatalf("got %v", err)
	}
	if want := "fold: cycle in graph: node 3 reaches itself: 3 → 3"; err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
}

// TestCycleErrorLongCycle: the message of a long cycle lists its first
// keys and its length, not every key.
func TestCycleErrorLongCycle(t *testing.T) {
	const n = 1000
	g := tree.FromFunc(func(k int, yield func(int) bool) { yield((k + 1) % n) })
	_, err := fold.SeqDAG(fold.Size[int](), g, 0, func(k int) int { return k })
	var ce *fold.CycleError[int]
	if !errors.As(err, &ce) || len(ce.Cycle) != n {
		t.Fatalf("got %v", err)
	}
	want := "fold: cycle in graph: node 0 reaches itself: 0 → 1 → 2 → 3 → 4 → 5 → 6 → 7 → … (1000 nodes in all) → 0"
	if err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
}

// stage is where a fault is injected.
type stage int

const (
	atInit stage = iota
	atAccumulate
	atFinalize
	atChildren
)

func (s stage) String() string { return [...]string{"Init", "Accumulate", "Finalize", "children"}[s] }

func TestSeqErrStopsAtFirstError(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(300).Draw(t, "graph")
		where := stage(rapid.IntRange(0, 2).Draw(t, "stage"))
		target := rapid.IntRange(0, len(g.Nodes)-1).Draw(t, "node")
		if where == atAccumulate && len(g.Nodes[target].Children) == 0 {
			where = atInit
		}
		errBoom := fmt.Errorf("boom at %v of n%d", where, target)
		failed, after := false, 0
		step := func(s stage, n *Node) error {
			if failed {
				after++
			}
			if s == where && n.ID == target && !failed {
				failed = true
				return errBoom
			}
			return nil
		}
		f := fold.NewErr(
			func(n *Node) (*Node, error) { return n, step(atInit, n) },
			func(h **Node, c int64) error { return step(atAccumulate, *h) },
			func(h **Node) (int64, error) { return (*h).Value, step(atFinalize, *h) },
		)
		r, err := fold.SeqErr(f, children, g.Root)
		if err != errBoom || r != 0 {
			t.Fatalf("got %d, %v; want 0, %v", r, err, errBoom)
		}
		if after != 0 {
			t.Fatalf("%d callbacks after the error", after)
		}
	})
}

func TestPanicPropagates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(200).Draw(t, "graph")
		where := stage(rapid.IntRange(0, 3).Draw(t, "stage"))
		target := rapid.IntRange(0, len(g.Nodes)-1).Draw(t, "node")
		if where == atAccumulate && len(g.Nodes[target].Children) == 0 {
			where = atInit
		}
		value := &struct{ msg string }{"boom"} // compared by identity
		maybe := func(s stage, n *Node) {
			if s == where && n.ID == target {
				panic(value)
			}
		}
		f := fold.New(
			func(n *Node) *Node { maybe(atInit, n); return n },
			func(h **Node, c int) { maybe(atAccumulate, *h) },
			func(h **Node) int { maybe(atFinalize, *h); return 0 },
		)
		g2 := tree.FromFunc(func(n *Node, yield func(*Node) bool) {
			maybe(atChildren, n)
			children.Each(n, yield)
		})
		for name, run := range map[string]func(){
			"Seq":    func() { fold.Seq(f, g2, g.Root) },
			"SeqErr": func() { fold.SeqErr(fold.Lift(f), g2, g.Root) },
			"SeqDAG": func() { fold.SeqDAG(f, g2, g.Root, testtree.Key) },
		} {
			got := func() (r any) {
				defer func() { r = recover() }()
				run()
				return nil
			}()
			if got != value {
				t.Fatalf("%s: recovered %v, want the panic value of %v at n%d", name, got, where, target)
			}
		}
	})
}

func TestNilFunctions(t *testing.T) {
	ok := fold.Size[int]()
	leaf := tree.FromFunc(func(int, func(int) bool) {})
	cases := map[string]struct {
		f fold.Fold[int, int, int]
		g tree.Treeish[int]
	}{
		"Init":       {fold.Fold[int, int, int]{Accumulate: ok.Accumulate, Finalize: ok.Finalize}, leaf},
		"Accumulate": {fold.Fold[int, int, int]{Init: ok.Init, Finalize: ok.Finalize}, leaf},
		"Finalize":   {fold.Fold[int, int, int]{Init: ok.Init, Accumulate: ok.Accumulate}, leaf},
		"children":   {ok, tree.Treeish[int]{}},
	}
	nilPanic := func(t *testing.T, what string, f func()) {
		t.Helper()
		defer func() {
			t.Helper()
			if err, _ := recover().(error); !errors.Is(err, fold.ErrNilFunc) {
				t.Errorf("%s: recovered %v, want an error wrapping ErrNilFunc", what, err)
			}
		}()
		f()
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			nilPanic(t, "SeqDAG", func() { fold.SeqDAG(c.f, c.g, 0, func(i int) int { return i }) })
			nilPanic(t, "SeqErr", func() { fold.SeqErr(fold.FoldErr[int, int, int]{}, c.g, 0) })
			nilPanic(t, "Seq", func() { fold.Seq(c.f, c.g, 0) })
		})
	}
	nilPanic(t, "SeqDAG with nil key", func() { fold.SeqDAG[int, int, int, int](ok, leaf, 0, nil) })
	defer func() {
		if err, _ := recover().(error); !errors.Is(err, fold.ErrNilFunc) {
			t.Errorf("Product: recovered %v", err)
		}
	}()
	fold.Product(ok, fold.Fold[int, int, int]{})
}

// TestBigShapes runs the sizes the guide promises: a binary tree of
// testtree.BigBinary nodes (10^7, or 10^6 under -race; a long test), one of
// 10^6 nodes, a 10^6-deep chain and a node with 10^6 children, with Seq and
// with SeqDAG.
func TestBigShapes(t *testing.T) {
	const million = 1_000_000
	id := func(i int) int { return i }
	sum := fold.Sum(func(i int) int64 { return int64(i) })
	depthSum := fold.Product(fold.Depth[int](), sum)
	shapes := []struct {
		name   string
		g      tree.Treeish[int]
		n      int
		height int
		long   bool
	}{
		{"binary-big", testtree.Binary(testtree.BigBinary), testtree.BigBinary, bits.Len(uint(testtree.BigBinary)), true},
		{"binary", testtree.Binary(million), million, bits.Len(uint(million)), false},
		{"chain", testtree.Chain(million), million, million, false},
		{"wide", testtree.Wide(million), million, 2, false},
	}
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			if s.long {
				testcheck.Long(t)
			}
			start := time.Now()
			r := fold.Seq(depthSum, s.g, 0)
			if r.First != s.height || r.Second != testtree.SumTo(s.n) {
				t.Fatalf("Seq: height %d sum %d, want %d and %d", r.First, r.Second, s.height, testtree.SumTo(s.n))
			}
			seq := time.Since(start)
			start = time.Now()
			r, err := fold.SeqDAG(depthSum, s.g, 0, id)
			if err != nil || r.First != s.height || r.Second != testtree.SumTo(s.n) {
				t.Fatalf("SeqDAG: height %d sum %d err %v", r.First, r.Second, err)
			}
			t.Logf("%d nodes: Seq %v, SeqDAG %v", s.n, seq, time.Since(start))
		})
	}
	t.Run("preorder-chain", func(t *testing.T) {
		l := fold.Seq(fold.PreOrder[int](), testtree.Chain(million), 0)
		s := l.Slice()
		if len(s) != million || l.Len() != million || s[0] != 0 || s[million-1] != million-1 {
			t.Fatalf("len %d/%d", len(s), l.Len())
		}
	})
}

// TestSeqAllocations checks that Seq allocates nothing per node: the count
// per run must not grow with the tree.
func TestSeqAllocations(t *testing.T) {
	f := fold.Sum(func(n *Node) int64 { return n.Value })
	small, large := testtree.Complete(8, 2_000), testtree.Complete(8, 200_000)
	chain := testtree.ChainGraph(100_000)
	for _, c := range []struct {
		name string
		g    *testtree.Graph
	}{{"bf8-2e3", small}, {"bf8-2e5", large}, {"chain-1e5", chain}} {
		allocs := testing.AllocsPerRun(5, func() { fold.Seq(f, children, c.g.Root) })
		// A run makes its stacks and grows them geometrically: a few
		// allocations for a bushy tree whatever its size, O(log depth)
		// for a chain.
		if allocs > 100 || (c.g.Shape == testtree.ShapeBalanced && allocs > 8) {
			t.Errorf("%s: %v allocations per run", c.name, allocs)
		}
		t.Logf("%s: %v allocations per run", c.name, allocs)
	}
}

// leafHeap is a heap with a finalizer, to see when the fold drops it.
type leafHeap struct {
	id  int
	pad [64]byte
}

// TestHeapsReleased checks that a finalised heap is no longer referenced:
// when the root accumulates its last child, every child's heap must be
// collectable.
func TestHeapsReleased(t *testing.T) {
	const kids = 200
	var collected atomic.Int64
	released := false
	f := fold.New(
		func(n int) *leafHeap {
			h := &leafHeap{id: n}
			if n != 0 {
				runtime.SetFinalizer(h, func(*leafHeap) { collected.Add(1) })
			}
			return h
		},
		func(h **leafHeap, c int) {
			if c != kids {
				return
			}
			deadline := time.Now().Add(5 * time.Second)
			for collected.Load() < kids && time.Now().Before(deadline) {
				runtime.GC()
				time.Sleep(time.Millisecond)
			}
			released = collected.Load() == kids
		},
		func(h **leafHeap) int { return (*h).id },
	)
	for name, run := range map[string]func(){
		"Seq":    func() { fold.Seq(f, testtree.Wide(kids+1), 0) },
		"SeqErr": func() { fold.SeqErr(fold.Lift(f), testtree.Wide(kids+1), 0) },
		"SeqDAG": func() { fold.SeqDAG(f, testtree.Wide(kids+1), 0, func(i int) int { return i }) },
	} {
		collected.Store(0)
		released = false
		run()
		if !released {
			t.Errorf("%s: %d of %d child heaps collected when the root took its last child", name, collected.Load(), kids)
		}
	}
}

package testtree_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"pgregory.net/rapid"
)

type Node = testtree.Node

// reachable counts the nodes reachable from root and reports whether some
// node is reached through two parents.
func reachable(root *Node) (count int, shared bool) {
	seen := map[int]bool{root.ID: true}
	stack := []*Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range n.Children {
			if seen[c.ID] {
				shared = true
				continue
			}
			seen[c.ID] = true
			stack = append(stack, c)
		}
	}
	return len(seen), shared
}

func TestTreeShapes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(300).Draw(t, "graph")
		n, shared := reachable(g.Root)
		if shared || n != len(g.Nodes) || !g.Tree {
			t.Fatalf("%v: %d reachable of %d, shared %v", g, n, len(g.Nodes), shared)
		}
		for i, nd := range g.Nodes {
			if nd.ID != i {
				t.Fatalf("node %d has ID %d", i, nd.ID)
			}
		}
	})
}

// TestGeneratorsKeepTheirBound: every generator draws at least one node
// and at most its bound (1 for a bound below 1), every node reachable from
// the root, numbered in order, and the tree shapes share no node.
func TestGeneratorsKeepTheirBound(t *testing.T) {
	shapes := []struct {
		name string
		gen  func(maxNodes int) *rapid.Generator[*testtree.Graph]
		tree bool
	}{
		{"balanced", testtree.Balanced, true},
		{"skewed", testtree.Skewed, true},
		{"chain", testtree.ChainOf, true},
		{"wide", testtree.WideOf, true},
		{"random", testtree.Random, true},
		{"any tree", testtree.AnyTree, true},
		{"dag", testtree.DAG, false},
		{"cyclic", testtree.Cyclic, false},
	}
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				bound := rapid.IntRange(-1, 300).Draw(t, "bound")
				g := s.gen(bound).Draw(t, "graph")
				n := len(g.Nodes)
				if n < 1 || n > max(bound, 1) {
					t.Fatalf("%v drawn with bound %d", g, bound)
				}
				for i, nd := range g.Nodes {
					if nd.ID != i {
						t.Fatalf("%v: node %d has ID %d", g, i, nd.ID)
					}
				}
				if g.Root != g.Nodes[0] {
					t.Fatalf("%v: the root is not node 0", g)
				}
				reached, shared := reachable(g.Root)
				if reached != n || s.tree && (shared || !g.Tree) {
					t.Fatalf("%v: %d of %d nodes reachable, shared %v, Tree %v", g, reached, n, shared, g.Tree)
				}
			})
		})
	}
}

func TestDAGShape(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.DAG(60).Draw(t, "graph")
		n, _ := reachable(g.Root)
		if n != len(g.Nodes) || g.Tree {
			t.Fatalf("%v: %d reachable", g, n)
		}
		for _, nd := range g.Nodes {
			for _, c := range nd.Children {
				if c.ID <= nd.ID {
					t.Fatalf("edge %d -> %d goes backwards", nd.ID, c.ID)
				}
			}
		}
	})
}

func TestCyclicShape(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.Cyclic(60).Draw(t, "graph")
		back := 0
		for _, nd := range g.Nodes {
			for _, c := range nd.Children {
				if c.ID <= nd.ID {
					back++
				}
			}
		}
		if back != 1 {
			t.Fatalf("%v: %d back edges", g, back)
		}
	})
}

func TestRefMatchesSeq(t *testing.T) {
	// The references and the folds agree on trees (the fold package tests
	// the executors; this checks the kit against itself on fixed trees).
	g := testtree.Complete(3, 40)
	for _, k := range testtree.Kinds {
		spec := testtree.FoldSpec{Kind: k, Seed: 7}
		if got, want := fold.Seq(spec.Fold(), testtree.Children, g.Root), spec.Ref(g.Root); !got.Equal(want) {
			t.Errorf("%v: got %v want %v", spec, got, want)
		}
	}
	if got := testtree.RefSum(g.Root); got != 40*39/2 {
		t.Errorf("RefSum = %d", got)
	}
}

func TestOrderSensitiveFolds(t *testing.T) {
	// Swapping two children changes every order-sensitive result.
	a := testtree.Complete(2, 3)
	b := testtree.Complete(2, 3)
	b.Root.Children[0], b.Root.Children[1] = b.Root.Children[1], b.Root.Children[0]
	for _, k := range testtree.Kinds {
		spec := testtree.FoldSpec{Kind: k, Seed: 1}
		same := spec.Ref(a.Root).Equal(spec.Ref(b.Root))
		if same != (k == testtree.KindSum) {
			t.Errorf("%v: swapping children changed the result: %v", spec, !same)
		}
	}
}

// TestCheckerCatchesViolations calls a checked fold's callbacks by hand, the
// way a broken executor might, and expects each breach to be recorded.
func TestCheckerCatchesViolations(t *testing.T) {
	g := testtree.Complete(2, 3) // 0 -> 1, 2
	n0, n1, n2 := g.Nodes[0], g.Nodes[1], g.Nodes[2]
	newFold := func(once bool) (*testtree.Checker[int], fold.Fold[*Node, *testtree.Heap[int64, int], testtree.Checked[int64, int]]) {
		c := testtree.NewChecker[int](once)
		return c, testtree.Check(c, testtree.SumFold(), testtree.Children, testtree.Key)
	}
	cases := []struct {
		name string
		want string
		run  func(f fold.Fold[*Node, *testtree.Heap[int64, int], testtree.Checked[int64, int]])
	}{
		{"correct", "", func(f fold.Fold[*Node, *testtree.Heap[int64, int], testtree.Checked[int64, int]]) {
			h, h1, h2 := f.Init(n0), f.Init(n1), f.Init(n2)
			f.Accumulate(&h, f.Finalize(&h1))
			f.Accumulate(&h, f.Finalize(&h2))
			f.Finalize(&h)
		}},
		{"order", "child 0 is 1, accumulated 2", func(f fold.Fold[*Node, *testtree.Heap[int64, int], testtree.Checked[int64, int]]) {
			h, h1, h2 := f.Init(n0), f.Init(n1), f.Init(n2)
			f.Accumulate(&h, f.Finalize(&h2))
			f.Accumulate(&h, f.Finalize(&h1))
			f.Finalize(&h)
		}},
		{"missing child", "1 children accumulated, the node has 2", func(f fold.Fold[*Node, *testtree.Heap[int64, int], testtree.Checked[int64, int]]) {
			h, h1 := f.Init(n0), f.Init(n1)
			f.Accumulate(&h, f.Finalize(&h1))
			f.Finalize(&h)
		}},
		{"extra child", "has 2 children", func(f fold.Fold[*Node, *testtree.Heap[int64, int], testtree.Checked[int64, int]]) {
			h, h1, h2 := f.Init(n0), f.Init(n1), f.Init(n2)
			r1, r2 := f.Finalize(&h1), f.Finalize(&h2)
			f.Accumulate(&h, r1)
			f.Accumulate(&h, r2)
			f.Accumulate(&h, r2)
			f.Finalize(&h)
		}},
		{"finalize twice", "Finalize called again", func(f fold.Fold[*Node, *testtree.Heap[int64, int], testtree.Checked[int64, int]]) {
			h := f.Init(n1)
			f.Finalize(&h)
			f.Finalize(&h)
		}},
		{"accumulate after finalize", "Accumulate after Finalize", func(f fold.Fold[*Node, *testtree.Heap[int64, int], testtree.Checked[int64, int]]) {
			h, h1 := f.Init(n0), f.Init(n1)
			r := f.Finalize(&h1)
			f.Finalize(&h)
			f.Accumulate(&h, r)
		}},
		{"uninitialised heap", "no Init made", func(f fold.Fold[*Node, *testtree.Heap[int64, int], testtree.Checked[int64, int]]) {
			var h *testtree.Heap[int64, int]
			h1 := f.Init(n1)
			f.Accumulate(&h, f.Finalize(&h1))
		}},
		{"forged result", "no Finalize made", func(f fold.Fold[*Node, *testtree.Heap[int64, int], testtree.Checked[int64, int]]) {
			h := f.Init(n0)
			f.Accumulate(&h, testtree.Checked[int64, int]{Key: 1})
		}},
		{"init twice", "Init called again", func(f fold.Fold[*Node, *testtree.Heap[int64, int], testtree.Checked[int64, int]]) {
			f.Init(n1)
			f.Init(n1)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checker, f := newFold(true)
			c.run(f)
			err := checker.Err()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected violation: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want a violation containing %q", err, c.want)
			}
		})
	}
	// Unfinished heaps are reported by Complete.
	checker, f := newFold(false)
	f.Init(n1)
	if checker.Err() != nil || checker.Complete() == nil {
		t.Fatalf("Complete missed an unfinished heap")
	}
}

func TestCheckerCatchesConcurrentCalls(t *testing.T) {
	root := &Node{ID: 0, Children: []*Node{{ID: 1}}}
	c := testtree.NewChecker[int](false)
	entered := make(chan struct{})
	release := make(chan struct{})
	blocking := fold.New(
		func(*Node) int { return 0 },
		func(h *int, x int) { // blocks inside the root's heap
			close(entered)
			<-release
		},
		func(h *int) int { return 1 },
	)
	f := testtree.Check(c, blocking, testtree.Children, testtree.Key)
	h := f.Init(root)
	hc := f.Init(root.Children[0])
	r := f.Finalize(&hc)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f.Accumulate(&h, r)
	}()
	<-entered
	f.Finalize(&h) // runs while Accumulate is inside
	close(release)
	wg.Wait()
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "while another call on the heap runs") {
		t.Fatalf("got %v", err)
	}
}

// TestBinaryHalf: BinaryHalf names the subtree of the root's child that
// each node of a Binary tree is in, by walking down from both children.
func TestBinaryHalf(t *testing.T) {
	const n = 1 << 12
	g := testtree.Binary(n)
	if h := testtree.BinaryHalf(0); h != 0 {
		t.Fatalf("BinaryHalf(0) = %d, want 0", h)
	}
	for _, top := range []int{1, 2} {
		stack := []int{top}
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if h := testtree.BinaryHalf(i); h != top {
				t.Fatalf("BinaryHalf(%d) = %d, want %d", i, h, top)
			}
			g.Each(i, func(c int) bool { stack = append(stack, c); return true })
		}
	}
}

// TestCheckerWatchesKeptHeaps calls checked folds by hand that keep the
// *H of a call, and expects Watch to report each way of doing it, and
// nothing for a fold that keeps none.
func TestCheckerWatchesKeptHeaps(t *testing.T) {
	g := testtree.Complete(2, 3) // 0 -> 1, 2
	n0, n1, n2 := g.Nodes[0], g.Nodes[1], g.Nodes[2]
	var kept *[]int64
	type res = testtree.Checked[*[]int64, int]
	run := func(f fold.Fold[*Node, []int64, *[]int64], after func()) error {
		c := testtree.NewChecker[int](true)
		c.Watch = true
		cf := testtree.Check(c, f, testtree.Children, testtree.Key)
		h, h1, h2 := cf.Init(n0), cf.Init(n1), cf.Init(n2)
		var r1, r2 res = cf.Finalize(&h1), cf.Finalize(&h2)
		cf.Accumulate(&h, r1)
		if after != nil {
			after()
		}
		cf.Accumulate(&h, r2)
		cf.Finalize(&h)
		if after != nil {
			after()
		}
		c.CheckFinalized()
		return c.Err()
	}
	values := func(n *Node) []int64 { return []int64{n.Value} }
	copied := func(h *[]int64) *[]int64 { r := append([]int64(nil), *h...); return &r }
	cases := []struct {
		name  string
		want  string
		f     fold.Fold[*Node, []int64, *[]int64]
		after func()
	}{
		{"correct", "", fold.New(values, func(h *[]int64, c *[]int64) { *h = append(*h, *c...) }, copied), nil},
		{"result points into the heap", "node 1: Finalize returned a value that points into the node's heap",
			fold.New(values, func(h *[]int64, c *[]int64) { *h = append(*h, *c...) }, func(h *[]int64) *[]int64 { return h }), nil},
		{"write between calls", "node 0: its heap changed between the calls on it",
			fold.New(values, func(h *[]int64, c *[]int64) { *h = append(*h, *c...); kept = h }, copied),
			func() { *kept = append(*kept, 7) }},
		{"write after Finalize", "node 0: its heap changed after its Finalize returned",
			fold.New(values, func(h *[]int64, c *[]int64) { *h = append(*h, *c...) }, func(h *[]int64) *[]int64 { kept = h; return copied(h) }),
			func() { *kept = nil }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kept = nil
			err := run(c.f, c.after)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected violation: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want a violation containing %q", err, c.want)
			}
		})
	}
}

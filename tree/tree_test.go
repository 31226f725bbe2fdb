package tree_test

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/tree"
	"pgregory.net/rapid"
)

type Node = testtree.Node

// refPreOrder lists the IDs below n in pre-order by recursion.
func refPreOrder(n *Node, keep func(*Node) bool, out []int) []int {
	out = append(out, n.ID)
	for _, c := range n.Children {
		if keep == nil || keep(c) {
			out = refPreOrder(c, keep, out)
		}
	}
	return out
}

func ids(seq func(func(*Node) bool)) []int {
	var out []int
	seq(func(n *Node) bool {
		out = append(out, n.ID)
		return true
	})
	return out
}

func TestPreOrderMatchesRecursion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(300).Draw(t, "graph")
		want := refPreOrder(g.Root, nil, nil)
		if got := ids(tree.All(testtree.Children, g.Root)); !slices.Equal(got, want) {
			t.Fatalf("All: got %v want %v", got, want)
		}
		if n := tree.CountSeq(testtree.Children, g.Root); n != len(want) {
			t.Fatalf("CountSeq = %d, want %d", n, len(want))
		}
		sl := tree.FromSlice(func(n *Node) []*Node { return n.Children })
		if got := ids(tree.All(sl, g.Root)); !slices.Equal(got, want) {
			t.Fatalf("FromSlice: got %v want %v", got, want)
		}
		sq := tree.FromIter(func(n *Node) iter.Seq[*Node] { return slices.Values(n.Children) })
		if got := ids(tree.All(sq, g.Root)); !slices.Equal(got, want) {
			t.Fatalf("FromIter: got %v want %v", got, want)
		}
	})
}

func TestWalkSeqStopsEarly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(200).Draw(t, "graph")
		want := refPreOrder(g.Root, nil, nil)
		k := rapid.IntRange(1, len(want)).Draw(t, "stop after")
		var listed int
		traced := tree.Trace(testtree.Children, tree.TraceHooks[*Node]{Node: func(*Node) { listed++ }})
		var got []int
		done := tree.WalkSeq(traced, g.Root, func(n *Node) bool {
			got = append(got, n.ID)
			return len(got) < k
		})
		if done {
			t.Fatalf("WalkSeq reported completion though visit returned false")
		}
		if !slices.Equal(got, want[:k]) {
			t.Fatalf("visited %v, want %v", got, want[:k])
		}
		if listed > k-1 {
			t.Fatalf("listed children of %d nodes after %d visits (the last visit stops)", listed, k)
		}
	})
}

func TestFindSeq(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(200).Draw(t, "graph")
		target := rapid.IntRange(-1, len(g.Nodes)-1).Draw(t, "target")
		order := refPreOrder(g.Root, nil, nil)
		tested := 0
		n, ok := tree.FindSeq(testtree.Children, g.Root, func(n *Node) bool {
			tested++
			return n.ID == target
		})
		if target < 0 {
			if ok || n != nil || tested != len(order) {
				t.Fatalf("found %v %v after %d tests, want none after %d", n, ok, tested, len(order))
			}
			return
		}
		if !ok || n.ID != target {
			t.Fatalf("found %v %v, want n%d", n, ok, target)
		}
		if want := slices.Index(order, target) + 1; tested != want {
			t.Fatalf("tested %d nodes, want %d", tested, want)
		}
	})
}

func TestFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(200).Draw(t, "graph")
		mod := rapid.IntRange(2, 5).Draw(t, "mod")
		keep := func(n *Node) bool { return n.ID%mod != 1 }
		want := refPreOrder(g.Root, keep, nil)
		if got := ids(tree.All(tree.Filter(testtree.Children, keep), g.Root)); !slices.Equal(got, want) {
			t.Fatalf("got %v want %v", got, want)
		}
	})
}

func TestMapAndContramap(t *testing.T) {
	type wrapped struct{ n *Node }
	type deep struct {
		n     *Node
		depth int
	}
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(200).Draw(t, "graph")
		want := refPreOrder(g.Root, nil, nil)
		m := tree.Map(testtree.Children, func(n *Node) wrapped { return wrapped{n} }, func(w wrapped) *Node { return w.n })
		var got []int
		for w := range tree.All(m, wrapped{g.Root}) {
			got = append(got, w.n.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Map: got %v want %v", got, want)
		}
		depths := map[int]int{}
		var rec func(n *Node, d int)
		rec = func(n *Node, d int) {
			depths[n.ID] = d
			for _, c := range n.Children {
				rec(c, d+1)
			}
		}
		rec(g.Root, 0)
		cm := tree.Contramap(testtree.Children, func(d deep) *Node { return d.n },
			func(p deep, c *Node) deep { return deep{c, p.depth + 1} })
		got = got[:0]
		for d := range tree.All(cm, deep{g.Root, 0}) {
			got = append(got, d.n.ID)
			if d.depth != depths[d.n.ID] {
				t.Fatalf("node %d: depth %d, want %d", d.n.ID, d.depth, depths[d.n.ID])
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Contramap: got %v want %v", got, want)
		}
	})
}

func TestMemoizeOncePerKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.DAG(14).Draw(t, "graph")
		calls := map[int]int{}
		counting := tree.Trace(testtree.Children, tree.TraceHooks[*Node]{Node: func(n *Node) { calls[n.ID]++ }})
		memo := tree.Memoize(counting, testtree.Key)
		want := refPreOrder(g.Root, nil, nil)
		for range 2 {
			if got := ids(tree.All(memo, g.Root)); !slices.Equal(got, want) {
				t.Fatalf("got %v want %v", got, want)
			}
		}
		for id, n := range calls {
			if n != 1 {
				t.Fatalf("children of n%d listed %d times", id, n)
			}
		}
		// The memoized Treeish is a slice one: its slice function gives
		// each node's stored children, without listing them again.
		kids := memo.SliceFunc()
		if kids == nil {
			t.Fatal("Memoize's Treeish has no slice function")
		}
		for _, n := range g.Nodes {
			if got := kids(n); !slices.Equal(got, n.Children) {
				t.Fatalf("SliceFunc(n%d) = %v, want %v", n.ID, got, n.Children)
			}
		}
		if len(calls) != len(g.Nodes) {
			t.Fatalf("%d nodes listed after the slice function, %d reachable", len(calls), len(g.Nodes))
		}
		for id, n := range calls {
			if n != 1 {
				t.Fatalf("children of n%d listed %d times after the slice function", id, n)
			}
		}
	})
}

func TestMemoizeConcurrent(t *testing.T) {
	g := testtree.Complete(3, 3000)
	var calls [3000]atomic.Int32
	counting := tree.Trace(testtree.Children, tree.TraceHooks[*Node]{Node: func(n *Node) { calls[n.ID].Add(1) }})
	memo := tree.Memoize(counting, testtree.Key)
	want := refPreOrder(g.Root, nil, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := ids(tree.All(memo, g.Root)); !slices.Equal(got, want) {
				errs <- fmt.Errorf("concurrent walk saw another pre-order")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for id := range calls {
		if n := calls[id].Load(); n != 1 {
			t.Fatalf("children of n%d listed %d times", id, n)
		}
	}
}

func TestMemoizeRetriesAfterPanic(t *testing.T) {
	fail := true
	g := tree.FromFunc(func(n int, yield func(int) bool) {
		if n == 0 {
			if fail {
				fail = false
				panic("boom")
			}
			_ = yield(1) && yield(2)
		}
	})
	memo := tree.Memoize(g, func(n int) int { return n })
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want boom", r)
			}
		}()
		tree.CountSeq(memo, 0)
	}()
	if n := tree.CountSeq(memo, 0); n != 3 {
		t.Fatalf("after the panic: %d nodes, want 3", n)
	}
}

func TestMemoizeEarlyStopStillCachesAll(t *testing.T) {
	memo := tree.Memoize(tree.FromSlice(func(n int) []int {
		if n == 0 {
			return []int{1, 2, 3}
		}
		return nil
	}), func(n int) int { return n })
	memo.Each(0, func(int) bool { return false }) // the caller stops at once
	var got []int
	memo.Each(0, func(c int) bool { got = append(got, c); return true })
	if !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("got %v", got)
	}
}

func TestTraceCounts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := testtree.AnyTree(200).Draw(t, "graph")
		var nodes, children, done int
		traced := tree.Trace(testtree.Children, tree.TraceHooks[*Node]{
			Node: func(*Node) { nodes++ },
			Child: func(p, c *Node, i int) {
				if p.Children[i] != c {
					t.Fatalf("child %d of %v reported as %v", i, p, c)
				}
				children++
			},
			Done: func(n *Node, k int, stopped bool) {
				if k != len(n.Children) || stopped {
					t.Fatalf("%v: done with %d (stopped %v), has %d", n, k, stopped, len(n.Children))
				}
				done++
			},
		})
		tree.CountSeq(traced, g.Root)
		if nodes != len(g.Nodes) || done != len(g.Nodes) || children != len(g.Nodes)-1 {
			t.Fatalf("hooks: %d nodes, %d done, %d children for %d nodes", nodes, done, children, len(g.Nodes))
		}
	})
}

func TestBigShapes(t *testing.T) {
	const million = 1_000_000
	if n := tree.CountSeq(testtree.Chain(million), 0); n != million {
		t.Fatalf("chain: %d", n)
	}
	if n := tree.CountSeq(testtree.Wide(million), 0); n != million {
		t.Fatalf("wide: %d", n)
	}
	// Pre-order on the chain and the wide node: the deepest and the last.
	last := -1
	tree.WalkSeq(testtree.Chain(million), 0, func(i int) bool {
		if i != last+1 {
			t.Fatalf("chain: %d after %d", i, last)
		}
		last = i
		return true
	})
	if n, ok := tree.FindSeq(testtree.Wide(million), 0, func(i int) bool { return i == million-1 }); !ok || n != million-1 {
		t.Fatalf("wide: FindSeq = %d, %v", n, ok)
	}
	if n := tree.CountSeq(testtree.Binary(testtree.BigBinary), 0); n != testtree.BigBinary {
		t.Fatalf("binary: %d", n)
	}
}

func TestWalkAllocations(t *testing.T) {
	g := testtree.Complete(8, 20000)
	allocs := testing.AllocsPerRun(20, func() { tree.CountSeq(testtree.Children, g.Root) })
	if allocs > 5 {
		t.Fatalf("CountSeq: %v allocations per walk of 20000 nodes", allocs)
	}
	allocs = testing.AllocsPerRun(20, func() { tree.WalkSeq(testtree.Children, g.Root, func(*Node) bool { return true }) })
	if allocs > 5 {
		t.Fatalf("WalkSeq: %v allocations per walk of 20000 nodes", allocs)
	}
}

// TestNilFunctions: a nil function given to a constructor or a sequential
// walk is refused where it is passed, with a message naming the call and
// the argument, rather than failing later as a nil dereference inside a walk.
func TestNilFunctions(t *testing.T) {
	g := tree.FromSlice(func(n int) []int { return nil })
	id := func(n int) int { return n }
	for name, c := range map[string]struct {
		f    func()
		want string
	}{
		"FromSlice":        {func() { tree.FromSlice[int](nil) }, "nil children"},
		"FromIter":         {func() { tree.FromIter[int](nil) }, "nil children"},
		"Filter":           {func() { tree.Filter(g, nil) }, "nil keep"},
		"Filter of nil":    {func() { tree.Filter(tree.Treeish[int]{}, func(int) bool { return true }) }, "zero Treeish g"},
		"Map":              {func() { tree.Map(g, id, nil) }, "nil from"},
		"Contramap":        {func() { tree.Contramap[int, int](g, id, nil) }, "nil lift"},
		"Memoize":          {func() { tree.Memoize[int, int](g, nil) }, "nil key"},
		"Trace":            {func() { tree.Trace[int](tree.Treeish[int]{}, tree.TraceHooks[int]{}) }, "zero Treeish g"},
		"WalkSeq":          {func() { tree.WalkSeq(g, 0, nil) }, "nil visit"},
		"CountSeq":         {func() { tree.CountSeq[int](tree.Treeish[int]{}, 0) }, "zero Treeish g"},
		"FindSeq":          {func() { tree.FindSeq(g, 0, nil) }, "nil pred"},
		"FindSeq of nil g": {func() { tree.FindSeq(tree.Treeish[int]{}, 0, func(int) bool { return true }) }, "zero Treeish g"},
	} {
		testcheck.MustPanicWith(t, name, c.f, "tree: "+name[:len(strings.Fields(name)[0])], c.want)
	}
}

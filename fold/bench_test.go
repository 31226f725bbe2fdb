package fold_test

import (
	"fmt"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/tree"
)

// The benchmarks compare Seq with hand-written recursion on the same
// pointer trees:
//
//   - hand-direct: a recursive function written for the workload, with no
//     callbacks at all (the floor);
//   - hand-callbacks: recursion calling the same Fold callbacks and the
//     same children slice function as Seq; its heap is a local whose
//     address goes to Accumulate, so Go moves it to the heap (one
//     allocation per node), as it would for anyone writing this by hand;
//   - hand-callbacks-slab: the same recursion with heaps kept in a slice
//     indexed by depth, so nothing escapes: the best a hand-written
//     recursion through the callbacks can do;
//   - hand-treeish-slab: the same through a push Treeish (g.Each, a yield
//     call per child);
//   - seq: fold.Seq with tree.FromSlice over the same children function,
//     which it reads as a slice;
//   - seq-func: fold.Seq through a push Treeish (FromFunc) over the same
//     children.
//
// Each reports ns/node. Workloads: "noop" counts the nodes of a complete
// 8-ary tree of 2×10^5 nodes (callbacks that do next to nothing); "sum"
// adds the values of a perfect binary tree of 2^20-1 nodes.

func kidsOf(n *Node) []*Node { return n.Children }

func handCount(n *Node) int {
	c := 1
	for _, k := range n.Children {
		c += handCount(k)
	}
	return c
}

func handSum(n *Node) int64 {
	s := n.Value
	for _, k := range n.Children {
		s += handSum(k)
	}
	return s
}

func handFold[N, H, R any](f fold.Fold[N, H, R], kids func(N) []N, n N) R {
	h := f.Init(n)
	for _, c := range kids(n) {
		f.Accumulate(&h, handFold(f, kids, c))
	}
	return f.Finalize(&h)
}

type slabFolder[N, H, R any] struct {
	f    fold.Fold[N, H, R]
	kids func(N) []N
	hs   []H
}

func (s *slabFolder[N, H, R]) fold(n N, d int) R {
	if d == len(s.hs) {
		s.hs = append(s.hs, s.f.Init(n))
	} else {
		s.hs[d] = s.f.Init(n)
	}
	for _, c := range s.kids(n) {
		r := s.fold(c, d+1)
		s.f.Accumulate(&s.hs[d], r)
	}
	return s.f.Finalize(&s.hs[d])
}

// treeishFolder is the best recursion through a push Treeish (its Each):
// heaps in a slice indexed by depth, and one yield function per depth made
// once, so that nothing is allocated per node.
type treeishFolder[N, H, R any] struct {
	f      fold.Fold[N, H, R]
	g      tree.Treeish[N]
	hs     []H
	yields []func(N) bool
}

func (s *treeishFolder[N, H, R]) fold(n N, d int) R {
	if d == len(s.hs) {
		s.hs = append(s.hs, s.f.Init(n))
		s.yields = append(s.yields, func(c N) bool {
			r := s.fold(c, d+1)
			s.f.Accumulate(&s.hs[d], r)
			return true
		})
	} else {
		s.hs[d] = s.f.Init(n)
	}
	s.g.Each(n, s.yields[d])
	return s.f.Finalize(&s.hs[d])
}

func noopFold() fold.Fold[*Node, int, int] {
	return fold.New(
		func(*Node) int { return 1 },
		func(h *int, c int) { *h += c },
		func(h *int) int { return *h },
	)
}

func sumFold() fold.Fold[*Node, int64, int64] {
	return fold.Sum(func(n *Node) int64 { return n.Value })
}

func perNode(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
}

func benchWorkload[H, R comparable](b *testing.B, g *testtree.Graph, f fold.Fold[*Node, H, R], direct func(*Node) R) {
	n := len(g.Nodes)
	want := direct(g.Root)
	check := func(b *testing.B, got R) {
		if got != want {
			b.Fatalf("got %v want %v", got, want)
		}
	}
	b.Run("hand-direct", func(b *testing.B) {
		for range b.N {
			check(b, direct(g.Root))
		}
		perNode(b, n)
	})
	b.Run("hand-callbacks", func(b *testing.B) {
		for range b.N {
			check(b, handFold(f, kidsOf, g.Root))
		}
		perNode(b, n)
	})
	b.Run("hand-callbacks-slab", func(b *testing.B) {
		s := &slabFolder[*Node, H, R]{f: f, kids: kidsOf}
		for range b.N {
			check(b, s.fold(g.Root, 0))
		}
		perNode(b, n)
	})
	b.Run("hand-treeish-slab", func(b *testing.B) {
		s := &treeishFolder[*Node, H, R]{f: f, g: tree.FromSlice(kidsOf)}
		for range b.N {
			check(b, s.fold(g.Root, 0))
		}
		perNode(b, n)
	})
	b.Run("seq", func(b *testing.B) {
		children := tree.FromSlice(kidsOf)
		for range b.N {
			check(b, fold.Seq(f, children, g.Root))
		}
		perNode(b, n)
	})
	b.Run("seq-func", func(b *testing.B) {
		children := tree.FromFunc(func(n *Node, yield func(*Node) bool) {
			for _, c := range n.Children {
				if !yield(c) {
					return
				}
			}
		})
		for range b.N {
			check(b, fold.Seq(f, children, g.Root))
		}
		perNode(b, n)
	})
}

func BenchmarkSeq(b *testing.B) {
	b.Run("noop-bf8-2e5", func(b *testing.B) {
		benchWorkload(b, testtree.Complete(8, 200_000), noopFold(), handCount)
	})
	b.Run("sum-binary-2e20", func(b *testing.B) {
		benchWorkload(b, testtree.Complete(2, 1<<20-1), sumFold(), handSum)
	})
}

// BenchmarkSeqShapes measures Seq on the big implicit shapes (no memory
// per node besides the fold's stacks).
func BenchmarkSeqShapes(b *testing.B) {
	for _, s := range []struct {
		name string
		g    tree.Treeish[int]
		n    int
	}{
		{"chain-1e6", testtree.Chain(1_000_000), 1_000_000},
		{"wide-1e6", testtree.Wide(1_000_000), 1_000_000},
		{"binary-1e6", testtree.Binary(1_000_000), 1_000_000},
	} {
		b.Run(fmt.Sprintf("%s/seq", s.name), func(b *testing.B) {
			for range b.N {
				fold.Seq(fold.Size[int](), s.g, 0)
			}
			perNode(b, s.n)
		})
		b.Run(fmt.Sprintf("%s/seqdag", s.name), func(b *testing.B) {
			for range b.N {
				fold.SeqDAG(fold.Size[int](), s.g, 0, func(i int) int { return i })
			}
			perNode(b, s.n)
		})
	}
}

package fold_test

import (
	"fmt"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// BenchmarkFineGrain finds the crossover between a fold and the fork: a
// binary tree of 10^5 nodes (pre-order) whose every node does `work`
// iterations of an LCG loop, summed by the plain recursion, by the typed
// fork at every node (P = 2) and by fold.Run (P = 2). docs/tuning.md quotes
// the crossover in ns of work per node (the plain recursion's ns/node less
// its ns/node at work 0).
func BenchmarkFineGrain(b *testing.B) {
	root := fineBalanced(2, 100_000)
	const n = 100_000
	for _, work := range []int{0, 2, 4, 8, 16, 32, 64} {
		spin := func(v int64) int64 {
			x := uint64(v)
			for range work {
				x = x*6364136223846793005 + 1442695040888963407
			}
			return int64(x >> 60)
		}
		var plain func(*fineNode) int64
		plain = func(nd *fineNode) int64 {
			h := nd.Val + spin(nd.Val)
			for _, c := range nd.Kids {
				h += plain(c)
			}
			return h
		}
		var fk *forkjoin.Fork[*fineNode, int64]
		fk = forkjoin.NewFork(func(f *forkjoin.Fork[*fineNode, int64], w *forkjoin.Worker, nd *fineNode) int64 {
			h := nd.Val + spin(nd.Val)
			switch len(nd.Kids) {
			case 1:
				h += fk.Call(w, nd.Kids[0])
			case 2:
				l, r := fk.Join(w, nd.Kids[0], nd.Kids[1])
				h += l + r
			}
			return h
		})
		f := fold.New(
			func(nd *fineNode) int64 { return nd.Val + spin(nd.Val) },
			func(h *int64, c int64) { *h += c },
			func(h *int64) int64 { return *h },
		)
		g := tree.FromSlice(fineKids)
		want := plain(root)
		p := pool.New(2)
		strategies := []struct {
			name string
			run  func() int64
		}{
			{"plain", func() int64 { return plain(root) }},
			{"fork-p2", func() int64 {
				var s int64
				forkjoin.Run(p, func(w *forkjoin.Worker) { s = fk.Call(w, root) })
				return s
			}},
			{"run-p2", func() int64 { return fold.Run(p, f, g, root) }},
			{"seq", func() int64 { return fold.Seq(f, g, root) }},
		}
		for _, s := range strategies {
			b.Run(fmt.Sprintf("work%d/%s", work, s.name), func(b *testing.B) {
				s.run()
				b.ResetTimer()
				for range b.N {
					if s.run() != want {
						b.Fatal("wrong sum")
					}
				}
				perNode(b, n)
			})
		}
		p.Close()
	}
}

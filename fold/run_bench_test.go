package fold_test

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// BenchmarkRun compares fold.Run with fold.Seq in the same run, on two
// workloads: noop on a complete 8-ary tree of 2×10^5 nodes and
// sum on a perfect binary tree of 2^20-1 nodes, at parallelism 1 and 2.
func BenchmarkRun(b *testing.B) {
	children := tree.FromSlice(kidsOf)
	for _, wl := range []struct {
		name string
		g    *testtree.Graph
	}{
		{"noop-bf8-2e5", testtree.Complete(8, 200_000)},
		{"sum-bin-2^20", testtree.Complete(2, 1<<20-1)},
	} {
		f := noopFold()
		want := fold.Seq(f, children, wl.g.Root)
		n := len(wl.g.Nodes)
		b.Run(wl.name+"/seq", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if fold.Seq(f, children, wl.g.Root) != want {
					b.Fatal("wrong")
				}
			}
			perNode(b, n)
		})
		for _, par := range []int{1, 2} {
			b.Run(wl.name+"/run-p"+string(rune('0'+par)), func(b *testing.B) {
				pool.With(par, func(p *pool.Pool) {
					fold.Run(p, f, children, wl.g.Root) // warm the pool
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						if fold.Run(p, f, children, wl.g.Root) != want {
							b.Fatal("wrong")
						}
					}
					perNode(b, n)
					b.ReportMetric(float64(testing.AllocsPerRun(3, func() { fold.Run(p, f, children, wl.g.Root) }))/float64(n), "allocs/node")
				})
			})
		}
	}
}

// BenchmarkRunTiny is the fixed cost of one Run on a 10-node tree, warm
// pool, parallelism 2 (hylic: 77–157 µs on this machine class).
func BenchmarkRunTiny(b *testing.B) {
	g := testtree.Complete(3, 10)
	children := tree.FromSlice(kidsOf)
	f := noopFold()
	for _, par := range []int{1, 2} {
		b.Run("p"+string(rune('0'+par)), func(b *testing.B) {
			pool.With(par, func(p *pool.Pool) {
				fold.Run(p, f, children, g.Root)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					fold.Run(p, f, children, g.Root)
				}
			})
		})
	}
}

// TestPeakLiveHeaps counts heaps alive at once (Init done, Finalize not
// yet) during a Run over a perfect binary tree of 2^20-1 nodes: memory
// follows live work, not the tree's size.
func TestPeakLiveHeaps(t *testing.T) {
	const nodes = 1<<20 - 1
	g := testtree.Binary(nodes)
	var live, peak atomic.Int64
	f := fold.New(
		func(int) int {
			l := live.Add(1)
			for {
				p := peak.Load()
				if l <= p || peak.CompareAndSwap(p, l) {
					break
				}
			}
			return 1
		},
		func(h *int, c int) { *h += c },
		func(h *int) int { live.Add(-1); return *h },
	)
	for _, par := range []int{1, 2, 4} {
		live.Store(0)
		peak.Store(0)
		var got int
		pool.With(par, func(p *pool.Pool) { got = fold.Run(p, f, g, 0) })
		if got != nodes {
			t.Fatalf("p=%d: counted %d nodes", par, got)
		}
		// A participant holds at most the heaps of one path per walk it is
		// in (its own, plus those it nests while waiting): depth 20 here.
		// hylic keeps 16,384 of 32,767 alive to the end on 2^15.
		limit := int64(20 * 8 * par)
		t.Logf("p=%d: peak live heaps %d of %d nodes (limit %d); GOMAXPROCS %d", par, peak.Load(), nodes, limit, runtime.GOMAXPROCS(0))
		if peak.Load() > limit {
			t.Fatalf("p=%d: %d heaps alive at once, more than %d", par, peak.Load(), limit)
		}
	}
}

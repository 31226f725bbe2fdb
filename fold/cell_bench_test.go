package fold_test

import (
	"slices"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// BenchmarkCell runs single cells of hylic's matrix (and the wide node)
// through fold.Run at parallelism 2, beside fold.Seq on the same fold in
// the same benchmark, and reports the pool's steals and parks per run.
// The tree is implicit (node x has children bf*x+1 .. bf*x+bf below n) and
// the work is a spin loop, as in the bench program: init, accumulate (per
// child), finalize and children iterations per node.
func BenchmarkCell(b *testing.B) {
	for _, c := range []struct {
		name                     string
		bf, n                    int
		init, acc, fin, children int
	}{
		{"hash-bf2-n200", 2, 200, 5000, 1000, 0, 5000},
		{"bal-bf20-n200", 20, 200, 50000, 50000, 50000, 50000},
		{"aggr-bf20-n200", 20, 200, 5000, 100000, 5000, 5000},
		{"noop-wide-1e5", 100000, 100001, 0, 0, 0, 0},
		{"noop-bf8-1e5", 8, 100000, 0, 0, 0, 0},   // the bench program's noop row
		{"noop-chain-1e5", 1, 100000, 0, 0, 0, 0}, // nothing to deal: a thief's request stands
	} {
		spin := func(x uint64, k int) uint64 {
			for range k {
				x = x*6364136223846793005 + 1442695040888963407
			}
			return x
		}
		children := tree.FromFunc(func(x int, yield func(int) bool) {
			spin(uint64(x), c.children)
			for k := x*c.bf + 1; k <= x*c.bf+c.bf && k < c.n; k++ {
				if !yield(k) {
					return
				}
			}
		})
		f := fold.New(
			func(x int) uint64 { return spin(uint64(x), c.init) },
			func(h *uint64, r uint64) { *h = (*h<<7 | *h>>57 ^ spin(r, c.acc)) * 0x100000001b3 },
			func(h *uint64) uint64 { return spin(*h, c.fin) },
		)
		want := fold.Seq(f, children, 0)
		b.Run(c.name+"/seq", func(b *testing.B) {
			for range b.N {
				fold.Seq(f, children, 0)
			}
		})
		b.Run(c.name+"/run-p2", func(b *testing.B) {
			pool.With(2, func(p *pool.Pool) {
				fold.Run(p, f, children, 0) // warm the pool
				s0 := p.Stats()
				b.ResetTimer()
				for range b.N {
					if fold.Run(p, f, children, 0) != want {
						b.Fatal("Run differs from Seq")
					}
				}
				b.StopTimer()
				s1 := p.Stats()
				b.ReportMetric(float64(s1.Steals-s0.Steals)/float64(b.N), "steals/run")
				b.ReportMetric(float64(s1.Parks-s0.Parks)/float64(b.N), "parks/run")
			})
		})
	}
}

// BenchmarkColdRun is fold.Run on an idle pool: before each run the
// benchmark sleeps (untimed) long enough for the worker to stop searching
// and park, so every run pays for waking it, as a program pays that runs a
// fold now and then, and as the bench program's samples of one run do.
// The shape is the bench program's noop row: bf 8, 10^5 nodes, an implicit
// tree. Cold runs are bimodal on virtual machines (docs/BENCHMARKS.md,
// "Cold runs"), so the median run is reported beside the mean.
func BenchmarkColdRun(b *testing.B) {
	const bf, n = 8, 100_000
	children := tree.FromFunc(func(x int, yield func(int) bool) {
		for k := x*bf + 1; k <= x*bf+bf && k < n; k++ {
			if !yield(k) {
				return
			}
		}
	})
	f := fold.New(
		func(x int) uint64 { return uint64(x) },
		func(h *uint64, r uint64) { *h = (*h<<7 | *h>>57 ^ r) * 0x100000001b3 },
		func(h *uint64) uint64 { return *h },
	)
	want := fold.Seq(f, children, 0)
	b.Run("seq", func(b *testing.B) {
		for range b.N {
			fold.Seq(f, children, 0)
		}
	})
	b.Run("run-p2", func(b *testing.B) {
		pool.With(2, func(p *pool.Pool) {
			fold.Run(p, f, children, 0) // start the worker
			runs := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				time.Sleep(idleGap) // the worker parks: not a synchronisation
				b.StartTimer()
				t0 := time.Now()
				if fold.Run(p, f, children, 0) != want {
					b.Fatal("Run differs from Seq")
				}
				runs = append(runs, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(runs)
			b.ReportMetric(float64(runs[len(runs)/2].Nanoseconds()), "median-ns/run")
		})
	})
}

// idleGap is the pause before each of BenchmarkColdRun's runs: well over
// the 100 µs a worker searches before it parks.
const idleGap = 3 * time.Millisecond

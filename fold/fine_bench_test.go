package fold_test

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// The fine-grained benchmarks measure a fold whose callbacks do next to
// nothing against the recursion a Go programmer writes for the same sum:
//
//	func sum(n *fineNode) int64 {
//		h := n.Val
//		for _, c := range n.Kids { h += sum(c) }
//		return h
//	}
//
// over trees allocated in pre-order. The fold is fold.New(init n.Val,
// accumulate *h += c, finalize *h) with tree.FromSlice children.
//
// BenchmarkFine is the benchmark loop. BenchmarkFineOneRun times single
// runs: each iteration is one set, a collection and then one run of every
// strategy in turn, warm (right after the previous run) and again with a
// 2 ms pause before each run; it reports the medians over the sets as
// ratios. Run it with a fixed count of sets, e.g.
//
//	go test -run '^$' -bench FineOneRun -benchtime 31x ./fold/

type fineNode struct {
	Val  int64
	Kids []*fineNode
}

func fineSum(n *fineNode) int64 {
	h := n.Val
	for _, c := range n.Kids {
		h += fineSum(c)
	}
	return h
}

func fineKids(n *fineNode) []*fineNode { return n.Kids }

func fineFold() fold.Fold[*fineNode, int64, int64] {
	return fold.New(
		func(n *fineNode) int64 { return n.Val },
		func(h *int64, c int64) { *h += c },
		func(h *int64) int64 { return *h },
	)
}

// fineBalanced builds a complete tree of n nodes with branching bf, in
// pre-order (every node is allocated before its children's subtrees).
func fineBalanced(bf, n int) *fineNode {
	// Node i (breadth-first numbering) has children bf*i+1 .. bf*i+bf.
	var build func(i int) *fineNode
	build = func(i int) *fineNode {
		nd := &fineNode{Val: int64(i%7 + 1)}
		for c := bf*i + 1; c <= bf*i+bf && c < n; c++ {
			nd.Kids = append(nd.Kids, build(c))
		}
		return nd
	}
	return build(0)
}

func fineWide(n int) *fineNode {
	root := &fineNode{Val: 1, Kids: make([]*fineNode, 0, n-1)}
	for i := 1; i < n; i++ {
		root.Kids = append(root.Kids, &fineNode{Val: int64(i%7 + 1)})
	}
	return root
}

func fineChain(n int) *fineNode {
	root := &fineNode{Val: 1}
	at := root
	for i := 1; i < n; i++ {
		c := &fineNode{Val: int64(i%7 + 1)}
		at.Kids = []*fineNode{c}
		at = c
	}
	return root
}

type fineTree struct {
	name string
	root *fineNode
}

func fineTrees() []fineTree {
	return []fineTree{
		{"bf8-1e5", fineBalanced(8, 100_000)},
		{"bf2-1e5", fineBalanced(2, 100_000)},
		{"bf8-1e6", fineBalanced(8, 1_000_000)},
		{"wide-1e5", fineWide(100_000)},
		{"chain-1e5", fineChain(100_000)},
	}
}

// fineStrategies returns the strategies compared, each a function folding
// root: plain, seq, run-p1 (on p1), run-p2 (on p2), and walk-p1: the
// parallel walk that fold.Run takes at p = 2 (internal/walk), here on p1,
// where nobody asks it for work: its own cost per node, without steals.
func fineStrategies(p1, p2 *pool.Pool) []struct {
	name string
	run  func(*fineNode) int64
} {
	f, g := fineFold(), tree.FromSlice(fineKids)
	return []struct {
		name string
		run  func(*fineNode) int64
	}{
		{"plain", fineSum},
		{"seq", func(r *fineNode) int64 { return fold.Seq(f, g, r) }},
		{"run-p1", func(r *fineNode) int64 { return fold.Run(p1, f, g, r) }},
		{"run-p2", func(r *fineNode) int64 { return fold.Run(p2, f, g, r) }},
		{"walk-p1", func(r *fineNode) int64 {
			var res int64
			forkjoin.Run(p1, func(w *forkjoin.Worker) {
				ops := &walk.Ops[*fineNode, int64, int64]{Init: f.Init, Accumulate: f.Accumulate, Finalize: f.Finalize, Children: g.Each, Slice: g.SliceFunc()}
				res = walk.Run(w, ops, r)
			})
			return res
		}},
	}
}

func BenchmarkFine(b *testing.B) {
	p1, p2 := pool.New(1), pool.New(2)
	defer p1.Close()
	defer p2.Close()
	for _, t := range fineTrees() {
		want := fineSum(t.root)
		for _, s := range fineStrategies(p1, p2) {
			b.Run(t.name+"/"+s.name, func(b *testing.B) {
				s.run(t.root)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if s.run(t.root) != want {
						b.Fatal("wrong sum")
					}
				}
			})
		}
	}
}

func BenchmarkFineOneRun(b *testing.B) {
	p1, p2 := pool.New(1), pool.New(2)
	defer p1.Close()
	defer p2.Close()
	strategies := fineStrategies(p1, p2)
	for _, t := range fineTrees() {
		want := fineSum(t.root)
		b.Run(t.name, func(b *testing.B) {
			// samples[mode][strategy]: mode 0 warm, 1 after a pause.
			var samples [2][][]float64
			for m := range samples {
				samples[m] = make([][]float64, len(strategies))
			}
			for range b.N {
				for m := range samples {
					runtime.GC()
					for i, s := range strategies {
						if m == 1 {
							time.Sleep(2 * time.Millisecond)
						} else {
							s.run(t.root) // warm: this run follows one of its own
						}
						samples[m][i] = append(samples[m][i], timedRun(b, s.run, t.root, want))
					}
				}
			}
			med := func(m, i int) float64 { return median(samples[m][i]) }
			b.ReportMetric(med(0, 0), "plain-ns")
			for m, mode := range []string{"", "-pause"} {
				b.ReportMetric(med(m, 1)/med(m, 0), "seq/plain"+mode)
				b.ReportMetric(med(m, 2)/med(m, 1), "run1/seq"+mode)
				b.ReportMetric(med(m, 3)/med(m, 0), "run2/plain"+mode)
				b.ReportMetric(med(m, 4)/med(m, 1), "walk1/seq"+mode)
			}
			b.ReportMetric(spread(samples[0][0]), "plain-spread")
		})
	}
}

// BenchmarkFineLow times single warm runs, every strategy in turn, and
// reports each strategy's tenth percentile in ns: on a loaded machine the
// runs that no other process interrupted, so that two builds can be
// compared one after the other. Run it with a fixed count, e.g.
//
//	go test -run '^$' -bench FineLow -benchtime 40x ./fold/
func BenchmarkFineLow(b *testing.B) {
	p1, p2 := pool.New(1), pool.New(2)
	defer p1.Close()
	defer p2.Close()
	strategies := fineStrategies(p1, p2)
	for _, t := range fineTrees() {
		want := fineSum(t.root)
		b.Run(t.name, func(b *testing.B) {
			samples := make([][]float64, len(strategies))
			for range b.N {
				for i, s := range strategies {
					s.run(t.root)
					samples[i] = append(samples[i], timedRun(b, s.run, t.root, want))
				}
			}
			for i, s := range strategies {
				x := slices.Clone(samples[i])
				slices.Sort(x)
				b.ReportMetric(x[len(x)/10], s.name+"-p10-ns")
			}
		})
	}
}

// timedRun runs run once on root, fails b if the sum is not want, and
// returns the run's time in ns.
func timedRun(b *testing.B, run func(*fineNode) int64, root *fineNode, want int64) float64 {
	start := time.Now()
	got := run(root)
	ns := float64(time.Since(start).Nanoseconds())
	if got != want {
		b.Fatal("wrong sum")
	}
	return ns
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// spread is the interquartile range relative to the median.
func spread(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) < 4 {
		return 0
	}
	return (s[3*len(s)/4] - s[len(s)/4]) / s[len(s)/2]
}

// BenchmarkChainPeak folds a chain of 10^6 nodes (an implicit tree of
// ints) with Seq and with Run on a new pool, one run per iteration, and
// reports the time and the peak of the heap's live objects above what was
// live before the run (sampled every 100 µs, so a lower bound). Seq and
// Run keep their stacks for the next run in a sync.Pool, which a
// collection moves to its victim cache and a second one empties: "kept"
// runs after one collection, so both may find their stacks; "cold" after
// two, so both make them anew.
func BenchmarkChainPeak(b *testing.B) {
	const n = 1_000_000
	g := testtree.Chain(n)
	f := fold.Size[int]()
	for _, s := range []struct {
		name string
		par  int
		gcs  int
	}{{"kept/seq", 0, 1}, {"kept/run-p1", 1, 1}, {"kept/run-p2", 2, 1},
		{"cold/seq", 0, 2}, {"cold/run-p1", 1, 2}, {"cold/run-p2", 2, 2}} {
		b.Run(s.name, func(b *testing.B) {
			var peaks []float64
			for range b.N {
				var p *pool.Pool
				if s.par > 0 {
					p = pool.New(s.par)
				}
				b.StopTimer()
				for range s.gcs {
					runtime.GC()
				}
				base := liveHeap()
				stop, peak := samplePeak()
				b.StartTimer()
				var got int
				if p == nil {
					got = fold.Seq(f, g, 0)
				} else {
					got = fold.Run(p, f, g, 0)
				}
				b.StopTimer()
				peaks = append(peaks, float64(stop()-base))
				_ = peak
				if p != nil {
					p.Close()
				}
				if got != n {
					b.Fatalf("counted %d", got)
				}
				b.StartTimer()
			}
			b.ReportMetric(median(peaks)/(1<<20), "peak-MiB")
		})
	}
}

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// samplePeak samples liveHeap until the returned stop is called, which
// returns the highest value seen.
func samplePeak() (stop func() uint64, peak *atomic.Uint64) {
	peak = new(atomic.Uint64)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			if v := liveHeap(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		if v := liveHeap(); v > peak.Load() {
			peak.Store(v)
		}
		return peak.Load()
	}, peak
}

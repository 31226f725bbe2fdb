package fold_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// layered returns an implicit DAG of layers layers of width keys each:
// key l*width+j has three children in layer l+1 (j, 7j+1 and 13j+5 modulo
// width), so from the root 0 the reached part of a layer triples until it
// fills the layer, and most keys have several parents.
func layered(layers, width int) tree.Treeish[int] {
	return tree.FromFunc(func(k int, yield func(int) bool) {
		l, j := k/width, k%width
		if l+1 >= layers {
			return
		}
		next := (l + 1) * width
		_ = yield(next+j) && yield(next+(7*j+1)%width) && yield(next+(13*j+5)%width)
	})
}

// BenchmarkDAG compares RunDAG at parallelism 1 and 2 with SeqDAG in the
// same run, counting with fold.Size over implicit graphs of ints keyed by
// themselves: a chain of 10^6 keys, one node with 10^6-1 leaf children, a
// complete binary tree of 10^6 keys, and a layered DAG of 100 layers of
// 10^4 keys with three children each (most keys shared). Each reports
// ns/node (per distinct key), the bytes allocated per run, and peak-MiB:
// the median, over three runs after the timed ones, of the peak of the
// heap's live objects above what was live before the run (sampled every
// 100 µs, so a lower bound).
func BenchmarkDAG(b *testing.B) {
	for _, s := range []struct {
		name string
		g    tree.Treeish[int]
	}{
		{"chain-1e6", testtree.Chain(1_000_000)},
		{"wide-1e6", testtree.Wide(1_000_000)},
		{"binary-1e6", testtree.Binary(1_000_000)},
		{"layered-100x1e4", layered(100, 10_000)},
	} {
		f := fold.Size[int]()
		key := func(i int) int { return i }
		want, err := fold.SeqDAG(f, s.g, 0, key)
		if err != nil {
			b.Fatal(err)
		}
		keys := countKeys(s.g)
		for _, par := range []int{0, 1, 2} {
			name := s.name + "/seqdag"
			if par > 0 {
				name = s.name + "/rundag-p" + string(rune('0'+par))
			}
			b.Run(name, func(b *testing.B) {
				run := func() int {
					r, err := fold.SeqDAG(f, s.g, 0, key)
					if err != nil {
						b.Fatal(err)
					}
					return r
				}
				if par > 0 {
					p := pool.New(par)
					defer p.Close()
					run = func() int {
						r, err := fold.RunDAG(context.Background(), p, f, s.g, 0, key)
						if err != nil {
							b.Fatal(err)
						}
						return r
					}
				}
				run() // warm the pool
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if run() != want {
						b.Fatal("wrong result")
					}
				}
				perNode(b, keys)
				b.StopTimer()
				var peaks []float64
				for range 3 {
					runtime.GC()
					base := liveHeap()
					stop, _ := samplePeak()
					run()
					peaks = append(peaks, float64(stop()-base))
				}
				b.ReportMetric(median(peaks)/(1<<20), "peak-MiB")
			})
		}
	}
}

// countKeys counts the distinct keys reachable from 0.
func countKeys(g tree.Treeish[int]) int {
	seen := map[int]bool{0: true}
	stack := []int{0}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		g.Each(n, func(c int) bool {
			if !seen[c] {
				seen[c] = true
				stack = append(stack, c)
			}
			return true
		})
	}
	return len(seen)
}

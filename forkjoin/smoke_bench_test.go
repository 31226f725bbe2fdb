package forkjoin

import (
	"testing"

	"github.com/forkjoin-go/forkjoin/pool"
)

func benchTree(b *testing.B, depth int) (*tnode, int64) {
	var c int64
	root := buildTree(depth, &c)
	return root, seqSum(root)
}

func BenchmarkSmokeSeq(b *testing.B) {
	root, want := benchTree(b, 20)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if seqSum(root) != want {
			b.Fatal("bad")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(1<<20-1), "ns/node")
}

func BenchmarkSmokeFork(b *testing.B) {
	root, want := benchTree(b, 20)
	for _, n := range []int{1, 2} {
		b.Run("p"+string(rune('0'+n)), func(b *testing.B) {
			pool.With(n, func(p *pool.Pool) {
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					var got int64
					Run(p, func(w *Worker) { got = sumFork.Call(w, root) })
					if got != want {
						b.Fatal("bad")
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(1<<20-1), "ns/node")
			})
		})
	}
}

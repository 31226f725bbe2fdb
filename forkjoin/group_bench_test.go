package forkjoin_test

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// BenchmarkGroupGo: a Group of 1,000 empty tasks spawned with Go from
// outside the pool, then Wait; ns per task. goroutines-pN is the same
// with errgroup's mechanism at GOMAXPROCS N: a goroutine per task, a
// WaitGroup, the first error kept (errgroup itself, a dependency this
// module does not take, is the bench program's: go run ./bench
// -workloads spawn).
func BenchmarkGroupGo(b *testing.B) {
	const tasks = 1000
	for _, n := range []int{1, 2} {
		b.Run("goroutines-p"+string(rune('0'+n)), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
			body := func() error { return nil }
			for b.Loop() {
				var wg sync.WaitGroup
				var once sync.Once
				var first error
				for range tasks {
					wg.Add(1)
					go func() {
						defer wg.Done()
						if err := body(); err != nil {
							once.Do(func() { first = err })
						}
					}()
				}
				wg.Wait()
				if first != nil {
					b.Fatal(first)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tasks), "ns/task")
		})
	}
	for _, n := range []int{1, 2} {
		b.Run("p"+string(rune('0'+n)), func(b *testing.B) {
			pool.With(n, func(p *pool.Pool) {
				body := func() error { return nil }
				for b.Loop() {
					g, _ := forkjoin.NewGroup(context.Background(), p)
					for range tasks {
						g.Go(body)
					}
					if err := g.Wait(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tasks), "ns/task")
			})
		})
	}
}

// BenchmarkGroupSmallTasks: 2,000 tasks of 2,000 LCG iterations each (the
// bench's many_small row), through a Group and through For, on a pool of
// 2.
func BenchmarkGroupSmallTasks(b *testing.B) {
	const tasks, iters = 2000, 2000
	res := make([]uint64, tasks)
	pool.With(2, func(p *pool.Pool) {
		b.Run("group", func(b *testing.B) {
			for b.Loop() {
				g, _ := forkjoin.NewGroup(context.Background(), p)
				for i := range tasks {
					g.Go(func() error { res[i] = spin(iters); return nil })
				}
				g.Wait()
			}
		})
		b.Run("for", func(b *testing.B) {
			for b.Loop() {
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.For(w, tasks, 1, func(_ *forkjoin.Worker, lo, hi int) {
						for i := lo; i < hi; i++ {
							res[i] = spin(iters)
						}
					})
				})
			}
		})
		b.Run("scope", func(b *testing.B) {
			for b.Loop() {
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.Scope(w, func(s *forkjoin.Spawner) {
						for i := range tasks {
							s.Spawn(w, func(*forkjoin.Worker) { res[i] = spin(iters) })
						}
					})
				})
			}
		})
	})
}

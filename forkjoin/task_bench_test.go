package forkjoin_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

func spin(n int) uint64 {
	h := uint64(n)
	for i := 0; i < n; i++ {
		h = h*6364136223846793005 + 1442695040888963407
	}
	return h
}

var sink atomic.Uint64

// BenchmarkPriorityLatency: the time from Spawn to the start of a High task
// while 10^4 Background tasks (~2 µs each) are queued ahead of it.
func BenchmarkPriorityLatency(b *testing.B) {
	pool.With(2, func(p *pool.Pool) {
		var total time.Duration
		for i := 0; i < b.N; i++ {
			for j := 0; j < 10_000; j++ {
				forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) { sink.Add(spin(1500)); return 0, nil },
					forkjoin.WithPriority(forkjoin.Background))
			}
			start := time.Now()
			h := forkjoin.Spawn(p, func(*forkjoin.Worker) (time.Duration, error) { return time.Since(start), nil },
				forkjoin.WithPriority(forkjoin.High))
			d, _ := h.Join()
			total += d
			// let the background tasks finish before the next round
			forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) { return 0, nil }, forkjoin.WithPriority(forkjoin.Background)).Join()
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/high-start")
	})
}

// BenchmarkSpawnJoin: one Spawn and Join per task (allocations per task).
func BenchmarkSpawnJoin(b *testing.B) {
	pool.With(2, func(p *pool.Pool) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			h := forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) { return 1, nil })
			h.Join()
		}
	})
}

// BenchmarkScopeSpawn: 1,000 empty tasks spawned in a Scope per op.
func BenchmarkScopeSpawn(b *testing.B) {
	pool.With(2, func(p *pool.Pool) {
		b.ReportAllocs()
		var n atomic.Int64
		body := func(*forkjoin.Worker) { n.Add(1) }
		for i := 0; i < b.N; i++ {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					for j := 0; j < 1000; j++ {
						s.Spawn(w, body)
					}
				})
			})
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/task")
	})
}

// BenchmarkSubmitBatch: 1,000 intrusive tasks submitted as one Batch per
// op and drained; no allocation per task.
func BenchmarkSubmitBatch(b *testing.B) {
	pool.With(2, func(p *pool.Pool) {
		b.ReportAllocs()
		var left atomic.Int64
		done := make(chan struct{}, 1)
		tasks := make([]forkjoin.Task, 1000)
		for i := range tasks {
			tasks[i].Init(func(*forkjoin.Worker, *forkjoin.Task) {
				if left.Add(-1) == 0 {
					done <- struct{}{}
				}
			})
		}
		var batch forkjoin.Batch
		for i := 0; i < b.N; i++ {
			left.Store(int64(len(tasks)))
			for j := range tasks {
				batch.Push(&tasks[j])
			}
			forkjoin.SubmitBatch(p, &batch, forkjoin.Normal)
			<-done
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/task")
	})
}

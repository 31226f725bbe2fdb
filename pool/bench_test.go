package pool_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/internal/poolcore"
	"github.com/forkjoin-go/forkjoin/pool"
)

// BenchmarkDispatch measures the round trip of an empty Dispatch on a warm
// pool: publish, wake, an empty body, seal and latch. This is the fixed
// cost every run on a pool pays (hylic: 77–157 µs per run; rayon's install:
// 15–17 µs).
func BenchmarkDispatch(b *testing.B) {
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			p := pool.New(n)
			defer p.Close()
			job := &dispatch.Job{Call: func(unsafe.Pointer, int) {}}
			body := func() {}
			(*poolcore.Pool)(p).Dispatch(job, body) // warm: start the workers
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				(*poolcore.Pool)(p).Dispatch(job, body)
			}
		})
	}
}

// BenchmarkDispatchParked is the same empty round trip when every worker
// is asleep at the start: the fixed cost of a run that follows an idle
// spell, which pays for waking the workers (NotifyAll with sleepers) but
// does not wait for them to arrive. Before each timed Dispatch the loop
// waits until every worker has come back from the previous one and parked
// again; that wait is not timed, so the figure is the ns/dispatch metric
// (ns/op includes the waiting).
func BenchmarkDispatchParked(b *testing.B) {
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			p := pool.New(n)
			defer p.Close()
			job := &dispatch.Job{Call: func(unsafe.Pointer, int) {}}
			body := func() {}
			(*poolcore.Pool)(p).Dispatch(job, body)
			parks := int64(0) // parks needed before the next dispatch
			var timed time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if !pollUntil(func() bool {
					return pool.TotalParks(p) >= parks && pool.ParkedWorkers(p) == n-1
				}) {
					b.Fatal("the workers did not park")
				}
				// Each parked worker wakes once for this dispatch and parks
				// once more afterwards.
				parks = pool.TotalParks(p) + int64(n-1)
				start := time.Now()
				(*poolcore.Pool)(p).Dispatch(job, body)
				timed += time.Since(start)
			}
			b.ReportMetric(float64(timed.Nanoseconds())/float64(b.N), "ns/dispatch")
		})
	}
}

// BenchmarkDispatchLoop is a small parallel loop (1024 items claimed one by
// one) per Dispatch, so that workers have something to join.
func BenchmarkDispatchLoop(b *testing.B) {
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			p := pool.New(n)
			defer p.Close()
			c := newClaimJob(1024)
			body := func() { c.work(false) }
			(*poolcore.Pool)(p).Dispatch(&c.job, body)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.next.Store(0)
				(*poolcore.Pool)(p).Dispatch(&c.job, body)
			}
		})
	}
}

// BenchmarkWakeLatency measures how long a parked worker takes to enter a
// dispatched job: each iteration waits (untimed) until the worker is
// asleep, then dispatches a job whose body spins until the worker is in.
// "chan" is the same hand-off to a goroutine blocked on a channel receive,
// the floor that Go's scheduler and the OS set on this machine.
func BenchmarkWakeLatency(b *testing.B) {
	b.Run("pool", func(b *testing.B) {
		p := pool.New(2)
		defer p.Close()
		var entered atomic.Bool
		job := &dispatch.Job{Call: func(unsafe.Pointer, int) { entered.Store(true) }}
		body := func() {
			for !entered.Load() {
			}
		}
		(*poolcore.Pool)(p).Dispatch(job, body) // start the worker
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			entered.Store(false)
			if !pollUntil(func() bool { return pool.ParkedWorkers(p) == 1 }) {
				b.Fatal("the worker did not park")
			}
			b.StartTimer()
			(*poolcore.Pool)(p).Dispatch(job, body)
		}
	})
	b.Run("chan", func(b *testing.B) {
		ch := make(chan struct{})
		var entered, ready atomic.Bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			ready.Store(true)
			for range ch {
				entered.Store(true)
				ready.Store(true)
			}
		}()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			if !pollUntil(ready.Load) {
				b.Fatal("the receiver did not come back")
			}
			ready.Store(false)
			entered.Store(false)
			b.StartTimer()
			ch <- struct{}{}
			for !entered.Load() {
			}
		}
		b.StopTimer()
		close(ch)
		<-done
	})
}

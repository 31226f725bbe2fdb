//go:build unix

package pool_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/poolcore"
	"github.com/forkjoin-go/forkjoin/pool"
)

// processCPU is the CPU time (user + system) the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIdleCPU measures the CPU time the whole process uses while a
// warmed pool sits idle for one second, reported as cpu-µs/idle-s. The
// "no-pool" case is the same second without a pool: the Go runtime's own
// background cost, for comparison. The goal is that a pool adds nothing.
// Each iteration takes one second of wall-clock time; ns/op is meaningless.
func BenchmarkIdleCPU(b *testing.B) {
	for _, n := range []int{0, 2, 4, 8} {
		name := "no-pool"
		if n > 0 {
			name = fmt.Sprintf("n=%d", n)
		}
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				// The same warm-up work in both cases: with a pool it is
				// dispatched, without one the caller does it alone.
				var p *pool.Pool
				c := newClaimJob(1024)
				if n > 0 {
					p = pool.New(n)
				}
				for r := 0; r < 1000; r++ {
					c.next.Store(0)
					if p != nil {
						(*poolcore.Pool)(p).Dispatch(&c.job, func() { c.work(false) })
					} else {
						c.work(false)
					}
				}
				if p != nil && !pollUntil(func() bool {
					st := p.Stats()
					return st.Parks-st.Wakeups == int64(st.WorkersAlive)
				}) {
					b.Fatal("the workers did not park")
				}
				before := processCPU(b)
				time.Sleep(time.Second)
				total += processCPU(b) - before
				if p != nil {
					p.Close()
				}
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "cpu-µs/idle-s")
		})
	}
}

package forkjoin_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

func TestMain(m *testing.M) {
	crashChild() // crash_test.go: the child process of TestCrashReportShowsOrigin
	os.Exit(m.Run())
}

// slotModes runs bench on a pool with the LIFO slot (pool.WithLIFOSlot)
// and on one without, one after the other, so that -count interleaves
// them (A B A B).
func slotModes(b *testing.B, bench func(b *testing.B, opts ...pool.Option)) {
	b.Run("slot", func(b *testing.B) { bench(b, pool.WithLIFOSlot()) })
	b.Run("noslot", func(b *testing.B) { bench(b) })
}

// chainTasks is how many tasks a message-passing op runs in all.
const chainTasks = 100_000

// BenchmarkChain is message passing: each task does a little work on its
// chain's message, spawns its successor with it and ends; chains
// independent chains of chainTasks/chains tasks each, in one Scope, on a
// pool of parallelism 2.
func BenchmarkChain(b *testing.B) {
	for _, chains := range []int{1, 2, 64} {
		b.Run("chains="+strconv.Itoa(chains), func(b *testing.B) {
			slotModes(b, func(b *testing.B, opts ...pool.Option) { benchChain(b, chains, opts...) })
		})
	}
}

// chainMsg is a chain's message: what each task reads and rewrites.
type chainMsg struct {
	left int
	h    [6]uint64
}

func benchChain(b *testing.B, chains int, opts ...pool.Option) {
	pool.With(2, func(p *pool.Pool) {
		b.ReportAllocs()
		msgs := make([]chainMsg, chains)
		for i := 0; i < b.N; i++ {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					hops := make([]func(w *forkjoin.Worker), chains)
					for c := range hops {
						m := &msgs[c]
						hops[c] = func(w *forkjoin.Worker) {
							for k := range m.h {
								m.h[k] = m.h[k]*6364136223846793005 + uint64(m.left)
							}
							if m.left--; m.left > 0 {
								s.Spawn(w, hops[c])
							}
						}
					}
					for c := range msgs {
						msgs[c].left = chainTasks / chains
						s.Spawn(w, hops[c])
					}
				})
			})
		}
		var h uint64
		for _, m := range msgs {
			h += m.h[0]
		}
		sink.Add(h)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/chainTasks, "ns/task")
	}, opts...)
}

// BenchmarkSpawnWait: loops tasks each spawn a child and wait for it (a
// Scope of one task), chainTasks/loops times, on a pool of parallelism 2.
func BenchmarkSpawnWait(b *testing.B) {
	for _, loops := range []int{1, 64} {
		b.Run("loops="+strconv.Itoa(loops), func(b *testing.B) {
			slotModes(b, func(b *testing.B, opts ...pool.Option) { benchSpawnWait(b, loops, opts...) })
		})
	}
}

func benchSpawnWait(b *testing.B, loops int, opts ...pool.Option) {
	pool.With(2, func(p *pool.Pool) {
		b.ReportAllocs()
		res := make([]uint64, loops)
		for i := 0; i < b.N; i++ {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					for l := range res {
						s.Spawn(w, func(w *forkjoin.Worker) {
							h := uint64(l)
							for j := 0; j < chainTasks/loops; j++ {
								forkjoin.Scope(w, func(s *forkjoin.Spawner) {
									s.Spawn(w, func(*forkjoin.Worker) { h = h*6364136223846793005 + uint64(j) })
								})
							}
							res[l] = h
						})
					}
				})
			})
		}
		sink.Add(res[0])
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/chainTasks, "ns/task")
	}, opts...)
}

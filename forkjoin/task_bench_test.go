package forkjoin_test

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync"
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

// BenchmarkScopeSpawnCold: BenchmarkScopeSpawn with 2,000 tasks per op and
// every cache emptied before each op (32 MB written, untimed), as when a
// burst of tasks follows other work: each line of task memory a spawn
// writes is then a miss.
func BenchmarkScopeSpawnCold(b *testing.B) {
	const tasks = 2000
	junk := make([]byte, 32<<20)
	pool.With(2, func(p *pool.Pool) {
		b.ReportAllocs()
		var n atomic.Int64
		body := func(*forkjoin.Worker) { n.Add(1) }
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			for j := 0; j < len(junk); j += 64 {
				junk[j]++
			}
			b.StartTimer()
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					for j := 0; j < tasks; j++ {
						s.Spawn(w, body)
					}
				})
			})
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/tasks, "ns/task")
	})
}

// BenchmarkScopeBurst is the bench program's many_small row as it meets a
// pool there: 2 ms of other work on the caller (the pool's worker parks
// meanwhile, untimed), then a Scope of 2,000 tasks of ~2 µs each. Besides
// the time per op it reports the median time of the spawning loop
// (spawn-µs): the caller runs no task until the loop is over, and the
// task structs it fills are cold (many were last used on the other core).
func BenchmarkScopeBurst(b *testing.B) {
	const tasks = 2000
	res := make([]uint64, tasks)
	loops := make([]time.Duration, 0, b.N)
	pool.With(2, func(p *pool.Pool) {
		for range b.N {
			b.StopTimer()
			sink.Add(spin(2_000_000))
			b.StartTimer()
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					start := time.Now()
					for i := range tasks {
						s.Spawn(w, func(*forkjoin.Worker) { res[i] = spin(2000) })
					}
					loops = append(loops, time.Since(start))
				})
			})
		}
	})
	slices.Sort(loops)
	b.ReportMetric(float64(loops[len(loops)/2].Nanoseconds())/1e3, "spawn-µs")
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
			forkjoin.SubmitBatch(p, &batch)
			<-done
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/task")
	})
}

// BenchmarkZapSpawn is zap's spawn test: 10 spawning tasks, each spawning
// 100,000 empty tasks into one Scope; ns/task over the whole run. In
// p2-gc two garbage collections (untimed) precede every run, as they do
// when bursts of tasks are separated by the rest of a program's work.
func BenchmarkZapSpawn(b *testing.B) {
	for _, par := range []int{1, 2} {
		b.Run("p"+string(rune('0'+par)), func(b *testing.B) { benchZapSpawn(b, par, false) })
	}
	b.Run("p2-gc", func(b *testing.B) { benchZapSpawn(b, 2, true) })
}

func benchZapSpawn(b *testing.B, par int, collect bool) {
	const spawners, perSpawner = 10, 100_000
	pool.With(par, func(p *pool.Pool) {
		b.ReportAllocs()
		// One counter per spawner on lines of its own (as the bench
		// program's spawn workload does): the tasks' own work shares
		// nothing unless they are stolen.
		var counts [spawners]struct {
			n atomic.Int64
			_ [120]byte
		}
		for i := 0; i < b.N; i++ {
			if collect {
				b.StopTimer()
				runtime.GC()
				runtime.GC()
				b.StartTimer()
			}
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					for j := 0; j < spawners; j++ {
						c := &counts[j].n
						body := func(*forkjoin.Worker) { c.Add(1) }
						s.Spawn(w, func(w *forkjoin.Worker) {
							for k := 0; k < perSpawner; k++ {
								s.Spawn(w, body)
							}
						})
					}
				})
			})
		}
		var total int64
		for j := range counts {
			total += counts[j].n.Load()
		}
		if total != int64(b.N)*spawners*perSpawner {
			b.Fatalf("ran %d tasks, want %d", total, int64(b.N)*spawners*perSpawner)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/spawners/perSpawner, "ns/task")
	})
}

// qsortLeaf is the length below which the quicksorts of BenchmarkQsort sort
// sequentially (insertion sort below 16 inside slices.Sort).
const qsortLeaf = 1 << 11

// qsortInput returns n pseudo-random ints (the same for every n).
func qsortInput(n int) []int {
	a := make([]int, n)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range a {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		a[i] = int(x >> 1)
	}
	return a
}

// qsortPartition partitions a around the median of three and returns the
// pivot's final index: a[:p] ≤ a[p] ≤ a[p+1:].
func qsortPartition(a []int) int {
	m, h := len(a)/2, len(a)-1
	if a[m] < a[0] {
		a[m], a[0] = a[0], a[m]
	}
	if a[h] < a[0] {
		a[h], a[0] = a[0], a[h]
	}
	if a[h] < a[m] {
		a[h], a[m] = a[m], a[h]
	}
	a[m], a[h] = a[h], a[m] // pivot (the median) at the end
	pivot, i := a[h], 0
	for j := 0; j < h; j++ {
		if a[j] < pivot {
			a[i], a[j] = a[j], a[i]
			i++
		}
	}
	a[i], a[h] = a[h], a[i]
	return i
}

// qsortSpawn sorts a with spawned tasks: each partition step spawns the
// left part into the Scope and goes on with the right part.
func qsortSpawn(s *forkjoin.Spawner, w *forkjoin.Worker, a []int, tasks *int64) {
	n := int64(0)
	for len(a) > qsortLeaf {
		p := qsortPartition(a)
		left := a[:p]
		s.Spawn(w, func(w *forkjoin.Worker) { qsortSpawn(s, w, left, tasks) })
		n++
		a = a[p+1:]
	}
	slices.Sort(a)
	atomic.AddInt64(tasks, n)
}

// qsortGo is the same with a goroutine per spawn.
func qsortGo(wg *sync.WaitGroup, a []int) {
	for len(a) > qsortLeaf {
		p := qsortPartition(a)
		left := a[:p]
		wg.Add(1)
		go func() { defer wg.Done(); qsortGo(wg, left) }()
		a = a[p+1:]
	}
	slices.Sort(a)
}

// BenchmarkQsort: quicksort of 10^7 ints as spawned tasks (a Scope), as
// goroutines (a WaitGroup), and sequentially; ns/task, tasks and allocs
// per sort. The input is copied outside the timing.
func BenchmarkQsort(b *testing.B) {
	const n = 10_000_000
	in := qsortInput(n)
	a := make([]int, n)
	check := func(b *testing.B) {
		if !slices.IsSorted(a) {
			b.Fatal("not sorted")
		}
	}
	b.Run("scope-tasks", func(b *testing.B) {
		pool.With(2, func(p *pool.Pool) {
			b.ReportAllocs()
			var tasks int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				copy(a, in)
				b.StartTimer()
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.Scope(w, func(s *forkjoin.Spawner) { qsortSpawn(s, w, a, &tasks) })
				})
			}
			check(b)
			b.ReportMetric(float64(tasks)/float64(b.N), "tasks/op")
		})
	})
	b.Run("goroutines", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			copy(a, in)
			b.StartTimer()
			var wg sync.WaitGroup
			qsortGo(&wg, a)
			wg.Wait()
		}
		check(b)
	})
	b.Run("sequential", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			copy(a, in)
			b.StartTimer()
			qsortGoSeq(a)
		}
		check(b)
	})
}

// qsortGoSeq is the same quicksort without any parallelism.
func qsortGoSeq(a []int) {
	for len(a) > qsortLeaf {
		p := qsortPartition(a)
		qsortGoSeq(a[:p])
		a = a[p+1:]
	}
	slices.Sort(a)
}

// BenchmarkGraph is the bench program's dependency_graph: a root, a
// fan-out of 200 nodes that read the root's result, and a join that reads
// all of them; every node spins iters iterations (0: the graph's own cost,
// ns per node). Building the graph is timed too: it is part of a run.
func BenchmarkGraph(b *testing.B) {
	for _, iters := range []int{0, 2000} {
		b.Run("spin"+strconv.Itoa(iters), func(b *testing.B) { benchGraph(b, 200, iters) })
	}
}

func benchGraph(b *testing.B, fanOut, iters int) {
	pool.With(2, func(p *pool.Pool) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			g := forkjoin.NewGraph()
			root := forkjoin.AddNode(g, func(*forkjoin.Worker) (uint64, error) { return spin(iters), nil }, nil)
			rootDep := []forkjoin.Dep{root}
			mids := make([]forkjoin.Dep, fanOut)
			midNodes := make([]*forkjoin.GraphNode[uint64], fanOut)
			for j := range mids {
				midNodes[j] = forkjoin.AddNode(g, func(*forkjoin.Worker) (uint64, error) {
					return root.Value() + spin(iters), nil
				}, rootDep)
				mids[j] = midNodes[j]
			}
			join := forkjoin.AddNode(g, func(*forkjoin.Worker) (uint64, error) {
				var s uint64
				for _, m := range midNodes {
					s += m.Value()
				}
				return s + spin(iters), nil
			}, mids)
			if err := g.Run(p); err != nil {
				b.Fatal(err)
			}
			sink.Add(join.Value())
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(fanOut+2), "ns/node")
	})
}

// BenchmarkGraphTimeline: where a dependency-graph run's time goes. Each op
// runs the seed runtime's graph (1 → 200 → 1, 2,000-iteration tasks, ~2.7 µs
// each here) on a 2-worker pool and notes how long the whole op took and
// whether a garbage collection happened during it. In "build" every op
// builds the graph first (and build-µs is the median build); in "rerun" the
// graph is built once and every op runs it again. Reported: the median op
// without a collection (op-µs), the share of ops with one, and their median.
func BenchmarkGraphTimeline(b *testing.B) {
	const fanOut, iters = 200, 2000
	gcs := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	gcCount := func() uint64 {
		metrics.Read(gcs)
		return gcs[0].Value.Uint64()
	}
	build := func() (*forkjoin.Graph, *forkjoin.GraphNode[uint64]) {
		g := forkjoin.NewGraph()
		root := forkjoin.AddNode(g, func(*forkjoin.Worker) (uint64, error) { return spin(iters), nil }, nil)
		rootDep := []forkjoin.Dep{root}
		mids := make([]forkjoin.Dep, fanOut)
		midNodes := make([]*forkjoin.GraphNode[uint64], fanOut)
		for j := range mids {
			midNodes[j] = forkjoin.AddNode(g, func(*forkjoin.Worker) (uint64, error) {
				return root.Value() + spin(iters), nil
			}, rootDep)
			mids[j] = midNodes[j]
		}
		join := forkjoin.AddNode(g, func(*forkjoin.Worker) (uint64, error) {
			var s uint64
			for _, m := range midNodes {
				s += m.Value()
			}
			return s + spin(iters), nil
		}, mids)
		return g, join
	}
	med := func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	for _, rebuild := range []bool{true, false} {
		name := "rerun"
		if rebuild {
			name = "build"
		}
		b.Run(name, func(b *testing.B) {
			pool.With(2, func(p *pool.Pool) {
				g, join := build()
				var builds, clean, withGC []float64
				for i := 0; i < b.N; i++ {
					gc0 := gcCount()
					t0 := time.Now()
					if rebuild {
						g, join = build()
						builds = append(builds, float64(time.Since(t0).Nanoseconds()))
					}
					if err := g.Run(p); err != nil {
						b.Fatal(err)
					}
					total := time.Since(t0)
					sink.Add(join.Value())
					if gcCount() != gc0 {
						withGC = append(withGC, float64(total.Nanoseconds()))
					} else {
						clean = append(clean, float64(total.Nanoseconds()))
					}
				}
				if rebuild {
					b.ReportMetric(med(builds)/1e3, "build-µs")
				}
				b.ReportMetric(med(clean)/1e3, "op-µs")
				b.ReportMetric(100*float64(len(withGC))/float64(b.N), "%ops-with-gc")
				b.ReportMetric(med(withGC)/1e3, "gc-op-µs")
			})
		})
	}
}

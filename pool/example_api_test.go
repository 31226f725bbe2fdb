package pool_test

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// A pool is created once and handed to the layers above; here forkjoin
// sums a range on it. With stops and joins the workers when it returns.
func Example() {
	pool.With(0, func(p *pool.Pool) { // 0: one participant per GOMAXPROCS
		var total int64
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			total = forkjoin.Reduce(w, 1000, 0,
				func(_ *forkjoin.Worker, lo, hi int) int64 {
					var s int64
					for i := lo; i < hi; i++ {
						s += int64(i)
					}
					return s
				},
				func(a, b int64) int64 { return a + b })
		})
		fmt.Println("sum of 0..999:", total)
	})
	// Output: sum of 0..999: 499500
}

// One long-lived pool can serve several goroutines at once: each
// forkjoin.Run on it is a run of its own, and its caller works too.
func ExamplePool() {
	p := pool.New(2)
	defer p.Close()

	counts := make([]int, 3) // counts[i]: multiples of i+2 in [0, 1000)
	var wg sync.WaitGroup
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				counts[i] = forkjoin.Reduce(w, 1000, 100,
					func(_ *forkjoin.Worker, lo, hi int) (n int) {
						for k := lo; k < hi; k++ {
							if k%(i+2) == 0 {
								n++
							}
						}
						return n
					},
					func(a, b int) int { return a + b })
			})
		}()
	}
	wg.Wait()
	fmt.Println(counts)
	// Output: [500 334 250]
}

// Workers start lazily: none before the first work, as many as the work
// needs (at most Workers) once it runs, and none after Close.
func ExamplePool_WorkersAlive() {
	p := pool.New(3)
	fmt.Println("before any work:", p.WorkersAlive())
	sumOfSquares(p, 100000)
	fmt.Println("after a run, at most 2:", p.WorkersAlive() <= p.Workers())
	p.Close()
	fmt.Println("after Close:", p.WorkersAlive())
	// Output:
	// before any work: 0
	// after a run, at most 2: true
	// after Close: 0
}

// Stats.ByPriority splits the spawned tasks by priority, indexed by
// forkjoin.Priority. A task that panics is counted as Panicked, not
// Completed.
func ExamplePriorityStats() {
	p := pool.New(2)
	var handles []*forkjoin.Handle[int]
	for i := 0; i < 2; i++ {
		handles = append(handles, forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) {
			return i, nil
		}, forkjoin.WithPriority(forkjoin.High)))
	}
	for i := 0; i < 3; i++ {
		handles = append(handles, forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) {
			if i == 2 {
				panic("bad input")
			}
			return i, nil
		}, forkjoin.WithPriority(forkjoin.Background)))
	}
	for _, h := range handles {
		h.Join() // a panic comes back as the handle's error
	}
	p.Close()
	st := p.Stats()
	for _, prio := range []forkjoin.Priority{forkjoin.High, forkjoin.Normal, forkjoin.Background} {
		fmt.Printf("%-10s %+v\n", prio, st.ByPriority[prio])
	}
	// Output:
	// High       {Submitted:2 Completed:2 Panicked:0 Canceled:0}
	// Normal     {Submitted:0 Completed:0 Panicked:0 Canceled:0}
	// Background {Submitted:3 Completed:2 Panicked:1 Canceled:0}
}

// A Stats snapshot taken after Close is exact: every spawned task is in the
// counts. How many workers started depends on timing; that it is at most
// Workers() and that each has an entry in Stats.Workers does not.
func ExampleStats() {
	p := pool.New(2)
	var ran atomic.Int64
	for run := 0; run < 3; run++ {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.Spawner) {
				for i := 0; i < 10; i++ {
					s.Spawn(w, func(*forkjoin.Worker) { ran.Add(1) })
				}
			})
		})
	}
	p.Close()
	st := p.Stats()
	fmt.Println("runs", st.Runs, "submitted", st.Submitted, "completed", st.Completed, "ran", ran.Load())
	fmt.Println("started ≤ workers:", st.WorkersStarted <= int64(p.Workers()),
		"one entry each:", len(st.Workers) == int(st.WorkersStarted),
		"alive:", st.WorkersAlive)
	// Output:
	// runs 3 submitted 30 completed 30 ran 30
	// started ≤ workers: true one entry each: true alive: 0
}

// The per-participant counts add up to the pool's totals: each started
// worker has a WorkerStats entry, and Callers holds what ran on the
// goroutines that called Run.
func ExampleWorkerStats() {
	p := pool.New(2)
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.Scope(w, func(s *forkjoin.Spawner) {
			for i := 0; i < 100; i++ {
				s.Spawn(w, func(*forkjoin.Worker) {})
			}
		})
	})
	p.Close()
	st := p.Stats()
	sum := st.Callers
	for _, ws := range st.Workers {
		sum.Tasks += ws.Tasks
		sum.Submitted += ws.Submitted
		sum.Completed += ws.Completed
	}
	fmt.Println("tasks add up:", sum.Tasks == st.Tasks)
	fmt.Println("submitted:", sum.Submitted, "completed:", sum.Completed, "of", st.Completed)
	// Output:
	// tasks add up: true
	// submitted: 100 completed: 100 of 100
}

// A task that spawns one child and waits for it, many times over: with the
// LIFO slot on, each child runs next on the participant that spawned it.
func ExampleWithLIFOSlot() {
	pool.With(2, func(p *pool.Pool) {
		var sum int
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			for i := 1; i <= 100; i++ {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					s.Spawn(w, func(*forkjoin.Worker) { sum += i })
				})
			}
		})
		fmt.Println(sum)
	}, pool.WithLIFOSlot())
	// Output: 5050
}

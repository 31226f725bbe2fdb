package pool_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// sumOfSquares adds i*i for i in [0, n) on p: a parallel loop that
// completes with whoever takes part, the caller alone if need be.
func sumOfSquares(p *pool.Pool, n int) int64 {
	var total int64
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		total = forkjoin.Reduce(w, n, 0,
			func(_ *forkjoin.Worker, lo, hi int) (s int64) {
				for i := lo; i < hi; i++ {
					s += int64(i) * int64(i)
				}
				return s
			},
			func(a, b int64) int64 { return a + b })
	})
	return total
}

// With scopes a pool: its workers are stopped and joined when the function
// returns, so no goroutine outlives the call.
func ExampleWith() {
	pool.With(4, func(p *pool.Pool) {
		fmt.Println("sum of squares:", sumOfSquares(p, 1000)) // the caller works too
	})
	// Output: sum of squares: 332833500
}

// New creates a pool that lives until Close. Parallelism counts the caller:
// a pool of 4 has 3 background workers, started when work first needs them.
func ExampleNew() {
	p := pool.New(4)
	defer p.Close()
	fmt.Println("parallelism", p.Parallelism(), "workers", p.Workers(), "started", p.Stats().WorkersStarted)
	// Output: parallelism 4 workers 3 started 0
}

// WithSpawn decides how workers start. Here the first pool counts its
// workers; the second cannot start any, and its work still completes on
// the caller alone.
func ExampleWithSpawn() {
	var spawned atomic.Int32
	counting := func(run func()) error {
		spawned.Add(1)
		go run()
		return nil
	}
	pool.With(4, func(p *pool.Pool) {
		sum := sumOfSquares(p, 10)
		fmt.Println("spawned at most 3:", spawned.Load() <= 3, "sum", sum)
	}, pool.WithSpawn(counting))

	failing := func(run func()) error { return errors.New("no more goroutines") }
	pool.With(4, func(p *pool.Pool) {
		sum := sumOfSquares(p, 10)
		st := p.Stats()
		fmt.Println("started", st.WorkersStarted, "failures", st.SpawnFailures, "sum", sum)
	}, pool.WithSpawn(failing))
	// Output:
	// spawned at most 3: true sum 285
	// started 0 failures 1 sum 285
}

// Options are values: collect them to configure several pools alike.
func ExampleOption() {
	opts := []pool.Option{pool.WithSpawn(func(run func()) error { go run(); return nil })}
	p := pool.New(2, opts...)
	defer p.Close()
	fmt.Println(p.Parallelism())
	// Output: 2
}

func ExamplePool_Stats() {
	p := pool.New(2)
	for i := 0; i < 3; i++ {
		sumOfSquares(p, 100)
	}
	p.Close()
	st := p.Stats()
	fmt.Println("parallelism", st.Parallelism, "runs", st.Runs, "alive", st.WorkersAlive)
	fmt.Println("one entry per worker started:", len(st.Workers) == int(st.WorkersStarted), "wake-ups ≤ parks:", st.Wakeups <= st.Parks)
	// Output:
	// parallelism 2 runs 3 alive 0
	// one entry per worker started: true wake-ups ≤ parks: true
}

func ExamplePool_Parallelism() {
	pool.With(3, func(p *pool.Pool) {
		fmt.Printf("parallelism %d = %d workers + the caller\n", p.Parallelism(), p.Workers())
	})
	// Output: parallelism 3 = 2 workers + the caller
}

func ExamplePool_Workers() {
	p := pool.New(1) // the caller alone: no background worker
	defer p.Close()
	fmt.Println(p.Workers())
	// Output: 0
}

func ExamplePool_Close() {
	p := pool.New(4)
	sumOfSquares(p, 10)
	p.Close()
	p.Close() // idempotent
	fmt.Println("closed:", p.Closed(), "workers alive:", p.Stats().WorkersAlive)
	// Output: closed: true workers alive: 0
}

func ExamplePool_Closed() {
	p := pool.New(2)
	fmt.Println(p.Closed())
	p.Close()
	fmt.Println(p.Closed())
	// Output:
	// false
	// true
}

func ExampleDefaultParallelism() {
	fmt.Println(pool.DefaultParallelism() == runtime.GOMAXPROCS(0))
	// Output: true
}

// PhysicalCores reads the processor (0 if it does not say); pass it to New
// for one participant per physical core.
func ExamplePhysicalCores() {
	n := pool.PhysicalCores()
	if n == 0 {
		n = pool.DefaultParallelism()
	}
	pool.With(n, func(p *pool.Pool) {
		fmt.Println(p.Parallelism() == n)
	})
	// Output: true
}

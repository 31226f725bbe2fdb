package pool_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/dispatch"
	"github.com/forkjoin-go/forkjoin/pool"
)

// squares is a parallel loop: the caller and the workers claim indexes
// until none is left, so it completes with whoever takes part.
type squares struct {
	out  []int64
	next atomic.Int64
}

func (s *squares) work() {
	for {
		i := int(s.next.Add(1) - 1)
		if i >= len(s.out) {
			return
		}
		s.out[i] = int64(i) * int64(i)
	}
}

// job wraps the loop in a two-word dispatch.Job for the workers.
func (s *squares) job() *dispatch.Job {
	return &dispatch.Job{
		Call: func(data unsafe.Pointer, worker int) { (*squares)(data).work() },
		Data: unsafe.Pointer(s),
	}
}

func (s *squares) sum() (total int64) {
	for _, v := range s.out {
		total += v
	}
	return total
}

// With scopes a pool: its workers are stopped and joined when the function
// returns, so no goroutine outlives the call.
func ExampleWith() {
	pool.With(4, func(p *pool.Pool) {
		s := &squares{out: make([]int64, 1000)}
		p.Dispatch(s.job(), s.work) // the caller works too
		fmt.Println("sum of squares:", s.sum())
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

// Dispatch publishes a job to the workers, runs the body on the caller and
// returns when nobody is inside the job any more, so its data can be
// reused at once.
func ExamplePool_Dispatch() {
	p := pool.New(2)
	defer p.Close()
	s := &squares{out: make([]int64, 100)}
	job := s.job()
	for run := 1; run <= 3; run++ {
		s.next.Store(0) // recycle the same state for the next run
		clear(s.out)
		p.Dispatch(job, s.work)
		fmt.Println("run", run, "sum", s.sum())
	}
	// Output:
	// run 1 sum 328350
	// run 2 sum 328350
	// run 3 sum 328350
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
		s := &squares{out: make([]int64, 10)}
		p.Dispatch(s.job(), s.work)
		fmt.Println("spawned", spawned.Load(), "sum", s.sum())
	}, pool.WithSpawn(counting))

	failing := func(run func()) error { return errors.New("no more goroutines") }
	pool.With(4, func(p *pool.Pool) {
		s := &squares{out: make([]int64, 10)}
		p.Dispatch(s.job(), s.work)
		st := p.Stats()
		fmt.Println("started", st.WorkersStarted, "failures", st.SpawnFailures, "sum", s.sum())
	}, pool.WithSpawn(failing))
	// Output:
	// spawned 3 sum 285
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
	s := &squares{out: make([]int64, 100)}
	for i := 0; i < 3; i++ {
		s.next.Store(0)
		p.Dispatch(s.job(), s.work)
	}
	p.Close()
	st := p.Stats()
	fmt.Println("parallelism", st.Parallelism, "runs", st.Runs, "started", st.WorkersStarted, "alive", st.WorkersAlive)
	fmt.Println("per-worker entries:", len(st.Workers), "wake-ups ≤ parks:", st.Wakeups <= st.Parks)
	// Output:
	// parallelism 2 runs 3 started 1 alive 0
	// per-worker entries: 1 wake-ups ≤ parks: true
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

// A layer with its own scheduler pins a job and wakes workers into it one
// at a time; Unpin seals and latches it.
func ExamplePool_Pin() {
	p := pool.New(3)
	defer p.Close()
	var entries atomic.Int32
	p.Pin(&dispatch.Job{Call: func(unsafe.Pointer, int) { entries.Add(1) }})
	p.WakeOne() // starts a worker, which enters the pinned job
	for entries.Load() == 0 {
		runtime.Gosched()
	}
	p.Unpin() // no worker is inside the job after this
	fmt.Println("entries:", entries.Load(), "started:", p.Stats().WorkersStarted)
	// Output: entries: 1 started: 1
}

func ExamplePool_Unpin() {
	p := pool.New(2)
	defer p.Close()
	p.Pin(&dispatch.Job{Call: func(unsafe.Pointer, int) {}})
	p.Unpin()
	s := &squares{out: make([]int64, 4)}
	p.Dispatch(s.job(), s.work) // Dispatch works again once unpinned
	fmt.Println(s.sum())
	// Output: 14
}

// WakeOne reports whether a worker will enter the published job; a pool of
// parallelism 1 has none to wake.
func ExamplePool_WakeOne() {
	p := pool.New(1)
	defer p.Close()
	p.Pin(&dispatch.Job{Call: func(unsafe.Pointer, int) {}})
	fmt.Println(p.WakeOne())
	p.Unpin()
	// Output: false
}

func ExamplePool_CountRun() {
	p := pool.New(2)
	defer p.Close()
	p.CountRun() // a layer running work on a pinned job counts each run
	p.CountRun()
	fmt.Println(p.Stats().Runs)
	// Output: 2
}

// scheduler stands for a layer's per-pool state, such as the work-stealing
// core's.
type scheduler struct{ tasks int64 }

func (s *scheduler) Close()                  { fmt.Println("scheduler closed") }
func (s *scheduler) AddStats(st *pool.Stats) { st.Tasks += s.tasks }

type schedulerKey struct{}

func ExamplePool_Attach() {
	p := pool.New(2)
	create := func(*pool.Pool) pool.Attachment {
		fmt.Println("scheduler created")
		return &scheduler{tasks: 42}
	}
	a := p.Attach(schedulerKey{}, create)
	b := p.Attach(schedulerKey{}, create) // found, not created again
	fmt.Println(a == b, p.Stats().Tasks)
	p.Close() // closes the attachments first
	// Output:
	// scheduler created
	// true 42
	// scheduler closed
}

func ExamplePool_Close() {
	p := pool.New(4)
	s := &squares{out: make([]int64, 10)}
	p.Dispatch(s.job(), s.work)
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

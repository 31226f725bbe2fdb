package pool_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/poolcore"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// claimJob is a parallel loop over items: the caller's body and every
// worker that enters claim items one by one until none is left, so the
// loop completes with whoever takes part. Each item records how many times
// it ran.
type claimJob struct {
	next    atomic.Int64
	ran     []atomic.Int32
	byOther atomic.Int64 // items run by workers, not by the caller
	job     dispatch.Job
}

func newClaimJob(items int) *claimJob {
	c := &claimJob{ran: make([]atomic.Int32, items)}
	c.job = dispatch.Job{
		Call: func(data unsafe.Pointer, _ int) { (*claimJob)(data).work(true) },
		Data: unsafe.Pointer(c),
	}
	return c
}

func (c *claimJob) work(worker bool) {
	for {
		i := c.next.Add(1) - 1
		if i >= int64(len(c.ran)) {
			return
		}
		c.ran[i].Add(1)
		if worker {
			c.byOther.Add(1)
		}
	}
}

func (c *claimJob) reset() {
	c.next.Store(0)
	for i := range c.ran {
		c.ran[i].Store(0)
	}
}

// failer is what the helpers need of a *testing.T or a *rapid.T.
type failer interface {
	Helper()
	Fatalf(format string, args ...any)
}

// run dispatches the loop on p and checks that every item ran once.
func (c *claimJob) run(t failer, p *pool.Pool) {
	t.Helper()
	c.reset()
	(*poolcore.Pool)(p).Dispatch(&c.job, func() { c.work(false) })
	for i := range c.ran {
		if n := c.ran[i].Load(); n != 1 {
			t.Fatalf("item %d ran %d times", i, n)
		}
	}
}

// recycled is one run's state, reused for every run like a recycled
// buffer. The caller writes run before dispatching and poisoned right
// after Dispatch returns; workers only read. Plain fields on purpose: the
// latch must order the caller's writes after the workers' reads, and the
// race detector checks that it does.
type recycled struct {
	run      int64
	poisoned bool
}

func TestLatchInvariant(t *testing.T) {
	leakcheck.Check(t)
	runs := int64(100_000)
	if raceEnabled {
		runs = 10_000
	}
	for _, n := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			p := pool.New(n)
			defer p.Close()

			var state recycled
			var current, violations, calls atomic.Int64
			job := dispatch.Job{
				Call: func(data unsafe.Pointer, _ int) {
					s := (*recycled)(data)
					run := s.run
					if s.poisoned || run != current.Load() {
						violations.Add(1)
					}
					calls.Add(1)
					if run%8 == 0 {
						runtime.Gosched() // stay inside a little longer now and then
					}
					if s.poisoned || s.run != run {
						violations.Add(1)
					}
				},
				Data: unsafe.Pointer(&state),
			}
			for r := int64(1); r <= runs; r++ {
				state.run = r
				state.poisoned = false
				current.Store(r)
				(*poolcore.Pool)(p).Dispatch(&job, func() {
					if r%4 == 0 {
						runtime.Gosched() // let workers in before the seal now and then
					}
				})
				state.poisoned = true
				if r%16 == 0 {
					runtime.Gosched() // widen the window in which a late worker would see the poison
				}
			}
			if v := violations.Load(); v != 0 {
				t.Fatalf("%d times a worker saw a poisoned or recycled run state", v)
			}
			st := p.Stats()
			if st.Runs != runs {
				t.Fatalf("Stats.Runs = %d, want %d", st.Runs, runs)
			}
			if n > 1 && calls.Load() == 0 {
				t.Fatalf("no worker called the job in %d runs", runs)
			}
			if int(st.WorkersStarted) != n-1 {
				t.Fatalf("Stats.WorkersStarted = %d, want %d", st.WorkersStarted, n-1)
			}
			t.Logf("%d runs, %d worker calls, %d parks", runs, calls.Load(), st.Parks)
		})
	}
}

func TestDispatchRunsTheLoopWithWorkers(t *testing.T) {
	leakcheck.Check(t)
	pool.With(4, func(p *pool.Pool) {
		c := newClaimJob(10_000)
		for r := 0; r < 50; r++ {
			c.run(t, p)
		}
		if p.Parallelism() != 4 || p.Workers() != 3 {
			t.Fatalf("Parallelism, Workers = %d, %d; want 4, 3", p.Parallelism(), p.Workers())
		}
	})
}

// TestConcurrentDispatches: dispatches from several goroutines on one pool
// take turns and each completes.
func TestConcurrentDispatches(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(3)
	defer p.Close()
	rounds := 500
	if raceEnabled {
		rounds = 100
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newClaimJob(256)
			for r := 0; r < rounds; r++ {
				c.run(t, p)
			}
		}()
	}
	wg.Wait()
	if got := p.Stats().Runs; got != int64(4*rounds) {
		t.Fatalf("Stats.Runs = %d, want %d", got, 4*rounds)
	}
}

// spawnCounter wraps spawns and injects failures where fail says so.
type spawnCounter struct {
	attempts, failures atomic.Int64
	fail               func(attempt int64) bool
}

var errInjected = errors.New("injected spawn failure")

func (s *spawnCounter) spawn(run func()) error {
	a := s.attempts.Add(1)
	if s.fail(a) {
		s.failures.Add(1)
		return errInjected
	}
	go run()
	return nil
}

func checkSpawnRun(t failer, n, runs int, sc *spawnCounter) (workerItems int64) {
	t.Helper()
	p := pool.New(n, pool.WithSpawn(sc.spawn))
	c := newClaimJob(64)
	for r := 0; r < runs; r++ {
		c.run(t, p) // every dispatch completes, whoever takes part
		workerItems += c.byOther.Load()
		c.byOther.Store(0)
	}
	p.Close()
	st := p.Stats()
	if st.SpawnFailures != sc.failures.Load() {
		t.Fatalf("Stats.SpawnFailures = %d, but %d spawns failed", st.SpawnFailures, sc.failures.Load())
	}
	if st.WorkersStarted != sc.attempts.Load()-sc.failures.Load() {
		t.Fatalf("Stats.WorkersStarted = %d, but %d of %d spawns succeeded",
			st.WorkersStarted, sc.attempts.Load()-sc.failures.Load(), sc.attempts.Load())
	}
	if st.WorkersStarted > int64(n-1) {
		t.Fatalf("Stats.WorkersStarted = %d > n-1 = %d", st.WorkersStarted, n-1)
	}
	if st.WorkersAlive != 0 {
		t.Fatalf("Stats.WorkersAlive = %d after Close", st.WorkersAlive)
	}
	return workerItems
}

func TestSpawnAlwaysFails(t *testing.T) {
	leakcheck.Check(t)
	for _, n := range []int{2, 4, 8} {
		sc := &spawnCounter{fail: func(int64) bool { return true }}
		const runs = 100
		if items := checkSpawnRun(t, n, runs, sc); items != 0 {
			t.Fatalf("n=%d: workers ran %d items although none could start", n, items)
		}
		// One attempt per run: after a failure, no retry until the next run.
		if got := sc.failures.Load(); got != runs {
			t.Fatalf("n=%d: %d failed spawns in %d runs, want one per run", n, got, runs)
		}
	}
}

func TestSpawnFailsEveryOtherTime(t *testing.T) {
	leakcheck.Check(t)
	for _, n := range []int{2, 4, 8} {
		sc := &spawnCounter{fail: func(a int64) bool { return a%2 == 1 }} // the first fails
		checkSpawnRun(t, n, 50, sc)
		if sc.failures.Load() == 0 {
			t.Fatalf("n=%d: no spawn failed", n)
		}
	}
}

func TestSpawnFailsAtRandom(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(rt, "n")
		pattern := rapid.SliceOfN(rapid.Bool(), 1, 32).Draw(rt, "failures")
		runs := rapid.IntRange(1, 20).Draw(rt, "runs")
		sc := &spawnCounter{fail: func(a int64) bool { return pattern[(a-1)%int64(len(pattern))] }}
		checkSpawnRun(rt, n, runs, sc)
	})
}

func TestSpawnPanicDoesNotHangClose(t *testing.T) {
	leakcheck.Check(t)
	var calls atomic.Int64
	spawn := func(run func()) error {
		if calls.Add(1) == 2 {
			panic("spawn exploded")
		}
		go run()
		return nil
	}
	p := pool.New(4, pool.WithSpawn(spawn))
	c := newClaimJob(16)
	mustPanicWith(t, "Dispatch whose spawn panics", func() { c.run(t, p) }, "spawn exploded")
	c.run(t, p) // the pool stays usable
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	if !pollUntil(func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}) {
		t.Fatal("Close hangs after a spawn panicked")
	}
	if st := p.Stats(); st.WorkersAlive != 0 {
		t.Fatalf("WorkersAlive = %d after Close", st.WorkersAlive)
	}
}

type panicValue struct{ name string }

func TestWithReraisesPanicAfterJoiningWorkers(t *testing.T) {
	leakcheck.Check(t)
	val := &panicValue{"fn"}
	var p *pool.Pool
	r := mustPanic(t, "With whose fn panics", func() {
		pool.With(4, func(q *pool.Pool) {
			p = q
			newClaimJob(1000).run(t, q) // start the workers
			panic(val)
		})
	})
	if r != val {
		t.Fatalf("recovered %v (%T), want the original value %v", r, r, val)
	}
	if !p.Closed() {
		t.Fatal("the pool is not closed after With panicked")
	}
	if st := p.Stats(); st.WorkersAlive != 0 || st.WorkersStarted != 3 {
		t.Fatalf("after With: WorkersAlive = %d (want 0), WorkersStarted = %d (want 3)", st.WorkersAlive, st.WorkersStarted)
	}
}

func panicInJob(v any) { panic(v) }

func TestWorkerPanicReraisedOnCaller(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	val := &panicValue{"worker"}
	var entered atomic.Bool
	job := dispatch.Job{Call: func(unsafe.Pointer, int) {
		if entered.CompareAndSwap(false, true) {
			panicInJob(val)
		}
	}}
	testcheck.MustPanicError(t, "Dispatch whose worker panics", func() {
		(*poolcore.Pool)(p).Dispatch(&job, func() {
			if !pollUntil(entered.Load) {
				t.Error("no worker entered the job")
			}
		})
	}, val, "panicInJob")
	// The pool stays usable and the worker survived.
	newClaimJob(1000).run(t, p)
	if st := p.Stats(); st.WorkersAlive != 1 {
		t.Fatalf("WorkersAlive = %d after a worker's job panicked, want 1", st.WorkersAlive)
	}
}

func goexitInJob() { runtime.Goexit() }

// TestWorkerGoexitReraisedAndReplaced: a worker's call of a dispatched job
// ends in runtime.Goexit, which ends the worker's goroutine. The Dispatch
// reports it as a *PanicError of ErrGoexit instead of never hearing of it,
// and the pool starts a goroutine in the worker's place.
func TestWorkerGoexitReraisedAndReplaced(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	var entered atomic.Bool
	job := dispatch.Job{Call: func(unsafe.Pointer, int) {
		if entered.CompareAndSwap(false, true) {
			goexitInJob()
		}
	}}
	testcheck.MustPanicError(t, "Dispatch whose worker calls Goexit", func() {
		(*poolcore.Pool)(p).Dispatch(&job, func() {
			if !pollUntil(entered.Load) {
				t.Error("no worker entered the job")
			}
		})
	}, dispatch.ErrGoexit, "goexitInJob")
	if !pollUntil(func() bool { st := p.Stats(); return st.Goexits == 1 && st.WorkersAlive == 1 }) {
		t.Fatalf("the worker was not replaced: %+v", p.Stats())
	}
	if st := p.Stats(); st.Goexits != 1 || st.WorkersStarted != 2 {
		t.Fatalf("Goexits %d, WorkersStarted %d; want 1, 2", st.Goexits, st.WorkersStarted)
	}
	// The replacement takes part in the next dispatch.
	var byWorker atomic.Bool
	job2 := dispatch.Job{Call: func(unsafe.Pointer, int) { byWorker.Store(true) }}
	(*poolcore.Pool)(p).Dispatch(&job2, func() {
		if !pollUntil(byWorker.Load) {
			t.Error("the replacement worker never entered the next job")
		}
	})
}

func TestBodyPanicSealedLatchedReraised(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(3)
	defer p.Close()
	var inside, calls atomic.Int64
	job := dispatch.Job{Call: func(unsafe.Pointer, int) {
		inside.Add(1)
		calls.Add(1)
		for i := 0; i < 100; i++ {
			runtime.Gosched() // still inside while the body panics
		}
		inside.Add(-1)
	}}
	val := errors.New("body failed")
	r := mustPanic(t, "Dispatch whose body panics", func() {
		(*poolcore.Pool)(p).Dispatch(&job, func() {
			pollUntil(func() bool { return calls.Load() > 0 })
			panic(val)
		})
	})
	if r != val {
		t.Fatalf("recovered %v, want the body's original value", r)
	}
	if n := inside.Load(); n != 0 {
		t.Fatalf("%d workers inside the job after Dispatch re-raised the body's panic: not latched", n)
	}
	before := calls.Load()
	newClaimJob(1000).run(t, p) // wakes every worker: none may enter the old job
	if calls.Load() != before {
		t.Fatal("a worker entered the job after its dispatch ended: not sealed")
	}
}

func TestBadInput(t *testing.T) {
	leakcheck.Check(t)
	mustPanicWith(t, "New(-1)", func() { pool.New(-1) }, "-1")
	called := false
	mustPanicWith(t, "With(-7, fn)", func() { pool.With(-7, func(*pool.Pool) { called = true }) }, "-7")
	if called {
		t.Fatal("With called fn with a negative n")
	}
	mustPanicWith(t, "With(nil)", func() { pool.With(2, nil) }, "nil function")

	var nilPool *pool.Pool
	job := &dispatch.Job{Call: func(unsafe.Pointer, int) {}}
	for name, f := range map[string]func(){
		"Parallelism": func() { nilPool.Parallelism() },
		"Workers":     func() { nilPool.Workers() },
		"Dispatch":    func() { (*poolcore.Pool)(nilPool).Dispatch(job, nil) },
		"Pin":         func() { (*poolcore.Pool)(nilPool).Pin(job) },
		"Unpin":       func() { (*poolcore.Pool)(nilPool).Unpin() },
		"CountRun":    func() { (*poolcore.Pool)(nilPool).CountRun() },
		"WakeOne":     func() { (*poolcore.Pool)(nilPool).WakeOne() },
		"LIFOSlot":    func() { (*poolcore.Pool)(nilPool).LIFOSlot() },
		"Attach":      func() { (*poolcore.Pool)(nilPool).Attach("k", nil) },
		"Closed":      func() { nilPool.Closed() },
		"Close":       func() { nilPool.Close() },
		"Stats":       func() { nilPool.Stats() },
	} {
		mustPanicWith(t, "nil pool: "+name, f, "nil *Pool")
	}

	p := pool.New(2)
	mustPanicWith(t, "Dispatch(nil)", func() { (*poolcore.Pool)(p).Dispatch(nil, nil) }, "nil Job")
	mustPanicWith(t, "Unpin without Pin", (*poolcore.Pool)(p).Unpin, "Unpin without Pin")
	newClaimJob(100).run(t, p)
	p.Close()
	p.Close() // a second Close is fine
	mustPanicWith(t, "Dispatch after Close", func() { (*poolcore.Pool)(p).Dispatch(job, nil) }, "Dispatch", "closed")
	mustPanicWith(t, "Pin after Close", func() { (*poolcore.Pool)(p).Pin(job) }, "Pin", "closed")
	mustPanicWith(t, "Attach after Close", func() {
		(*poolcore.Pool)(p).Attach("k", func(*poolcore.Pool) poolcore.Attachment { return nil })
	}, "Attach", "closed")
}

func TestConcurrentClose(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(4)
	newClaimJob(1000).run(t, p)
	var wg sync.WaitGroup
	var returned atomic.Int32
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Close()
			// Every Close returns only once the workers are joined.
			if st := p.Stats(); st.WorkersAlive != 0 {
				t.Errorf("a Close returned with %d workers alive", st.WorkersAlive)
			}
			returned.Add(1)
		}()
	}
	wg.Wait()
	if returned.Load() != 8 || !p.Closed() {
		t.Fatal("not every Close returned, or the pool is not closed")
	}
}

// TestCloseWaitsForDispatchInProgress closes a pool while a dispatch runs:
// Close must let it finish (latch included) before it stops the workers.
func TestCloseWaitsForDispatchInProgress(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(3)
	var bodyIn, release atomic.Bool
	c := newClaimJob(10_000)
	dispatched := make(chan struct{})
	go func() {
		defer close(dispatched)
		(*poolcore.Pool)(p).Dispatch(&c.job, func() {
			bodyIn.Store(true)
			pollUntil(release.Load)
			c.work(false)
		})
	}()
	pollUntil(bodyIn.Load)
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	pollUntil(p.Closed)
	release.Store(true)
	<-dispatched
	<-closed
	for i := range c.ran {
		if c.ran[i].Load() != 1 {
			t.Fatalf("item %d ran %d times", i, c.ran[i].Load())
		}
	}
}

func TestUnusedPoolStartsNothing(t *testing.T) {
	leakcheck.Check(t)
	before := runtime.NumGoroutine()
	p := pool.New(8)
	st := p.Stats()
	if st.WorkersStarted != 0 || st.WorkersAlive != 0 || st.Runs != 0 {
		t.Fatalf("new pool: %+v", st)
	}
	if now := runtime.NumGoroutine(); now > before {
		t.Fatalf("New started goroutines: %d before, %d after", before, now)
	}
	p.Close()
	if st := p.Stats(); st.WorkersStarted != 0 {
		t.Fatalf("Close of an unused pool started %d workers", st.WorkersStarted)
	}
	var q *pool.Pool
	pool.With(8, func(p *pool.Pool) {
		q = p
		if now := runtime.NumGoroutine(); now > before {
			t.Errorf("With started goroutines before any work: %d before, %d inside", before, now)
		}
	})
	if st := q.Stats(); st.WorkersStarted != 0 {
		t.Fatalf("an unused With pool started %d workers", st.WorkersStarted)
	}
}

// TestIdlePoolDoesNoWork: once its workers are parked, an idle pool's
// counters stay still: nobody wakes up to poll.
func TestIdlePoolDoesNoWork(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(4)
	defer p.Close()
	c := newClaimJob(1000)
	for r := 0; r < 100; r++ {
		c.run(t, p)
	}
	// The last dispatch's NotifyAll may still be on its way to workers that
	// look parked (a signalled worker counts as parked until it runs), so
	// first find a quiet interval with every worker parked, then require
	// the next, longer one to be just as quiet. A pool that polls or parks
	// with a timeout never gets through the first step. The wall-clock
	// intervals are what is being tested here.
	snapshot := func() pool.Stats { return p.Stats() }
	quiet := func(a, b pool.Stats) bool {
		return a.Parks == b.Parks && a.Wakeups == b.Wakeups && b.Parks-b.Wakeups == int64(b.WorkersAlive)
	}
	var before pool.Stats
	found := false
	for attempt := 0; attempt < 20 && !found; attempt++ {
		a := snapshot()
		time.Sleep(50 * time.Millisecond)
		before = snapshot()
		found = quiet(a, before)
	}
	if !found {
		t.Fatalf("no quiet 50 ms interval in 20 tries: the idle pool keeps waking up (%+v)", before)
	}
	time.Sleep(300 * time.Millisecond)
	after := snapshot()
	if !quiet(before, after) {
		t.Fatalf("idle pool woke up: parks %d → %d, wake-ups %d → %d", before.Parks, after.Parks, before.Wakeups, after.Wakeups)
	}
	if before.WorkersAlive != 3 {
		t.Fatalf("WorkersAlive = %d, want 3", before.WorkersAlive)
	}
}

func TestStats(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(3)
	defer p.Close()
	c := newClaimJob(5000)
	for r := 0; r < 20; r++ {
		c.run(t, p)
	}
	(*poolcore.Pool)(p).CountRun()
	st := p.Stats()
	if st.Parallelism != 3 || st.Runs != 21 || st.WorkersStarted != 2 || len(st.Workers) != 2 {
		t.Fatalf("Stats = %+v; want Parallelism 3, Runs 21, WorkersStarted 2, 2 Workers entries", st)
	}
	var parks, wakeups int64
	for _, w := range st.Workers {
		parks += w.Parks
		wakeups += w.Wakeups
	}
	if parks != st.Parks || wakeups != st.Wakeups {
		t.Fatalf("per-worker sums (%d, %d) differ from the totals (%d, %d)", parks, wakeups, st.Parks, st.Wakeups)
	}
	if st.Wakeups > st.Parks {
		t.Fatalf("more wake-ups (%d) than parks (%d)", st.Wakeups, st.Parks)
	}
}

// ParkedTime counts the time the workers sleep, the sleep in progress
// included: it grows while a worker is parked, and WorkersParked says how
// many are. It never goes back, and equals the sum over the workers.
func TestStatsParkedTime(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(3)
	defer p.Close()
	newClaimJob(5000).run(t, p)
	if !testcheck.PollUntil(func() bool { return p.Stats().WorkersParked == 2 }) {
		t.Fatalf("the workers did not park: %+v", p.Stats())
	}
	first := p.Stats()
	if first.ParkedTime <= 0 {
		t.Fatalf("two workers parked, ParkedTime = %v", first.ParkedTime)
	}
	// While they sleep, the total grows by itself.
	if !testcheck.PollUntil(func() bool { return p.Stats().ParkedTime > first.ParkedTime }) {
		t.Fatalf("ParkedTime stayed at %v while the workers slept", first.ParkedTime)
	}
	last := first.ParkedTime
	for r := 0; r < 50; r++ {
		newClaimJob(500).run(t, p) // wakes them
		st := p.Stats()
		var sum time.Duration
		for _, w := range st.Workers {
			sum += w.ParkedTime
		}
		if st.ParkedTime < last || sum != st.ParkedTime {
			t.Fatalf("ParkedTime %v after %v, sum over the workers %v", st.ParkedTime, last, sum)
		}
		if st.WorkersParked < 0 || st.WorkersParked > 2 {
			t.Fatalf("WorkersParked = %d of 2 workers", st.WorkersParked)
		}
		last = st.ParkedTime
	}
}

func TestDefaultParallelism(t *testing.T) {
	leakcheck.Check(t)
	if pool.DefaultParallelism() != runtime.GOMAXPROCS(0) {
		t.Fatalf("DefaultParallelism() = %d, GOMAXPROCS = %d", pool.DefaultParallelism(), runtime.GOMAXPROCS(0))
	}
	pool.With(0, func(p *pool.Pool) {
		if p.Parallelism() != runtime.GOMAXPROCS(0) {
			t.Fatalf("With(0) has parallelism %d, want GOMAXPROCS %d", p.Parallelism(), runtime.GOMAXPROCS(0))
		}
	})
	if pool.PhysicalCores() < 0 {
		t.Fatalf("PhysicalCores() = %d", pool.PhysicalCores())
	}
}

// countingAttachment records Close and adds a counter to Stats.
type countingAttachment struct {
	closed *[]string
	name   string
	tasks  int64
}

func (a *countingAttachment) Close()                 { *a.closed = append(*a.closed, a.name) }
func (a *countingAttachment) AddStats(s *pool.Stats) { s.Tasks += a.tasks }

func TestAttach(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	var closed []string
	creations := 0
	mk := func(name string) func(*poolcore.Pool) poolcore.Attachment {
		return func(q *poolcore.Pool) poolcore.Attachment {
			if q != (*poolcore.Pool)(p) {
				t.Error("create got another pool")
			}
			creations++
			return &countingAttachment{closed: &closed, name: name, tasks: 5}
		}
	}
	a := (*poolcore.Pool)(p).Attach("a", mk("a"))
	if (*poolcore.Pool)(p).Attach("a", mk("a")) != a {
		t.Fatal("a second Attach with the same key created a new attachment")
	}
	(*poolcore.Pool)(p).Attach("b", mk("b"))
	if creations != 2 {
		t.Fatalf("%d attachments created, want 2", creations)
	}
	if st := p.Stats(); st.Tasks != 10 {
		t.Fatalf("Stats.Tasks = %d, want the attachments' 10", st.Tasks)
	}
	p.Close()
	if strings.Join(closed, ",") != "b,a" {
		t.Fatalf("attachments closed in order %v, want reverse order of attachment [b a]", closed)
	}
}

// Shared assertions (internal/testcheck).
var (
	pollUntil     = testcheck.PollUntil
	mustPanic     = testcheck.MustPanic
	mustPanicWith = testcheck.MustPanicWith
)

const stuckAfter = testcheck.StuckAfter

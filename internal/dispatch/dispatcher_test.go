package dispatch_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
)

// TestJobIsTwoWords checks the size Job's documentation promises (a
// function and a pointer, published with one pointer store): a contract of
// the type, not a layout a benchmark depends on.
func TestJobIsTwoWords(t *testing.T) {
	if got, want := unsafe.Sizeof(dispatch.Job{}), 2*unsafe.Sizeof(uintptr(0)); got != want {
		t.Fatalf("unsafe.Sizeof(dispatch.Job{}) = %d, want two words (%d)", got, want)
	}
}

// testWorkers is a minimal owner of workers for a Dispatcher, shaped like
// the pool's: each worker enters Serve whenever the EventCount's epoch has
// moved since it last entered, and parks otherwise.
type testWorkers struct {
	d    *dispatch.Dispatcher
	wake dispatch.EventCount
	stop atomic.Bool
	wg   sync.WaitGroup
}

func startWorkers(d *dispatch.Dispatcher, k int) *testWorkers {
	w := &testWorkers{d: d}
	for id := 0; id < k; id++ {
		w.wg.Add(1)
		go w.loop(id)
	}
	return w
}

func (w *testWorkers) loop(id int) {
	defer w.wg.Done()
	var last dispatch.Token
	entered := false
	for {
		tok := w.wake.Prepare()
		if w.stop.Load() {
			return
		}
		if !entered || tok != last {
			entered, last = true, tok
			w.d.Serve(id)
			continue
		}
		w.wake.Wait(tok)
	}
}

// Wake is passed to Dispatch: it rouses every parked worker.
func (w *testWorkers) Wake() { w.wake.NotifyAll() }

func (w *testWorkers) Stop() {
	w.stop.Store(true)
	w.wake.NotifyAll()
	w.wg.Wait()
}

// recycled is the state of one run, reused for every run the way a
// recycled buffer is. The caller writes run before it dispatches and
// poisoned right after Dispatch returns; workers only read. The fields are
// plain (not atomic) on purpose: the latch is what must order the caller's
// writes after the workers' reads, and the race detector checks that it
// does.
type recycled struct {
	run      int64
	poisoned bool
}

// latchHarness runs dispatches on one recycled state and counts any worker
// that sees it poisoned or sees it change under its feet.
type latchHarness struct {
	state      recycled
	current    atomic.Int64 // the run in progress, written before publishing
	violations atomic.Int64
	calls      atomic.Int64
	job        dispatch.Job
}

func newLatchHarness() *latchHarness {
	h := &latchHarness{}
	h.job = dispatch.Job{Call: h.call, Data: unsafe.Pointer(&h.state)}
	return h
}

func (h *latchHarness) call(data unsafe.Pointer, worker int) {
	s := (*recycled)(data)
	run := s.run
	if s.poisoned || run != h.current.Load() {
		h.violations.Add(1)
	}
	h.calls.Add(1)
	if run%8 == 0 {
		runtime.Gosched() // stay inside a little longer now and then
	}
	if s.poisoned || s.run != run {
		h.violations.Add(1)
	}
}

// runOnce is one run: set up the state, dispatch, poison.
func (h *latchHarness) runOnce(r int64, dispatchFn func(job *dispatch.Job, body func())) {
	h.state.run = r
	h.state.poisoned = false
	h.current.Store(r)
	dispatchFn(&h.job, func() {
		if r%4 == 0 {
			runtime.Gosched() // let workers in before the seal now and then
		}
	})
	h.state.poisoned = true
	if r%16 == 0 {
		runtime.Gosched() // widen the window in which a late worker sees the poison
	}
}

func TestDispatcherLatch(t *testing.T) {
	leakcheck.Check(t)
	runs := int64(100_000)
	if raceEnabled {
		runs = 10_000
	}
	for _, k := range []int{1, 3} {
		t.Run(fmt.Sprintf("workers=%d", k), func(t *testing.T) {
			var d dispatch.Dispatcher
			ws := startWorkers(&d, k)
			defer ws.Stop()
			h := newLatchHarness()
			for r := int64(1); r <= runs; r++ {
				// (InJob may be non-zero here: a worker that counts in
				// after the seal loads nil and touches nothing.)
				h.runOnce(r, func(job *dispatch.Job, body func()) { d.Dispatch(job, ws.Wake, body) })
			}
			if v := h.violations.Load(); v != 0 {
				t.Fatalf("%d times a worker saw a poisoned or recycled run state", v)
			}
			if h.calls.Load() == 0 {
				t.Fatalf("no worker called the job in %d runs", runs)
			}
			t.Logf("%d runs, %d worker calls", runs, h.calls.Load())
		})
	}
}

// TestDispatcherLatchWaitsForALongJob holds a worker inside the job well
// past the latch's spinning phase: Dispatch must park and be woken by the
// worker's count-out, and must not return before it.
func TestDispatcherLatchWaitsForALongJob(t *testing.T) {
	leakcheck.Check(t)
	var d dispatch.Dispatcher
	ws := startWorkers(&d, 1)
	defer ws.Stop()

	var entered, left atomic.Bool
	release := make(chan struct{})
	job := dispatch.Job{Call: func(unsafe.Pointer, int) {
		entered.Store(true)
		<-release
		left.Store(true)
	}}
	var returned atomic.Bool
	var leftAtReturn atomic.Bool
	go func() {
		d.Dispatch(&job, ws.Wake, func() {
			// Make sure the worker is in before the seal.
			pollUntil(entered.Load)
		})
		leftAtReturn.Store(left.Load())
		returned.Store(true)
	}()
	if !pollUntil(entered.Load) {
		t.Fatal("the worker never entered the job")
	}
	// A window in which a broken latch would let Dispatch return; a
	// correct one cannot, whatever the scheduling.
	time.Sleep(20 * time.Millisecond)
	if returned.Load() {
		t.Fatal("Dispatch returned while a worker was inside the job")
	}
	close(release)
	if !pollUntil(returned.Load) {
		t.Fatalf("Dispatch still latched %v after the worker left (InJob() = %d)", stuckAfter, dispatch.InJob(&d))
	}
	if !leftAtReturn.Load() {
		t.Fatal("Dispatch returned before the worker left the job")
	}
}

func TestDispatcherServeWithoutJob(t *testing.T) {
	var d dispatch.Dispatcher
	if d.Serve(0) {
		t.Fatal("Serve reported a call with no job published")
	}
	if n := dispatch.InJob(&d); n != 0 {
		t.Fatalf("InJob() = %d after Serve returned", n)
	}
	if dispatch.Published(&d) != nil || d.Pinned() != nil {
		t.Fatal("zero Dispatcher has a published or pinned job")
	}
}

type boom struct{ id int }

func panicInWorker(v any) { panic(v) }

func TestDispatcherWorkerPanicIsReraised(t *testing.T) {
	leakcheck.Check(t)
	var d dispatch.Dispatcher
	ws := startWorkers(&d, 2)
	defer ws.Stop()

	val := &boom{1}
	var entered atomic.Bool
	job := dispatch.Job{Call: func(unsafe.Pointer, int) {
		if entered.CompareAndSwap(false, true) {
			panicInWorker(val)
		}
	}}
	testcheck.MustPanicError(t, "Dispatch with a panicking worker", func() {
		d.Dispatch(&job, ws.Wake, func() {
			if !pollUntil(entered.Load) {
				t.Error("no worker entered the job")
			}
		})
	}, val, "panicInWorker")
	if dispatch.Published(&d) != nil {
		t.Fatal("the job is still published after the re-raised panic")
	}

	// The dispatcher stays usable, and the old panic does not come back.
	var calls atomic.Int64
	ok2 := dispatch.Job{Call: func(unsafe.Pointer, int) { calls.Add(1) }}
	d.Dispatch(&ok2, ws.Wake, nil)
}

func TestDispatcherBodyPanicSealsAndLatches(t *testing.T) {
	leakcheck.Check(t)
	var d dispatch.Dispatcher
	ws := startWorkers(&d, 2)
	defer ws.Stop()

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
	r := mustPanic(t, "Dispatch with a panicking body", func() {
		d.Dispatch(&job, ws.Wake, func() {
			pollUntil(func() bool { return calls.Load() > 0 })
			panic(val)
		})
	})
	if r != val {
		t.Fatalf("recovered %v (%T), want the body's original value", r, r)
	}
	if dispatch.Published(&d) != nil {
		t.Fatal("job still published after the body's panic: not sealed")
	}
	if n := inside.Load(); n != 0 {
		t.Fatalf("%d workers still inside the job after the body's panic: not latched", n)
	}
	before := calls.Load()
	ws.Wake()
	other := dispatch.Job{Call: func(unsafe.Pointer, int) {}}
	d.Dispatch(&other, ws.Wake, nil) // the turn was released
	if calls.Load() != before {
		t.Fatal("a worker entered the old job after its dispatch ended")
	}
}

func TestDispatcherBodyPanicWinsOverWorkerPanic(t *testing.T) {
	leakcheck.Check(t)
	var d dispatch.Dispatcher
	ws := startWorkers(&d, 1)
	defer ws.Stop()
	var panicked atomic.Bool
	job := dispatch.Job{Call: func(unsafe.Pointer, int) {
		if panicked.CompareAndSwap(false, true) {
			panic("worker")
		}
	}}
	r := mustPanic(t, "both panic", func() {
		d.Dispatch(&job, ws.Wake, func() {
			pollUntil(panicked.Load)
			panic("body")
		})
	})
	if r != "body" {
		t.Fatalf("recovered %v, want the body's panic", r)
	}
	// The worker's panic was dropped, not kept for the next dispatch.
	d.Dispatch(&dispatch.Job{Call: func(unsafe.Pointer, int) {}}, ws.Wake, nil)
}

func TestDispatcherPinUnpin(t *testing.T) {
	leakcheck.Check(t)
	var d dispatch.Dispatcher
	ws := startWorkers(&d, 2)
	defer ws.Stop()

	var entered atomic.Int64
	job := &dispatch.Job{Call: func(unsafe.Pointer, int) { entered.Add(1) }}
	d.Pin(job)
	if d.Pinned() != job || dispatch.Published(&d) != job {
		t.Fatal("Pin did not publish the job")
	}
	ws.Wake()
	if !pollUntil(func() bool { return entered.Load() >= 2 }) {
		t.Fatalf("woken workers did not enter the pinned job: %d entries", entered.Load())
	}
	mustPanicWith(t, "Dispatch while pinned", func() {
		d.Dispatch(&dispatch.Job{Call: func(unsafe.Pointer, int) {}}, ws.Wake, nil)
	}, "pinned")
	d.Unpin()
	if d.Pinned() != nil || dispatch.Published(&d) != nil {
		t.Fatal("Unpin did not seal the job")
	}
	mustPanicWith(t, "Unpin without Pin", d.Unpin, "Unpin without Pin")

	// A worker's panic in the pinned job is re-raised by Unpin.
	val := &boom{2}
	var once atomic.Bool
	d.Pin(&dispatch.Job{Call: func(unsafe.Pointer, int) {
		if once.CompareAndSwap(false, true) {
			panic(val)
		}
	}})
	ws.Wake()
	pollUntil(once.Load)
	r := mustPanic(t, "Unpin after a worker panicked", d.Unpin)
	if pe, ok := r.(*dispatch.Recovered); !ok || pe.Value != val {
		t.Fatalf("Unpin panicked with %v, want a *Recovered carrying %v", r, val)
	}
	// Pin and Dispatch work again.
	d.Dispatch(job, ws.Wake, nil)
}

// TestDispatcherGoexit: a worker's call of a dispatched job that ends in
// runtime.Goexit is re-raised on the caller as a *Recovered of ErrGoexit.
// In a pinned job it is not (the pinning layer reports it), also when the
// Goexit comes after Unpin has begun, while Unpin's latch waits for the
// call: Unpin must not re-raise that one either.
func TestDispatcherGoexit(t *testing.T) {
	leakcheck.Check(t)
	var d dispatch.Dispatcher
	serve := func() {
		go d.Serve(0) // the goroutine ends in the job's Goexit
	}

	entered := make(chan struct{})
	job := dispatch.Job{Call: func(unsafe.Pointer, int) {
		close(entered)
		runtime.Goexit()
	}}
	testcheck.MustPanicError(t, "Dispatch whose worker calls Goexit", func() {
		d.Dispatch(&job, serve, func() { <-entered })
	}, dispatch.ErrGoexit, "")

	entered = make(chan struct{})
	pinned := dispatch.Job{Call: func(unsafe.Pointer, int) {
		close(entered)
		if !testcheck.PollUntil(func() bool { return d.Pinned() == nil }) {
			t.Error("Unpin never began")
		}
		runtime.Goexit()
	}}
	d.Pin(&pinned)
	serve()
	<-entered
	d.Unpin() // must not panic: the Goexit was in a pinned job

	// A later Dispatch still reports its own Goexit.
	entered = make(chan struct{})
	testcheck.MustPanicError(t, "Dispatch after the Pin whose worker calls Goexit", func() {
		d.Dispatch(&job, serve, func() { <-entered })
	}, dispatch.ErrGoexit, "")

	// The body calls Goexit while a worker's call has failed: the body
	// wins, its goroutine ends (raising the worker's failure during that
	// Goexit would crash the program).
	entered = make(chan struct{})
	bodyDone := make(chan struct{})
	go func() {
		defer close(bodyDone)
		d.Dispatch(&job, serve, func() {
			<-entered
			runtime.Goexit()
		})
		t.Error("Dispatch returned after its body called Goexit")
	}()
	<-bodyDone
	var ran atomic.Bool
	ok := dispatch.Job{Call: func(unsafe.Pointer, int) { ran.Store(true) }}
	d.Dispatch(&ok, serve, func() { // the dropped failure is not raised later
		if !testcheck.PollUntil(ran.Load) {
			t.Error("the worker never entered the job")
		}
	})
}

func TestDispatcherBadInput(t *testing.T) {
	var d dispatch.Dispatcher
	mustPanicWith(t, "Dispatch(nil)", func() { d.Dispatch(nil, nil, nil) }, "nil Job")
	mustPanicWith(t, "Dispatch of a Job without Call", func() { d.Dispatch(&dispatch.Job{}, nil, nil) }, "nil Call")
	mustPanicWith(t, "Pin(nil)", func() { d.Pin(nil) }, "nil Job")
	// None of these took the turn: a normal dispatch still runs.
	ran := false
	d.Dispatch(&dispatch.Job{Call: func(unsafe.Pointer, int) {}}, nil, func() { ran = true })
	if !ran {
		t.Fatal("the body did not run")
	}
}

// TestDispatchersTakeTurns runs dispatches from several goroutines on one
// Dispatcher: each must see its own job alone between publish and latch.
func TestDispatchersTakeTurns(t *testing.T) {
	leakcheck.Check(t)
	var d dispatch.Dispatcher
	ws := startWorkers(&d, 2)
	defer ws.Stop()
	const callers = 4
	rounds := 2000
	if raceEnabled {
		rounds = 200
	}
	var active atomic.Int32
	var overlaps, wrong atomic.Int64
	var wg sync.WaitGroup
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := int64(c)
			job := dispatch.Job{
				Call: func(data unsafe.Pointer, _ int) {
					if *(*int64)(data) != mine {
						wrong.Add(1)
					}
				},
				Data: unsafe.Pointer(&mine),
			}
			for i := 0; i < rounds; i++ {
				d.Dispatch(&job, ws.Wake, func() {
					if active.Add(1) != 1 {
						overlaps.Add(1)
					}
					if dispatch.Published(&d) != &job {
						wrong.Add(1)
					}
					active.Add(-1)
				})
			}
		}()
	}
	wg.Wait()
	if overlaps.Load() != 0 || wrong.Load() != 0 {
		t.Fatalf("dispatches overlapped %d times; a wrong job was seen %d times", overlaps.Load(), wrong.Load())
	}
}

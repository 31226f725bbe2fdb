package forkjoin

import (
	"context"
	"errors"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// runRecover runs fn with Run and returns what Run re-panicked with.
func runRecover(p *pool.Pool, fn func(w *Worker)) (v any) {
	defer func() { v = recover() }()
	Run(p, fn)
	return nil
}

// TestCancelAndAbort: a task cancels its run with or without a cause,
// from the root or from a stolen task; the run unwinds, deferred functions
// run, and the cause (or ErrAborted) is what the run reports.
func TestCancelAndAbort(t *testing.T) {
	leakcheck.Check(t)
	for _, par := range []int{1, 2, 4} {
		p := pool.New(par)
		// Cancel with a cause: the forks after it unwind.
		err := RunCtx(context.Background(), p, func(w *Worker) error {
			w.Cancel(errStop)
			if !w.Canceled() {
				t.Errorf("Canceled() is false after Cancel")
			}
			sumFork.Call(w, smallTree) // unwinds at its first fork
			t.Errorf("parallelism %d: a fork after Cancel returned", par)
			return nil
		})
		if !errors.Is(err, errStop) {
			t.Fatalf("parallelism %d: after Cancel(errStop) RunCtx returned %v", par, err)
		}
		// Cancel without a cause.
		err = RunCtx(context.Background(), p, func(w *Worker) error {
			w.Cancel(nil)
			return nil
		})
		if !errors.Is(err, ErrAborted) {
			t.Fatalf("parallelism %d: after Cancel(nil) RunCtx returned %v", par, err)
		}
		if v := runRecover(p, func(w *Worker) { w.Cancel(nil) }); v != ErrAborted {
			t.Fatalf("parallelism %d: after Cancel(nil) Run re-panicked with %v", par, v)
		}
		// Abort deep inside a (possibly stolen) task: deferred functions
		// on the way run, the cause is reported.
		var deferred atomic.Int32
		var deep func(w *Worker, d int)
		deep = func(w *Worker, d int) {
			defer deferred.Add(1)
			if d == 0 {
				w.Abort(errStop)
				t.Errorf("Abort returned")
			}
			Join(w, func(w *Worker) { deep(w, d-1) }, func(w *Worker) { sumFork.Call(w, smallTree) })
		}
		err = RunCtx(context.Background(), p, func(w *Worker) error { deep(w, 5); return nil })
		if !errors.Is(err, errStop) {
			t.Fatalf("parallelism %d: after Abort(errStop) RunCtx returned %v", par, err)
		}
		if deferred.Load() != 6 {
			t.Errorf("parallelism %d: %d of 6 deferred calls ran", par, deferred.Load())
		}
		// The pool is still sound.
		if err := checkSum(p, smallTree, smallSum); err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
}

// TestRecordPanic: code that recovers a panic to clean up records it; the
// run fails with it even though the task then returns normally.
func TestRecordPanic(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	err := RunCtx(context.Background(), p, func(w *Worker) error {
		func() {
			defer func() {
				core.RecordPanic(w, recover())
			}()
			panic("recorded")
		}()
		return nil
	})
	if !isPanicWith(err, "recorded") {
		t.Fatalf("RunCtx returned %v, want the recorded panic", err)
	}
	var pe *PanicError
	if errors.As(err, &pe) && len(pe.Stack) == 0 {
		t.Errorf("the recorded panic has no stack")
	}
	// nil (nothing recovered) and the core's own unwinding are ignored.
	err = RunCtx(context.Background(), p, func(w *Worker) error {
		core.RecordPanic(w, nil)
		core.RecordPanic(w, unwinding{})
		return nil
	})
	if err != nil {
		t.Fatalf("RunCtx returned %v after RecordPanic(nil)", err)
	}
}

// TestWorkRequested: a worker that keeps its own pending work learns from
// WorkRequested that another participant wants some, answers with Push,
// and unwinds from it once the run is canceled.
func TestWorkRequested(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	type piece struct {
		task Task
		lo   int
	}
	const n, chunk = 1 << 16, 1 << 8
	var counts [n]atomic.Int32
	var done core.Completion
	var left atomic.Int32
	left.Store(n / chunk)
	process := func(lo int) {
		for i := lo; i < lo+chunk; i++ {
			counts[i].Add(1)
		}
		if left.Add(-1) == 0 {
			done.Complete()
		}
	}
	pieces := make([]piece, n/chunk)
	requests := 0
	Run(p, func(w *Worker) {
		for k := range pieces {
			if core.PollOf(w).WorkRequested() { // give this piece away
				requests++
				pc := &pieces[k]
				pc.lo = k * chunk
				pc.task.Init(func(_ *Worker, t *Task) { process(pc.lo) })
				core.Push(w, &pc.task)
				continue
			}
			process(k * chunk)
		}
		core.Wait(w, &done)
	})
	for i := range counts {
		if c := counts[i].Load(); c != 1 {
			t.Fatalf("index %d processed %d times", i, c)
		}
	}
	if requests == 0 {
		t.Errorf("WorkRequested never reported a request (the first fork of a run at parallelism 2 is always asked for)")
	}

	// After cancellation WorkRequested unwinds the task.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Millisecond, cancel)
	err := RunCtx(ctx, p, func(w *Worker) error {
		for {
			core.PollOf(w).WorkRequested()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunCtx returned %v", err)
	}
}

// TestWorkRequestStands: a request the worker cannot answer when it takes
// it stays standing: WorkRequested keeps reporting it, and RequestPending
// with it, until a Push answers it. The first look of a run at parallelism
// 2 always finds the request that the run makes for its sleeping worker;
// if that request were dropped unanswered, the worker would sleep through
// the whole run.
func TestWorkRequestStands(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	for round := 0; round < 100; round++ {
		var ran core.Completion
		var task Task
		task.Init(func(_ *Worker, _ *Task) { ran.Complete() })
		dropped, notPending := -1, -1
		pendingAfterPush := false
		Run(p, func(w *Worker) {
			for i := 0; i < 10 && dropped < 0; i++ { // nothing to give yet
				if !core.PollOf(w).WorkRequested() {
					dropped = i
				}
				if !core.RequestPending(w) && notPending < 0 {
					notPending = i
				}
			}
			core.Push(w, &task)
			pendingAfterPush = core.RequestPending(w)
			core.Wait(w, &ran)
		})
		if dropped >= 0 {
			t.Fatalf("round %d: look %d: the run's first request was dropped unanswered", round, dropped)
		}
		if notPending >= 0 {
			t.Fatalf("round %d: look %d: RequestPending false while the request stood", round, notPending)
		}
		if pendingAfterPush {
			t.Fatalf("round %d: RequestPending still true after the Push that answered the request", round)
		}
	}
}

// TestWorkRequestAfterPush: a thief that took the task a Push answered a
// request with, and finished it before the owner looked again, asks again
// and the owner's next look reports it. (A Push that left the poll flag
// down until that look would have it taken as the old, answered request:
// the thief, finding the flag down, would not ask, and would park while
// the owner, in a walk's long callbacks, had work for it.)
func TestWorkRequestAfterPush(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	thiefRounds := 0
	for round := 0; round < 200 && thiefRounds < 20; round++ {
		Run(p, func(w *Worker) {
			if !core.PollOf(w).WorkRequested() {
				t.Fatalf("round %d: the run's first request was not reported", round)
			}
			var ran core.Completion
			var byThief bool
			var task Task
			task.Init(func(tw *Worker, _ *Task) { byThief = tw != w; ran.Complete() })
			core.Push(w, &task)
			// Leave the task to the other worker for a while (it may be
			// asleep: a wake-up takes ~0.1 ms), then help. Either way no
			// look at requests meanwhile.
			for start := time.Now(); !ran.Done() && time.Since(start) < 5*time.Millisecond; {
				runtime.Gosched()
			}
			core.Wait(w, &ran)
			if !byThief {
				return // the owner ran it: nobody to ask
			}
			thiefRounds++
			// The thief searches after its task and finds nothing: it asks.
			deadline := time.Now().Add(10 * time.Second)
			for !w.asked() {
				if time.Now().After(deadline) {
					t.Fatalf("round %d: the thief never asked for work after the pushed task", round)
				}
				runtime.Gosched()
			}
			if !core.PollOf(w).WorkRequested() {
				t.Fatalf("round %d: the thief's request after the pushed task was lost", round)
			}
			var again Task
			var ran2 core.Completion
			again.Init(func(*Worker, *Task) { ran2.Complete() })
			core.Push(w, &again)
			core.Wait(w, &ran2)
		})
	}
	if thiefRounds == 0 {
		t.Fatal("no round had its pushed task taken by the other worker")
	}
	t.Logf("%d rounds with a thief", thiefRounds)
}

// releaser counts its Release calls.
type releaser struct{ n atomic.Int32 }

func (r *releaser) Release() { r.n.Add(1) }

// TestCloseReleasesLocals: Close calls Release, once, on each value a
// participant kept with core.Local that has one (walk states go to a
// sync.Pool there, for the next pool).
func TestCloseReleasesLocals(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	key := new(byte)
	var kept []*releaser
	Run(p, func(w *Worker) {
		r := core.Local(w, key, func() any { return new(releaser) }).(*releaser)
		kept = append(kept, r)
	})
	if kept[0].n.Load() != 0 {
		t.Fatal("Release called while the pool is open")
	}
	p.Close()
	if n := kept[0].n.Load(); n != 1 {
		t.Fatalf("Release called %d times by Close, want 1", n)
	}
}

package forkjoin

import (
	"context"
	"errors"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

var plusOne = NewFork(func(_ *Fork[int, int], _ *Worker, x int) int { return x + 1 })

// withinMinute runs f and fails the test if it has not returned within a
// minute (a hang: f's goroutine is left behind, and the leak check reports
// it too).
func withinMinute(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: still running after a minute", what)
	}
}

// TestWaitFindsTasksUnderPublishedForks: a frame Pushes Tasks, forks in
// between (a thief's request publishes each fork above the Task before
// it), then Waits for what the Tasks signal. With no worker to steal
// (their starts fail), only the waiter can run the Tasks. A Wait that
// looked at the bottom of its deque only would find a fork there and park
// for ever.
func TestWaitFindsTasksUnderPublishedForks(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2, pool.WithSpawn(func(func()) error { return errors.New("no workers here") }))
	defer p.Close()
	withinMinute(t, "Wait with published forks above the pushed Tasks", func() {
		Run(p, func(w *Worker) {
			var c core.Completion
			var left atomic.Int32
			left.Store(2)
			var t1, t2 Task
			for _, tk := range []*Task{&t1, &t2} {
				tk.Init(func(*Worker, *Task) {
					if left.Add(-1) == 0 {
						c.Complete()
					}
				})
			}
			core.Push(w, &t1)
			w.ask() // as a thief would: the next fork is published
			f1 := plusOne.Start(w, 1)
			core.Push(w, &t2)
			w.ask()
			f2 := plusOne.Start(w, 2)
			if n := w.deque.Len(); n != 4 {
				t.Errorf("the deque holds %d entries, want 4 (two Tasks, two published forks)", n)
			}
			core.Wait(w, &c)
			if r2, r1 := f2.Join(w), f1.Join(w); r1 != 2 || r2 != 3 {
				t.Errorf("forks gave %d and %d, want 2 and 3", r1, r2)
			}
		})
	})
}

// TestStealQueueLastLook: a steal from a spawn queue that loses a race
// must not report the queue empty while it still holds tasks: it is the
// last look of a searcher before it leaves and of a helper before it
// parks. Two thieves and the owner take from a queue of three at once;
// a thief that comes back empty-handed must leave the queue empty.
func TestStealQueueLastLook(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	s := schedulerOf(p)
	v := newWorker(s, 1000, -1)
	thieves := []*Worker{newWorker(s, 1001, -1), newWorker(s, 1002, -1)}
	items := make([]task, 3)
	rounds := 20_000
	if testing.Short() || raceEnabled {
		rounds = 2_000
	}
	for round := 0; round < rounds; round++ {
		for i := range items {
			v.queues[Normal].Push(&items[i], false)
		}
		var start atomic.Bool
		var wg sync.WaitGroup
		empty := make([]bool, len(thieves))
		for k, th := range thieves {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !start.Load() {
				}
				empty[k] = th.stealQueue(v, Normal, famAny) == nil
			}()
		}
		start.Store(true)
		v.queues[Normal].Pop()
		wg.Wait()
		left := 0
		for v.queues[Normal].Pop() != nil {
			left++
		}
		for k, e := range empty {
			if e && left > 0 {
				t.Fatalf("round %d: thief %d found nothing, and %d tasks are still queued", round, k, left)
			}
		}
		for _, th := range thieves {
			for th.queues[Normal].Pop() != nil {
			}
		}
	}
}

// TestJoinWhileClosing: the task ends and Close runs to its end between
// Join's look at the handle and its helping (testHookBeforeHelp puts them
// there). The helping must find the task over instead of panicking about a
// closed pool: it runs on the task's scheduler, not through the pool.
func TestJoinWhileClosing(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	release := make(chan struct{})
	h := Spawn(p, func(*Worker) (int, error) {
		<-release
		return 7, nil
	})
	testHookBeforeHelp = func() {
		close(release)
		p.Close() // waits for the task
	}
	defer func() { testHookBeforeHelp = nil }()
	if v, err := h.Join(); v != 7 || err != nil {
		t.Fatalf("Join = %d, %v; want 7, nil", v, err)
	}
}

// TestWaitCtxLongTask is the scenario: a task that runs for a
// second, awaited with a context that ends after 20 ms. Wait returns the
// context's error while the task still runs (it must not run the task, or
// any other, in its place), and the task's result is there for Join after.
func TestWaitCtxLongTask(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	var over atomic.Bool
	h := Spawn(p, func(w *Worker) (int, error) {
		time.Sleep(time.Second) // the task's work, not a synchronisation
		over.Store(true)
		return 7, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	v, err := h.Wait(ctx)
	if over.Load() || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %d, %v (task over: %v); want the context's error before the task is over", v, err, over.Load())
	}
	if v, err := h.Join(); v != 7 || err != nil {
		t.Fatalf("Join after the Wait = %d, %v; want 7, <nil>", v, err)
	}
}

// TestWaitCtxTaskNeedsCaller: a task that blocks until the caller acts
// after its Wait returns. Wait must return when its context ends (it must
// not be the goroutine running that task), at every parallelism,
// including 1, where no worker runs the task until the Join after.
func TestWaitCtxTaskNeedsCaller(t *testing.T) {
	leakcheck.Check(t)
	for _, n := range []int{1, 2} {
		p := pool.New(n)
		release := make(chan struct{})
		h := Spawn(p, func(w *Worker) (int, error) {
			<-release
			return 7, nil
		})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		waited := make(chan error, 1)
		go func() {
			_, err := h.Wait(ctx)
			waited <- err
		}()
		select {
		case err := <-waited:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("p=%d: Wait = %v, want the context's error", n, err)
			}
		case <-time.After(10 * time.Second): // a deadlock's bound, not a timing
			t.Errorf("p=%d: Wait did not return 10 s after its context ended", n)
			close(release)
			<-waited
			release = nil
		}
		if release != nil {
			close(release)
		}
		if v, err := h.Join(); v != 7 || err != nil {
			t.Errorf("p=%d: Join = %d, %v; want 7, <nil>", n, v, err)
		}
		cancel()
		p.Close()
	}
}

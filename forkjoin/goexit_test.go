package forkjoin

import (
	"context"
	"errors"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// A task that calls runtime.Goexit (t.FailNow off the test's goroutine is
// the usual way) ends the goroutine running it; nothing can stop that. What
// the core owes: the task is reported failed with ErrGoexit instead of
// never finishing, a pool worker is replaced, a caller's Worker is given
// back, and Close and later runs work as before. Without that, each case
// below would hang, in Join, Run or Close.

// isGoexit reports whether err is the *PanicError of a Goexit.
func isGoexit(err error) bool {
	var pe *PanicError
	return errors.As(err, &pe) && pe.Value == ErrGoexit && len(pe.Stack) > 0
}

// afterGoexit checks that p still runs work correctly, with every
// participant, and closes it.
func afterGoexit(t *testing.T, p *pool.Pool) {
	t.Helper()
	for range 20 {
		if err := checkSum(p, smallTree, smallSum); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
}

func TestGoexitInSpawnedTaskOnWorker(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	h := Spawn(p, func(*Worker) (int, error) {
		runtime.Goexit()
		return 1, nil
	})
	<-h.Done() // not Join: the pool's worker runs it, nobody helps
	if v, err := h.Join(); v != 0 || !isGoexit(err) {
		t.Fatalf("Join = %d, %v; want 0 and a *PanicError of ErrGoexit", v, err)
	}
	// The handle is over before the worker's goroutine has ended.
	if !testcheck.PollUntil(func() bool { st := p.Stats(); return st.Goexits == 1 && st.WorkersAlive == 1 }) {
		t.Fatalf("the worker was not replaced: %+v", p.Stats())
	}
	if st := p.Stats(); st.Goexits != 1 || st.WorkersStarted != 2 || st.Panicked != 1 {
		t.Errorf("Goexits %d, WorkersStarted %d, Panicked %d; want 1, 2, 1", st.Goexits, st.WorkersStarted, st.Panicked)
	}
	// The replacement takes part: a task only a worker can run runs.
	h2 := Spawn(p, func(*Worker) (int, error) { return 2, nil })
	<-h2.Done()
	afterGoexit(t, p)
}

func TestGoexitInStolenFork(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	var stolen atomic.Bool
	pe := testcheck.MustPanicError(t, "Run whose stolen fork calls Goexit", func() {
		Run(p, func(w *Worker) {
			root := w
			Join(w, func(w *Worker) {
				for i := 0; i < 1e8 && !stolen.Load(); i++ {
					Join(w, func(*Worker) {}, func(*Worker) {})
				}
			}, func(w *Worker) {
				if w == root {
					return // not stolen: never Goexit on the test's goroutine
				}
				stolen.Store(true)
				runtime.Goexit()
			})
		})
	}, ErrGoexit, "TestGoexitInStolenFork")
	if pe != nil && !stolen.Load() {
		t.Fatal("the fork was never stolen")
	}
	afterGoexit(t, p)
}

// TestGoexitOfCaller: the goroutine in Run calls Goexit itself (its own
// t.FailNow), with forks of the run on the other worker. The run is ended
// and the caller's Worker given back.
func TestGoexitOfCaller(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	s := schedulerOf(p)
	var forked atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(p, func(w *Worker) {
			for i := 0; i < 100; i++ {
				f := sumFork.Start(w, smallTree)
				forked.Add(f.Join(w))
			}
			runtime.Goexit()
		})
		t.Error("Run returned after its function called Goexit")
	}()
	<-done
	if forked.Load() != 100*smallSum {
		t.Errorf("forks gave %d, want %d", forked.Load(), 100*smallSum)
	}
	s.mu.Lock()
	free := len(s.free)
	s.mu.Unlock()
	if free != 1 {
		t.Errorf("%d free caller Workers after the Goexit, want 1", free)
	}
	afterGoexit(t, p)
}

// TestGoexitInTaskHelpedByJoin: a goroutine waiting in Join helps run the
// task it waits for (parallelism 1: nobody else can), which calls Goexit:
// that goroutine ends, and the handle reports the Goexit to anyone else.
func TestGoexitInTaskHelpedByJoin(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(1)
	h := Spawn(p, func(*Worker) (int, error) {
		runtime.Goexit()
		return 1, nil
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.Join()
		t.Error("Join returned on the goroutine that ran a Goexit")
	}()
	<-done
	<-h.Done()
	if _, err := h.Join(); !isGoexit(err) {
		t.Fatalf("Join = %v, want a *PanicError of ErrGoexit", err)
	}
	afterGoexit(t, p)
}

// TestGoexitInScopeTask: a scope task on the worker calls Goexit; the
// scope waits for the others and reports the Goexit.
func TestGoexitInScopeTask(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	var err error
	var goexited atomic.Bool
	Run(p, func(w *Worker) {
		root := w
		err = ScopeCtx(context.Background(), w, func(s *Spawner) {
			for range 50 {
				s.Spawn(w, func(w *Worker) {
					if w != root {
						goexited.Store(true)
						runtime.Goexit()
					}
					// Keep the caller here until the worker has taken one.
					if !testcheck.PollUntil(goexited.Load) {
						t.Error("the worker never took a scope task")
					}
				})
			}
		})
	})
	if !isGoexit(err) {
		t.Fatalf("ScopeCtx = %v, want a *PanicError of ErrGoexit", err)
	}
	afterGoexit(t, p)
}

// goexitWithForkHeld runs on p a task X that the worker steals from the
// caller. X forks Y, which the caller takes while it waits for X; then X
// runs xLast and calls Goexit, and Y, on the caller, runs yBody. X's
// cleanup waits for Y. The Run must end, failed with ErrGoexit.
func goexitWithForkHeld(t *testing.T, p *pool.Pool, xLast, yBody func(w *Worker)) {
	t.Helper()
	var xStolen, yTaken atomic.Bool
	withinMinute(t, "Run whose worker's task calls Goexit while the caller holds its fork", func() {
		testcheck.MustPanicError(t, "Run with a Goexit", func() {
			Run(p, func(w *Worker) {
				root := w
				Join(w, func(w *Worker) {
					for i := 0; i < 1e8 && !xStolen.Load(); i++ {
						Join(w, func(*Worker) {}, func(*Worker) {})
					}
				}, func(w *Worker) { // X
					if w == root {
						t.Error("X was not stolen")
						return
					}
					xStolen.Store(true)
					Join(w, func(w *Worker) {
						for i := 0; i < 1e8 && !yTaken.Load(); i++ {
							Join(w, func(*Worker) {}, func(*Worker) {})
						}
						xLast(w)
						runtime.Goexit()
					}, func(w *Worker) { // Y
						if w != root {
							t.Error("Y was not taken by the caller")
							return
						}
						yTaken.Store(true)
						yBody(w)
					})
				})
			})
		}, ErrGoexit, "goexitWithForkHeld")
	})
}

// TestGoexitCleanupRunsNoTask: while X's cleanup waits for Y, a task that
// calls Goexit too (Z) is queued. Had the cleanup helped by running Z,
// Z's Goexit would have cut the cleanup short and X would never have
// ended: the caller, joining X after Y, would wait for ever. The cleanup
// runs nothing; it parks until Y is over.
func TestGoexitCleanupRunsNoTask(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	s := schedulerOf(p)
	var xExited atomic.Bool
	goexitWithForkHeld(t, p, func(*Worker) { xExited.Store(true) }, func(root *Worker) {
		if !testcheck.PollUntil(xExited.Load) {
			t.Error("X never called Goexit")
		}
		Spawn(p, func(w *Worker) (int, error) { // Z
			if w != root {
				runtime.Goexit()
			}
			return 0, nil
		})
		// X's cleanup parks, Z still queued.
		if !testcheck.PollUntil(func() bool { return s.joinParked.Load() == 1 }) {
			t.Error("X's cleanup never parked to wait for Y")
		}
	})
	afterGoexit(t, p)
}

// TestGoexitCleanupLeavesPushedTasksVisible: X pushes a Task that
// completes c before its Goexit, and Y waits for c. X's cleanup pops the
// Task on its way to Y's fork and waits for Y: the Task must be back in
// the deque, where Y's Wait can take it, before that wait begins.
func TestGoexitCleanupLeavesPushedTasksVisible(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	s := schedulerOf(p)
	var pushed atomic.Bool
	var c core.Completion
	var task Task
	task.Init(func(*Worker, *Task) { c.Complete() })
	goexitWithForkHeld(t, p, func(w *Worker) {
		core.Push(w, &task)
		pushed.Store(true)
	}, func(w *Worker) {
		// X's cleanup is waiting for Y.
		if !testcheck.PollUntil(func() bool { return pushed.Load() && s.joinParked.Load() == 1 }) {
			t.Error("X's cleanup never parked to wait for Y")
		}
		core.Wait(w, &c)
	})
	afterGoexit(t, p)
}

// TestGoexitInGraphRunSource: Graph.Run runs a source node on its own
// goroutine; that node calls Goexit, which ends the goroutine while
// another node still runs on the worker. The graph stays under way until
// that node is over (a Run meanwhile panics, as for any Run under way),
// then runs again from scratch: the next Run must not reuse the dead run's
// node array, whose nodes would race with the old ones or fail on their
// stale dependency errors.
func TestGoexitInGraphRunSource(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	g := NewGraph()
	var first atomic.Bool
	first.Store(true)
	release := make(chan struct{})
	a := AddNode(g, func(*Worker) (int, error) {
		if first.Load() {
			runtime.Goexit()
		}
		return 1, nil
	}, nil, WithPriority(High)) // the source Run's goroutine runs itself
	b := AddNode(g, func(*Worker) (int, error) {
		if first.Load() {
			<-release
		}
		return 2, nil
	}, nil)
	c := AddNode(g, func(*Worker) (int, error) { return a.Value() + b.Value(), nil }, []Dep{a, b})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = g.Run(p)
		t.Error("Graph.Run returned on the goroutine that called Goexit")
	}()
	<-done
	testcheck.MustPanicWith(t, "Graph.Run while the orphaned run's node still runs", func() { _ = g.Run(p) }, "under way")
	close(release)
	if !testcheck.PollUntil(func() bool { return !g.running.Load() }) {
		t.Fatal("the graph stayed under way after its last node was over")
	}
	first.Store(false)
	if err := g.Run(p); err != nil || c.Value() != 3 {
		t.Fatalf("Run again = %v, c = %d; want nil, 3", err, c.Value())
	}
	afterGoexit(t, p)
}

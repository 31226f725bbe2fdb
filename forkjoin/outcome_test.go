package forkjoin_test

import (
	"context"
	"errors"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// cancelAndReturn cancels the task's context from inside the task, waits
// until the task's own Worker sees the cancellation (so that the core has
// acted on it before the task returns), and returns normally.
func cancelAndReturn(t *testing.T, w *forkjoin.Worker, cancel context.CancelFunc) {
	cancel()
	if !testcheck.PollUntil(w.Canceled) {
		t.Error("the task's Worker never saw its context canceled")
	}
}

// TestStartedTaskKeepsItsOutcome: a context that is done while a task
// runs stops the task's forks, but a task that returns anyway is over
// with what it returned: its handle, its graph node and its scope report
// that, not the context's error (which is for tasks skipped before they
// started, or unwound by their canceled forks).
func TestStartedTaskKeepsItsOutcome(t *testing.T) {
	leakcheck.Check(t)
	pool.With(2, func(p *pool.Pool) {
		ctx, cancel := context.WithCancel(context.Background())
		h := forkjoin.Spawn(p, func(w *forkjoin.Worker) (int, error) {
			cancelAndReturn(t, w, cancel)
			return 5, nil
		}, forkjoin.WithContext(ctx))
		if v, err := h.Join(); v != 5 || err != nil {
			t.Errorf("handle: got %d, %v; want 5, <nil>", v, err)
		}

		ctx, cancel = context.WithCancel(context.Background())
		g := forkjoin.NewGraph()
		a := forkjoin.AddNode(g, func(w *forkjoin.Worker) (int, error) {
			cancelAndReturn(t, w, cancel)
			return 1, nil
		}, nil)
		var bRan atomic.Bool
		b := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
			bRan.Store(true)
			return 2, nil
		}, []forkjoin.Dep{a})
		err := g.RunCtx(ctx, p)
		if a.Value() != 1 || a.Err() != nil {
			t.Errorf("graph: node a got %d, %v; want 1, <nil>", a.Value(), a.Err())
		}
		if bRan.Load() || !errors.Is(b.Err(), context.Canceled) {
			t.Errorf("graph: node b ran %v with %v; want skipped with context.Canceled", bRan.Load(), b.Err())
		}
		if !errors.Is(err, context.Canceled) || err.Error() != context.Canceled.Error() {
			t.Errorf("graph: RunCtx returned %q; want the context's error, once", err)
		}

		ctx, cancel = context.WithCancel(context.Background())
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			err := forkjoin.ScopeCtx(ctx, w, func(s *forkjoin.Spawner) {
				s.Spawn(w, func(w *forkjoin.Worker) { cancelAndReturn(t, w, cancel) })
			})
			if err != nil {
				t.Errorf("scope: every task ran to its end, but ScopeCtx returned %v", err)
			}
		})
	})
}

// TestGraphRunCtxDoneBeforeStart: with a context done before RunCtx, every
// node is skipped, and RunCtx returns the context's error once, not once
// per node.
func TestGraphRunCtxDoneBeforeStart(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := forkjoin.NewGraph()
	var ran atomic.Int32
	fn := func(*forkjoin.Worker) (int, error) { ran.Add(1); return 0, nil }
	root := forkjoin.AddNode(g, fn, nil)
	mids := []forkjoin.Dep{forkjoin.AddNode(g, fn, []forkjoin.Dep{root}), forkjoin.AddNode(g, fn, []forkjoin.Dep{root})}
	forkjoin.AddNode(g, fn, mids)
	other := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return 0, errors.New("never") }, nil)
	pool.With(2, func(p *pool.Pool) {
		err := g.RunCtx(ctx, p)
		if ran.Load() != 0 || other.Err() != context.Canceled {
			t.Errorf("%d nodes ran, the last one's error is %v; want none, context.Canceled", ran.Load(), other.Err())
		}
		if err != context.Canceled {
			t.Errorf("RunCtx returned %q; want context.Canceled itself", err)
		}
	})
}

// TestTaskPushedAgainFromItsFunction: a Task may be pushed again once its
// function has started (Task.Init), here by the function itself, many
// times over, while other participants steal it. Under -race this checks
// that the core reads nothing of a Task after its function has started.
func TestTaskPushedAgainFromItsFunction(t *testing.T) {
	leakcheck.Check(t)
	const rounds = 2000
	pool.With(2, func(p *pool.Pool) {
		var task forkjoin.Task
		var left atomic.Int32
		var done core.Completion
		left.Store(rounds)
		task.Init(func(w *forkjoin.Worker, t *forkjoin.Task) {
			if left.Add(-1) == 0 {
				done.Complete()
				return
			}
			core.Push(w, t)
		})
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			core.Push(w, &task)
			core.Wait(w, &done)
		})
	})
}

// TestAddNodeRefusesWithContext: a graph's nodes run under the context
// given to RunCtx; a context given to AddNode would be ignored, so it is
// refused with a message that says so.
func TestAddNodeRefusesWithContext(t *testing.T) {
	g := forkjoin.NewGraph()
	testcheck.MustPanicWith(t, "AddNode with WithContext", func() {
		forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return 0, nil }, nil,
			forkjoin.WithContext(context.Background()))
	}, "WithContext", "RunCtx")
}

// TestRecycledScopeTaskNotCanceledByOldContext: a scope task whose context
// ends while it runs has the cancellation delivered on a goroutine of the
// context's; the task's memory is reused by the next Scope's task, which
// that late cancellation must not reach. Each round, the first Scope's task
// cancels its own context and returns; the second Scope (a context that is
// never done) runs a For that must cover every index.
func TestRecycledScopeTaskNotCanceledByOldContext(t *testing.T) {
	leakcheck.Check(t)
	for _, par := range []int{1, 2} {
		pool.With(par, func(p *pool.Pool) {
			for round := 0; round < 300; round++ {
				var covered atomic.Int64
				var err2 error
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					ctx1, cancel1 := context.WithCancel(context.Background())
					defer cancel1()
					_ = forkjoin.ScopeCtx(ctx1, w, func(s *forkjoin.Spawner) {
						s.Spawn(w, func(*forkjoin.Worker) { cancel1() })
					})
					err2 = forkjoin.ScopeCtx(context.Background(), w, func(s *forkjoin.Spawner) {
						for range 4 {
							s.Spawn(w, func(w *forkjoin.Worker) {
								forkjoin.For(w, 1000, 1, func(_ *forkjoin.Worker, lo, hi int) {
									covered.Add(int64(hi - lo))
								})
							})
						}
					})
				})
				if err2 != nil || covered.Load() != 4000 {
					t.Fatalf("p=%d round %d: second Scope returned %v and its For loops covered %d of 4000 indexes", par, round, err2, covered.Load())
				}
			}
		})
	}
}

// TestRecycledScopeTaskNotFailedByOldPanic: a scope task struct whose last
// task panicked is recycled (the caller's free list gives it back at once
// at parallelism 1) for a task of a later Scope, which must not inherit
// that panic as its own failure.
func TestRecycledScopeTaskNotFailedByOldPanic(t *testing.T) {
	leakcheck.Check(t)
	for _, par := range []int{1, 2} {
		pool.With(par, func(p *pool.Pool) {
			for round := 0; round < 100; round++ {
				var ran atomic.Int64
				var err1, err2 error
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					err1 = forkjoin.ScopeCtx(context.Background(), w, func(s *forkjoin.Spawner) {
						s.Spawn(w, func(*forkjoin.Worker) { panic("first scope") })
					})
					err2 = forkjoin.ScopeCtx(context.Background(), w, func(s *forkjoin.Spawner) {
						for range 4 {
							s.Spawn(w, func(*forkjoin.Worker) { ran.Add(1) })
						}
					})
				})
				if _, ok := err1.(*forkjoin.PanicError); !ok {
					t.Fatalf("p=%d round %d: first Scope returned %v, want its task's panic", par, round, err1)
				}
				if err2 != nil || ran.Load() != 4 {
					t.Fatalf("p=%d round %d: second Scope returned %v with %d of 4 tasks run", par, round, err2, ran.Load())
				}
			}
		})
	}
}

// TestScopeFunctionPanicWaits: a panic in the Scope's own function fails
// the scope like a task's panic: Scope re-panics with it only once the
// tasks already running are over, and the tasks not yet started never run.
func TestScopeFunctionPanicWaits(t *testing.T) {
	leakcheck.Check(t)
	// Parallelism 1: nobody runs the tasks while fn spawns them, so all
	// are skipped, not run later inside Close.
	var ran atomic.Int32
	pool.With(1, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			v := testcheck.MustPanic(t, "Scope whose function panics", func() {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					for range 10 {
						s.Spawn(w, func(*forkjoin.Worker) { ran.Add(1) })
					}
					panic("scope body")
				})
			})
			if pe, ok := v.(*forkjoin.PanicError); !ok || pe.Value != "scope body" {
				t.Errorf("Scope panicked with %v, want a *PanicError of the function's panic", v)
			}
		})
		forkjoin.Run(p, func(*forkjoin.Worker) {})
	})
	if ran.Load() != 0 {
		t.Errorf("%d tasks of the failed scope ran; want none", ran.Load())
	}

	// Parallelism 2: a task already running when fn panics is waited for.
	pool.With(2, func(p *pool.Pool) {
		var started, fnPanicked, finished atomic.Bool
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			testcheck.MustPanic(t, "Scope whose function panics", func() {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					s.Spawn(w, func(*forkjoin.Worker) {
						started.Store(true)
						if !testcheck.PollUntil(fnPanicked.Load) {
							t.Error("the scope's function never panicked")
						}
						finished.Store(true)
					})
					if !testcheck.PollUntil(started.Load) {
						t.Error("the task never started on the other worker")
					}
					fnPanicked.Store(true)
					panic("scope body")
				})
			})
			if !finished.Load() {
				t.Error("Scope panicked while one of its tasks was still running")
			}
		})
	})
}

// TestCloseWithConcurrentSpawns: goroutines outside the pool spawn while
// Close runs. Each Spawn either returns a handle whose task has run by the
// time Close returns, or, once Close has run every task, panics saying the
// pool is closed; never a handle whose task does not run.
func TestCloseWithConcurrentSpawns(t *testing.T) {
	leakcheck.Check(t)
	for round := 0; round < 10; round++ {
		p := pool.New(2)
		const spawners, most = 3, 100_000
		handles := make([][]*forkjoin.Handle[int], spawners)
		var spawned atomic.Int64
		var wg sync.WaitGroup
		for g := range spawners {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() {
					if v := recover(); v != nil {
						if s, ok := v.(string); !ok || !strings.Contains(s, "closed pool") {
							t.Errorf("Spawn panicked with %v, want a message about a closed pool", v)
						}
					}
				}()
				for range most {
					h := forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) { return 1, nil })
					handles[g] = append(handles[g], h)
					spawned.Add(1)
				}
			}()
		}
		if !testcheck.PollUntil(func() bool { return spawned.Load() >= 100 }) {
			t.Fatal("the spawners never started")
		}
		p.Close()
		wg.Wait()
		for g := range handles {
			for i, h := range handles[g] {
				select {
				case <-h.Done():
				default:
					t.Fatalf("round %d: spawner %d's task %d of %d never ran, though Close has returned", round, g, i, len(handles[g]))
				}
			}
		}
		if st := p.Stats(); st.Submitted != st.Completed {
			t.Fatalf("round %d: %d tasks submitted, %d completed", round, st.Submitted, st.Completed)
		}
	}
}

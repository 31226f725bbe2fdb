package forkjoin_test

// Tasks that block, as Go code does: the patterns that work with a
// goroutine per task (errgroup) must work on the pool, on every kind of
// task, at every parallelism, including 1 (docs/architecture.md, "Tasks
// that block"). Each run is bounded by a watchdog that fails the test
// rather than hang it.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// blockWaiters is how many tasks wait for the last one in the
// wait-for-the-last pattern (the 99 of 100).
const blockWaiters = 99

var errLast = errors.New("the last task")

// spawnKind runs n tasks of one kind (Group, Scope, Handle, Graph) on p
// and returns the error they end with (a Group's first failure; the
// tasks' own errors are only a Group's business, so the other kinds
// report nil once all are over).
type spawnKind struct {
	name string
	run  func(p *pool.Pool, tasks []func(ctx context.Context) error) error
}

var spawnKinds = []spawnKind{
	{"Group", func(p *pool.Pool, tasks []func(ctx context.Context) error) error {
		g, ctx := forkjoin.NewGroup(context.Background(), p)
		for _, f := range tasks {
			g.Go(func() error { return f(ctx) })
		}
		return g.Wait()
	}},
	{"Scope", func(p *pool.Pool, tasks []func(ctx context.Context) error) error {
		var first error
		var mu sync.Mutex
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.Spawner) {
				for _, f := range tasks {
					s.Spawn(w, func(w *forkjoin.Worker) {
						if err := f(w.Context()); err != nil {
							mu.Lock()
							first = cmp(first, err)
							mu.Unlock()
						}
					})
				}
			})
		})
		return first
	}},
	{"Handle", func(p *pool.Pool, tasks []func(ctx context.Context) error) error {
		hs := make([]*forkjoin.Handle[struct{}], len(tasks))
		for i, f := range tasks {
			hs[i] = forkjoin.Spawn(p, func(w *forkjoin.Worker) (struct{}, error) {
				return struct{}{}, f(w.Context())
			})
		}
		var first error
		for _, h := range hs {
			if _, err := h.Join(); err != nil {
				first = cmp(first, err)
			}
		}
		return first
	}},
	{"Graph", func(p *pool.Pool, tasks []func(ctx context.Context) error) error {
		g := forkjoin.NewGraph()
		for _, f := range tasks {
			forkjoin.AddNode(g, func(w *forkjoin.Worker) (struct{}, error) {
				return struct{}{}, f(w.Context())
			}, nil)
		}
		err := g.Run(p)
		if errors.Is(err, errLast) {
			return errLast
		}
		return err
	}},
}

// cmp keeps the first error, preferring errLast (the kinds other than
// Group report the tasks' errors in no particular order).
func cmp(first, err error) error {
	if first == nil || errors.Is(err, errLast) {
		return err
	}
	return first
}

// blockPattern is a set of tasks that block on each other, and the error
// the run must end with.
type blockPattern struct {
	name  string
	tasks func() []func(ctx context.Context) error
	check func(err error) error
}

var blockPatterns = []blockPattern{
	// blockWaiters tasks wait for a channel the last task closes (for a
	// Group: the context, canceled by the last task's error).
	{"wait-for-the-last", func() []func(ctx context.Context) error {
		release := make(chan struct{})
		ts := make([]func(ctx context.Context) error, 0, blockWaiters+1)
		for range blockWaiters {
			ts = append(ts, func(ctx context.Context) error {
				select {
				case <-release:
				case <-ctx.Done():
				}
				return nil
			})
		}
		return append(ts, func(context.Context) error {
			close(release)
			return errLast
		})
	}, func(err error) error {
		if !errors.Is(err, errLast) {
			return fmt.Errorf("ended with %v, want the last task's error", err)
		}
		return nil
	}},
	// A pipeline of three stages connected by unbuffered channels, the
	// last stage spawned first.
	{"pipeline", func() []func(ctx context.Context) error {
		const items = 50
		a, b := make(chan int), make(chan int)
		return []func(ctx context.Context) error{
			func(context.Context) error {
				sum := 0
				for v := range b {
					sum += v
				}
				if want := (items - 1) * items * (2*items - 1) / 6; sum != want {
					return fmt.Errorf("pipeline sum %d, want %d", sum, want)
				}
				return errLast
			},
			func(context.Context) error {
				defer close(b)
				for v := range a {
					b <- v * v
				}
				return nil
			},
			func(context.Context) error {
				defer close(a)
				for i := range items {
					a <- i
				}
				return nil
			},
		}
	}, wantLast},
	// A consumer spawned before its producer, on an unbuffered channel.
	{"producer-consumer", func() []func(ctx context.Context) error {
		ch := make(chan int)
		return []func(ctx context.Context) error{
			func(context.Context) error {
				n := 0
				for range ch {
					n++
				}
				if n != 100 {
					return fmt.Errorf("consumed %d, want 100", n)
				}
				return errLast
			},
			func(context.Context) error {
				for i := range 100 {
					ch <- i
				}
				close(ch)
				return nil
			},
		}
	}, wantLast},
	// A barrier: every task waits until all have arrived.
	{"barrier", func() []func(ctx context.Context) error {
		const n = 16
		var wg sync.WaitGroup
		wg.Add(n)
		ts := make([]func(ctx context.Context) error, n)
		for i := range ts {
			ts[i] = func(context.Context) error {
				wg.Done()
				wg.Wait()
				if i == n-1 {
					return errLast
				}
				return nil
			}
		}
		return ts
	}, wantLast},
}

func wantLast(err error) error {
	if !errors.Is(err, errLast) {
		return fmt.Errorf("ended with %v, want the last task's error", err)
	}
	return nil
}

// blockRuns is how many runs each pattern gets per kind and parallelism:
// a thousand in the long tests (CI), fewer otherwise. They are made by
// blockCallers goroutines at once on the same pool, blockRuns/blockCallers
// each: the runs of one caller are held up for a few milliseconds each
// (the monitor's ticks), and those of several overlap.
func blockRuns() int {
	if v := os.Getenv(testcheck.LongEnv); v != "" && v != "0" {
		return 1000
	}
	return 40
}

const blockCallers = 10

// repeat runs run blockRuns() times, from blockCallers goroutines at once,
// counting the runs done in done, and reports the first error.
func repeat(done *atomic.Int64, run func(r int) error) error {
	per := blockRuns() / blockCallers
	errs := make([]error, blockCallers)
	var wg sync.WaitGroup
	for c := range blockCallers {
		wg.Go(func() {
			for r := range per {
				if err := run(c*per + r); err != nil {
					errs[c] = err
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// blockHang is how long a hang takes to be called one: that long without
// a run over. A run takes milliseconds; a thousand of them under the race
// detector on a loaded machine take minutes, so the bound is on progress,
// not on the whole.
const blockHang = 30 * time.Second

// withinOrFail runs f on a goroutine of its own and fails the test if no
// run was counted in done for blockHang (or, with done nil, if f has not
// returned by then), with the state of p's scheduler. The goroutine is
// left behind: the leak check then shows where it is stuck.
func withinOrFail(t *testing.T, p *pool.Pool, what string, done *atomic.Int64, f func()) bool {
	t.Helper()
	over := make(chan struct{})
	go func() {
		defer close(over)
		f()
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	last, since := int64(-1), time.Now()
	for {
		select {
		case <-over:
			return true
		case <-tick.C:
			if done != nil {
				if n := done.Load(); n != last {
					last, since = n, time.Now()
				}
			}
			if time.Since(since) > blockHang {
				t.Errorf("%s: no run over for %v (a hang); the scheduler: %s", what, blockHang, forkjoin.SchedulerState(p))
				return false
			}
		}
	}
}

// TestBlockingTasks: every pattern, through every kind of task, at
// parallelism 1, 2 and 8, blockRuns times on one pool (repeat).
func TestBlockingTasks(t *testing.T) {
	leakcheck.Check(t)
	for _, k := range spawnKinds {
		for _, bp := range blockPatterns {
			for _, n := range []int{1, 2, 8} {
				name := fmt.Sprintf("%s/%s/p%d", k.name, bp.name, n)
				stuck := false
				t.Run(name, func(t *testing.T) {
					p := pool.New(n)
					var done atomic.Int64
					stuck = !withinOrFail(t, p, name, &done, func() {
						err := repeat(&done, func(r int) error {
							if err := bp.check(k.run(p, bp.tasks())); err != nil {
								return fmt.Errorf("run %d: %w", r, err)
							}
							return nil
						})
						if err != nil {
							t.Errorf("%s: %v", name, err)
						}
					})
					if !stuck {
						p.Close() // a stuck pool's Close would hang too
					}
				})
				if stuck {
					return
				}
			}
		}
	}
}

// TestGroupPatternInsideTasks: the errgroup pattern (one task waits on the
// group's context, a sibling fails) inside the stolen half of a Join, and
// inside a Scope's task: the participant that waits below the group never
// runs the waiting task on top of the code that would release it.
func TestGroupPatternInsideTasks(t *testing.T) {
	leakcheck.Check(t)
	groupPattern := func(p *pool.Pool) error {
		g, ctx := forkjoin.NewGroup(context.Background(), p)
		g.Go(func() error { <-ctx.Done(); return nil })
		g.Go(func() error { return errLast })
		return g.Wait()
	}
	places := []struct {
		name string
		run  func(p *pool.Pool) error
	}{
		{"join-half", func(p *pool.Pool) error {
			var err error
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Join(w, func(*forkjoin.Worker) {
					for i := 0; i < 100; i++ {
						forkjoin.Join(w, func(*forkjoin.Worker) {}, func(*forkjoin.Worker) {})
					}
				}, func(*forkjoin.Worker) { err = groupPattern(p) })
			})
			return err
		}},
		{"scope-task", func(p *pool.Pool) error {
			var err error
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					s.Spawn(w, func(*forkjoin.Worker) { err = groupPattern(p) })
				})
			})
			return err
		}},
		{"handle-task", func(p *pool.Pool) error {
			h := forkjoin.Spawn(p, func(*forkjoin.Worker) (struct{}, error) {
				return struct{}{}, groupPattern(p)
			})
			_, err := h.Join()
			return err
		}},
	}
	for _, pl := range places {
		for _, n := range []int{1, 2, 8} {
			name := fmt.Sprintf("%s/p%d", pl.name, n)
			p := pool.New(n)
			var done atomic.Int64
			ok := withinOrFail(t, p, name, &done, func() {
				err := repeat(&done, func(r int) error {
					if err := pl.run(p); !errors.Is(err, errLast) {
						return fmt.Errorf("run %d: %v, want the failing task's error", r, err)
					}
					return nil
				})
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
			})
			if !ok {
				return
			}
			p.Close()
		}
	}
}

// TestGroupWaitMisuse: Wait from one of the group's own tasks (or of a
// group nested in it), and a second Wait, panic with a message instead of
// hanging.
func TestGroupWaitMisuse(t *testing.T) {
	leakcheck.Check(t)
	for _, n := range []int{1, 2} {
		p := pool.New(n)
		withinOrFail(t, p, fmt.Sprintf("misuse p%d", n), nil, func() {
			g, ctx := forkjoin.NewGroup(context.Background(), p)
			g.Go(func() error { return g.Wait() })
			g.GoWorker(func(*forkjoin.Worker) error { return g.Wait() })
			g.Go(func() error {
				inner, _ := forkjoin.NewGroup(ctx, p)
				inner.Go(func() error { return g.Wait() })
				return inner.Wait()
			})
			err := g.Wait()
			var pe *forkjoin.PanicError
			if !errors.As(err, &pe) || !strings.Contains(fmt.Sprint(pe.Value), "one of the group's own tasks") {
				t.Errorf("p%d: Wait = %v, want the panic of a Wait from the group's own task", n, err)
			}
			func() {
				defer func() {
					if r := recover(); !strings.Contains(fmt.Sprint(r), "called twice") {
						t.Errorf("p%d: a second Wait panicked with %v, want \"called twice\"", n, r)
					}
				}()
				g.Wait()
			}()
		})
		p.Close()
	}
}

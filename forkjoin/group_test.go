package forkjoin_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// groupHang bounds how long a test waits for a cancellation that should
// come at once, so that a missing one fails the test instead of hanging it.
const groupHang = 20 * time.Second

// The first error wins: Wait returns it, the group's context is canceled
// with it as the cause, and the tasks that were blocked on that context
// return (those not yet started are skipped).
func TestGroupFirstErrorCancelsOthers(t *testing.T) {
	leakcheck.Check(t)
	errFirst := errors.New("first")
	for _, n := range []int{1, 2, 3} {
		pool.With(n, func(p *pool.Pool) {
			var blockersRan, sawCause atomic.Int64
			err := func() error {
				g, ctx := forkjoin.NewGroup(context.Background(), p)
				for range 10 * n { // more blocked tasks than participants
					g.Go(func() error {
						blockersRan.Add(1)
						select {
						case <-ctx.Done():
						case <-time.After(groupHang):
							t.Errorf("n=%d: a task still running was not canceled", n)
						}
						if context.Cause(ctx) == errFirst {
							sawCause.Add(1)
						}
						return fmt.Errorf("blocker: %w", ctx.Err())
					})
				}
				g.Go(func() error { return errFirst })
				return g.Wait()
			}()
			if err != errFirst {
				t.Errorf("n=%d: Wait returned %v, want %v", n, err, errFirst)
			}
			if blockersRan.Load() != sawCause.Load() {
				t.Errorf("n=%d: %d blockers ran, %d saw the first error as the cause", n, blockersRan.Load(), sawCause.Load())
			}
		})
	}
}

// A task that returns nil everywhere: Wait returns nil, and every task ran.
func TestGroupAllSucceed(t *testing.T) {
	leakcheck.Check(t)
	pool.With(2, func(p *pool.Pool) {
		var ran atomic.Int64
		g, _ := forkjoin.NewGroup(context.Background(), p)
		for range 1000 {
			g.Go(func() error {
				ran.Add(1)
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
		if ran.Load() != 1000 {
			t.Errorf("ran %d of 1000 tasks when Wait returned", ran.Load())
		}
	})
}

// A panic in a task, or in a fork of a task run by another participant,
// reaches Wait as a *PanicError, and cancels the group's context.
func TestGroupPanicAsError(t *testing.T) {
	leakcheck.Check(t)
	for _, inFork := range []bool{false, true} {
		pool.With(2, func(p *pool.Pool) {
			var cause atomic.Value
			g, ctx := forkjoin.NewGroup(context.Background(), p)
			g.GoWorker(func(w *forkjoin.Worker) error {
				if !inFork {
					panic("group boom")
				}
				forkjoin.Join(w, func(*forkjoin.Worker) {}, func(*forkjoin.Worker) { panic("group boom") })
				return nil
			})
			g.Go(func() error {
				<-ctx.Done()
				cause.Store(context.Cause(ctx))
				return nil
			})
			err := g.Wait()
			var pe *forkjoin.PanicError
			if !errors.As(err, &pe) || pe.Value != "group boom" {
				t.Fatalf("inFork=%v: Wait returned %v, want a *PanicError of \"group boom\"", inFork, err)
			}
			if c, _ := cause.Load().(error); c != nil && !errors.As(c, &pe) {
				t.Errorf("inFork=%v: the context's cause is %v, want the panic", inFork, c)
			}
		})
	}
}

// groupTree makes a group in every task, d levels deep, each with two
// tasks, and Waits for it from inside the task: on any parallelism,
// nesting does not deadlock, because Wait helps.
func groupTree(ctx context.Context, p *pool.Pool, d int, count *atomic.Int64, failAt int) error {
	if count.Add(1) == int64(failAt) {
		return fmt.Errorf("fail at %d", failAt)
	}
	if d == 0 {
		return nil
	}
	g, ctx := forkjoin.NewGroup(ctx, p)
	for range 2 {
		g.Go(func() error {
			return groupTree(ctx, p, d-1, count, failAt)
		})
	}
	return g.Wait()
}

func TestGroupNested(t *testing.T) {
	leakcheck.Check(t)
	for _, n := range []int{1, 2, 4} {
		pool.With(n, func(p *pool.Pool) {
			var count atomic.Int64
			err := groupTree(context.Background(), p, 10, &count, -1)
			if err != nil || count.Load() != 1<<11-1 {
				t.Errorf("n=%d: err %v, %d tasks, want nil and %d", n, err, count.Load(), 1<<11-1)
			}
			// A failure deep inside reaches the outermost Wait.
			count.Store(0)
			err = groupTree(context.Background(), p, 10, &count, 500)
			if err == nil || err.Error() != "fail at 500" {
				t.Errorf("n=%d: err %v, want fail at 500", n, err)
			}
		})
	}
}

// A parent context done before the tasks start: they all run (as
// errgroup's do) and see it done. Misuse panics with a message.
func TestGroupParentCanceledAndMisuse(t *testing.T) {
	leakcheck.Check(t)
	pool.With(2, func(p *pool.Pool) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var ran atomic.Bool
		g, gctx := forkjoin.NewGroup(ctx, p)
		g.Go(func() error { ran.Store(true); return gctx.Err() })
		if err := g.Wait(); !errors.Is(err, context.Canceled) {
			t.Errorf("Wait = %v, want context.Canceled", err)
		}
		if !ran.Load() {
			t.Error("a task did not run: every function passed to Go runs")
		}
		wantPanic(t, "called twice", func() { g.Wait() })
		wantPanic(t, "Group.Go after Wait returned", func() {
			g.Go(func() error { return nil })
		})
		wantPanic(t, "nil context", func() { forkjoin.NewGroup(nil, p) }) //nolint:staticcheck
		wantPanic(t, "nil *pool.Pool", func() { forkjoin.NewGroup(context.Background(), nil) })
		g2, _ := forkjoin.NewGroup(ctx, p)
		wantPanic(t, "nil function", func() { g2.Go(nil) })
		wantPanic(t, "nil function", func() { g2.GoWorker(nil) })
		wantPanic(t, "nil function", func() { g2.TryGo(nil) })
		g2.SetLimit(0)
		wantPanic(t, "limit of 0", func() { g2.Go(func() error { return nil }) })
		if g2.TryGo(func() error { return nil }) {
			t.Error("TryGo with a limit of 0 spawned a task")
		}
		g2.Wait()
		var zero forkjoin.Group
		wantPanic(t, "not made by NewGroup", func() { zero.Wait() })
		wantPanic(t, "not made by NewGroup", func() { zero.Go(func() error { return nil }) })
	})
}

// wantPanic calls f and checks that it panics with a message containing
// want.
func wantPanic(t *testing.T, want string, f func()) {
	t.Helper()
	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		f()
		return "<no panic>"
	}()
	if !strings.Contains(msg, want) {
		t.Errorf("panicked with %q, want a message containing %q", msg, want)
	}
}

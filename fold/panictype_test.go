package fold_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// TestOnePanicType: a panic in user code reaches the caller as the module's
// one panic type, *forkjoin.PanicError, whichever package ran the code (the
// core, a fold, a DAG fold, a walk, a Group) and whether the entry point
// returns it or re-panics with it. errors.As finds it (also through a
// wrapping error), IsPanic says so, Value is what was passed to panic, and
// the pool's internal carrier (dispatch.Recovered) never reaches the user.
func TestOnePanicType(t *testing.T) {
	leakcheck.Check(t)
	// A tree of 2^10-1 nodes whose node 700 panics: with two participants
	// the panic happens on whichever one visits it.
	kids := func(n int) []int {
		if 2*n+2 >= 1023 {
			return nil
		}
		return []int{2*n + 1, 2*n + 2}
	}
	g := tree.FromSlice(kids)
	boom := func(n int) {
		if n == 700 {
			panic(fmt.Sprint("node ", n))
		}
	}
	count := fold.New(func(n int) int { boom(n); return 1 },
		func(h *int, c int) { *h += c }, func(h *int) int { return *h })
	const want = "node 700"

	pool.With(2, func(p *pool.Pool) {
		returned := []struct {
			name string
			run  func() error
		}{
			{"forkjoin.RunCtx", func() error {
				return forkjoin.RunCtx(context.Background(), p, func(w *forkjoin.Worker) error {
					tree.WalkSeq(g, 0, func(n int) bool { boom(n); return true })
					return nil
				})
			}},
			{"fold.RunCtx", func() error { _, err := fold.RunCtx(context.Background(), p, count, g, 0); return err }},
			{"fold.RunDAG", func() error {
				_, err := fold.RunDAG(context.Background(), p, count, g, 0, func(n int) int { return n })
				return err
			}},
			{"tree.WalkCtx", func() error {
				return tree.WalkCtx(context.Background(), p, g, 0, func(n int) error { boom(n); return nil })
			}},
			{"Group.Wait", func() error {
				grp, _ := forkjoin.NewGroup(context.Background(), p)
				for i := 690; i < 710; i++ {
					grp.Go(func() error { boom(i); return nil })
				}
				return grp.Wait()
			}},
		}
		for _, c := range returned {
			checkPanicError(t, c.name, c.run(), want)
		}

		repanicked := []struct {
			name string
			run  func()
		}{
			{"forkjoin.Run", func() {
				forkjoin.Run(p, func(w *forkjoin.Worker) { tree.WalkSeq(g, 0, func(n int) bool { boom(n); return true }) })
			}},
			{"fold.Run", func() { fold.Run(p, count, g, 0) }},
			{"tree.Walk", func() { tree.Walk(p, g, 0, boom) }},
			{"tree.Count", func() {
				tree.Count(p, tree.FromSlice(func(n int) []int { boom(n); return kids(n) }), 0)
			}},
		}
		for _, c := range repanicked {
			r := func() (r any) {
				defer func() { r = recover() }()
				c.run()
				return nil
			}()
			err, ok := r.(error)
			if !ok {
				t.Errorf("%s panicked with %T (%v), want a *forkjoin.PanicError", c.name, r, r)
				continue
			}
			if _, ok := r.(*forkjoin.PanicError); !ok {
				t.Errorf("%s panicked with %T, want a *forkjoin.PanicError", c.name, r)
			}
			checkPanicError(t, c.name, err, want)
		}
	})
}

func checkPanicError(t *testing.T, name string, err error, want any) {
	t.Helper()
	for _, e := range []error{err, fmt.Errorf("wrapped: %w", err)} {
		var pe *forkjoin.PanicError
		if !errors.As(e, &pe) {
			t.Errorf("%s: errors.As(%v, *forkjoin.PanicError) is false", name, e)
			continue
		}
		if pe.Value != want || len(pe.Stack) == 0 {
			t.Errorf("%s: PanicError{Value: %v, %d bytes of stack}, want Value %v and a stack", name, pe.Value, len(pe.Stack), want)
		}
		if !forkjoin.IsPanic(e) {
			t.Errorf("%s: IsPanic(%v) is false", name, e)
		}
		var carrier *dispatch.Recovered
		if errors.As(e, &carrier) {
			t.Errorf("%s: the internal *dispatch.Recovered reached the user", name)
		}
	}
	if forkjoin.IsPanic(errors.New("plain")) || forkjoin.IsPanic(nil) || forkjoin.IsPanic(context.Canceled) {
		t.Error("IsPanic is true for an error that is no panic")
	}
}

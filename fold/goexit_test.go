package fold_test

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// goid is the calling goroutine's id, read from its stack's header (some
// microseconds: the callbacks below use it as their work too).
func goid() uint64 {
	var b [64]byte
	f := strings.Fields(string(b[:runtime.Stack(b[:], false)]))
	id, _ := strconv.ParseUint(f[1], 10, 64)
	return id
}

// TestGoexitInCallbackOnWorker: a callback that the pool's worker runs
// calls runtime.Goexit (in a test, t.FailNow off the test's goroutine).
// The worker's goroutine ends, as Goexit demands, but the fold, the DAG
// fold and the walk each fail with a *PanicError of ErrGoexit instead of
// waiting for ever for the part the worker had taken; the pool replaces
// its worker and goes on.
//
// The worker must run a callback: the caller's first callback after the
// root's waits until it has. It has given work away by then: the walks
// deal at their first look (dealFirst), the DAG fold gives half of its
// leaves before folding the first.
func TestGoexitInCallbackOnWorker(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	g := tree.FromSlice(func(n int) []int {
		if n >= 1<<11 {
			return nil
		}
		return []int{2 * n, 2*n + 1}
	})
	const want = 1<<12 - 1 // nodes
	dealing := func() context.Context { return walk.WithSchedule(context.Background(), &dealFirst{}) }
	runs := map[string]func(init func(int) int) error{
		"RunCtx": func(init func(int) int) error {
			_, err := fold.RunCtx(dealing(), p, fold.New(init, func(h *int, c int) { *h += c }, func(h *int) int { return *h }), g, 1)
			return err
		},
		"RunDAG": func(init func(int) int) error {
			_, err := fold.RunDAG(context.Background(), p, fold.New(init, func(h *int, c int) { *h += c }, func(h *int) int { return *h }), g, 1, func(n int) int { return n })
			return err
		},
		"WalkCtx": func(init func(int) int) error {
			return tree.WalkCtx(dealing(), p, g, 1, func(n int) error { init(n); return nil })
		},
	}
	for name, run := range runs {
		var goexited atomic.Bool
		caller := goid()
		err := run(func(n int) int {
			switch {
			case goid() != caller:
				if goexited.CompareAndSwap(false, true) {
					runtime.Goexit()
				}
			case n != 1 && !goexited.Load():
				if !testcheck.PollUntil(goexited.Load) {
					t.Errorf("%s: the worker ran no callback", name)
				}
			}
			return 1
		})
		if !goexited.Load() {
			t.Fatalf("%s: the worker never ran a callback", name)
		}
		var pe *forkjoin.PanicError
		if !errors.As(err, &pe) || pe.Value != forkjoin.ErrGoexit {
			t.Fatalf("%s = %v, want a *PanicError of ErrGoexit", name, err)
		}
		got, err := fold.RunCtx(context.Background(), p, fold.Size[int](), g, 1)
		if got != want || err != nil {
			t.Fatalf("after %s: Count = %d, %v; want %d", name, got, err, want)
		}
	}
	// The last run may return before the last worker's goroutine ends.
	if !testcheck.PollUntil(func() bool { return p.Stats().Goexits == 3 }) {
		t.Errorf("Goexits = %d, want 3", p.Stats().Goexits)
	}
}

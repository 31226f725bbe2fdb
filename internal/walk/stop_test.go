package walk

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestStoppedSeenWithinCtxEvery: a walk whose Ops were stopped sees it at
// its periodic look, at most ctxEvery nodes later, even when the run's
// cancellation does not come (Stop sets the flag, then cancels: a stopper
// that the system holds between the two must not leave the others
// walking). A callback sets the flag alone; the walk must unwind within
// ctxEvery nodes, and the run ends aborted. On one participant, at node
// 1,000 and 100,000 of a binary tree and of a chain (push and slice
// forms), and on a chain at parallelism 2, where the other participant's
// request stands unanswered (dry: the walk then looks at the run at every
// node, and at the flag with the context).
func TestStoppedSeenWithinCtxEvery(t *testing.T) {
	leakcheck.Check(t)
	const n = 1 << 20
	binary := func(i int, yield func(int) bool) {
		if c := 2*i + 1; c < n {
			_ = yield(c) && (c+1 >= n || yield(c+1))
		}
	}
	chain := func(i int, yield func(int) bool) {
		if i+1 < n {
			yield(i + 1)
		}
	}
	sliceOf := func(each func(int, func(int) bool)) func(int) []int {
		return func(i int) []int {
			var kids []int
			each(i, func(c int) bool { kids = append(kids, c); return true })
			return kids
		}
	}
	for _, par := range []int{1, 2} {
		pool.With(par, func(p *pool.Pool) {
			for _, s := range []struct {
				name  string
				each  func(int, func(int) bool)
				slice bool
			}{{"binary", binary, false}, {"binary-slice", binary, true}, {"chain", chain, false}, {"chain-slice", chain, true}} {
				if par > 1 && s.name[:5] != "chain" {
					continue // other participants walk too: their counts are not this test's
				}
				for _, at := range []int64{1000, 100_000} {
					name := fmt.Sprintf("p=%d %s, stopped at node %d", par, s.name, at)
					var started, late atomic.Int64
					var flagged atomic.Bool
					ops := &Ops[int, struct{}, struct{}]{
						Accumulate: func(*struct{}, struct{}) {},
						Finalize:   func(*struct{}) struct{} { return struct{}{} },
						Children:   s.each,
					}
					if s.slice {
						ops.Slice = sliceOf(s.each)
					}
					ops.Init = func(int) struct{} {
						if flagged.Load() {
							late.Add(1)
						}
						if started.Add(1) == at {
							ops.stopped.Store(true) // Stop's first step, and no cancellation
							flagged.Store(true)
						}
						return struct{}{}
					}
					err := forkjoin.RunCtx(context.Background(), p, func(w *forkjoin.Worker) error {
						Run(w, ops, 0)
						return nil
					})
					if !errors.Is(err, forkjoin.ErrAborted) {
						t.Fatalf("%s: the run returned %v, want forkjoin.ErrAborted", name, err)
					}
					if !flagged.Load() {
						t.Fatalf("%s: the walk ended after %d nodes", name, started.Load())
					}
					if late.Load() > ctxEvery {
						t.Errorf("%s: %d nodes started after the flag, more than %d", name, late.Load(), ctxEvery)
					}
				}
			}
		})
	}
}

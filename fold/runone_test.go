package fold_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// TestRunParallelismOne: a pool of parallelism 1 runs folds with the
// sequential executor; Run's contracts hold there too: the same result
// as Seq near the root and below the recursion's depth, a callback's panic
// re-raised as a *forkjoin.PanicError, a canceled context stopping the
// fold within a few hundred nodes near the root and deep in a chain.
func TestRunParallelismOne(t *testing.T) {
	leakcheck.Check(t)
	const deep = 100_000
	pool.With(1, func(p *pool.Pool) {
		for _, s := range []struct {
			name string
			g    tree.Treeish[int]
		}{{"chain", testtree.Chain(deep)}, {"binary", testtree.Binary(deep)}, {"wide", testtree.Wide(deep)}} {
			want := fold.Seq(fold.PreOrder[int](), s.g, 0)
			got := fold.Run(p, fold.PreOrder[int](), s.g, 0)
			if !slices.Equal(got.Slice(), want.Slice()) {
				t.Fatalf("%s: Run differs from Seq", s.name)
			}

			bad := errors.New("bad")
			f := fold.New(func(n int) int {
				if n == deep-10 {
					panic(bad)
				}
				return 1
			}, func(h *int, c int) { *h += c }, func(h *int) int { return *h })
			err := caught(func() { fold.Run(p, f, s.g, 0) })
			var pe *forkjoin.PanicError
			if !errors.As(err, &pe) || !errors.Is(err, bad) {
				t.Fatalf("%s: a callback's panic came back as %v, want a *forkjoin.PanicError of it", s.name, err)
			}

			for _, at := range []int64{100, deep - 1000} {
				ctx, cancel := context.WithCancel(context.Background())
				var inits, after atomic.Int64
				f := fold.New(func(int) int {
					if n := inits.Add(1); n == at {
						cancel()
					} else if n > at {
						after.Add(1)
					}
					return 1
				}, func(h *int, c int) { *h += c }, func(h *int) int { return *h })
				_, err := fold.RunCtx(ctx, p, f, s.g, 0)
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%s: canceled at node %d, RunCtx returned %v", s.name, at, err)
				}
				if n := after.Load(); n > 256 {
					t.Fatalf("%s: %d nodes started after the cancel at node %d", s.name, n, at)
				}
			}
		}
		if n := fold.Run(p, fold.Size[int](), testtree.Binary(1000), 0); n != 1000 {
			t.Fatalf("the pool counted %d of 1000 nodes after the failures", n)
		}
	})
}

package fold_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// TestRunErrStopsAtFirstError: the first error a FoldErr's callback
// returns stops the other participants as a cancellation does
// (tree.TestStopAtErrorOrMatch explains the bound): the first Init,
// Accumulate or Finalize called once 50,000 nodes have started fails, and
// at most (p-1)·257 nodes start after it, on a binary tree of 2^20 nodes,
// push and slice, at parallelism 2 and 3.
func TestRunErrStopsAtFirstError(t *testing.T) {
	leakcheck.Check(t)
	const n, failAt = 1 << 20, 50_000
	binary := testtree.Binary(n)
	shapes := map[string]tree.Treeish[int]{
		"binary":       binary,
		"binary-slice": tree.FromSlice(func(i int) []int { return tree.AppendChildren(nil, binary, i) }),
	}
	rounds := 20
	if testtree.Race {
		rounds = 4
	}
	errBad := errors.New("bad node")
	for _, par := range []int{2, 3} {
		bound := int64(par-1) * 257
		pool.With(par, func(p *pool.Pool) {
			for name, g := range shapes {
				for _, in := range []string{"Init", "Accumulate", "Finalize"} {
					var worst int64
					for range rounds {
						var started, late atomic.Int64
						var failed atomic.Bool
						// fail reports whether the callback of kind k fails:
						// the first of its kind once failAt nodes started.
						fail := func(k string) bool {
							return k == in && started.Load() >= failAt && failed.CompareAndSwap(false, true)
						}
						f := fold.NewErr(
							func(node int) (int, error) {
								if failed.Load() {
									late.Add(1)
								}
								started.Add(1)
								if fail("Init") {
									return 0, errBad
								}
								return node, nil
							},
							func(h *int, c int) error {
								if fail("Accumulate") {
									return errBad
								}
								*h += c
								return nil
							},
							func(h *int) (int, error) {
								if fail("Finalize") {
									return 0, errBad
								}
								return *h, nil
							},
						)
						if _, err := fold.RunErr(context.Background(), p, f, g, 0); err != errBad {
							t.Fatalf("p=%d %s, %s fails: RunErr returned %v, want the callback's error as it is", par, name, in, err)
						}
						worst = max(worst, late.Load())
					}
					msg := fmt.Sprintf("p=%d %s, %s fails: at most %d nodes started after the error (bound %d)", par, name, in, worst, bound)
					if worst > bound {
						t.Error(msg)
					} else {
						t.Log(msg)
					}
				}
			}
		})
	}
}

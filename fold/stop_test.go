package fold_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// TestRunErrStopsAtFirstError: the first error a FoldErr's callback
// returns stops the other participants at once. On the binary tree of
// 2^20 nodes (push and slice), the first Init, Accumulate or Finalize
// called once 25,000 nodes of each half of the tree (the root's two
// subtrees) have started fails, so that at least two participants are
// walking then. At parallelism 2 and 3, in 32 rounds each (12 under
// -race), the upper quartile round starts at most 128 nodes per other
// participant after the error, where a stop through a recorded panic
// starts thousands (tree.TestStopAtErrorOrMatch says why a quartile).
func TestRunErrStopsAtFirstError(t *testing.T) {
	leakcheck.Check(t)
	const n, each = 1 << 20, 25_000
	binary := testtree.Binary(n)
	shapes := map[string]tree.Treeish[int]{
		"binary":       binary,
		"binary-slice": tree.FromSlice(func(i int) []int { return tree.AppendChildren(nil, binary, i) }),
	}
	rounds := 32
	if testtree.Race {
		rounds = 12
	}
	errBad := errors.New("bad node")
	for _, par := range []int{2, 3} {
		bound := int64(par-1) * 128
		pool.With(par, func(p *pool.Pool) {
			for name, g := range shapes {
				for _, in := range []string{"Init", "Accumulate", "Finalize"} {
					var lates []int64
					for range rounds {
						var halves [3]atomic.Int64 // Inits by half: 0 the root, 1 left, 2 right
						var late atomic.Int64
						var failed atomic.Bool
						// fail reports whether the callback of kind k fails: the
						// first of its kind once both halves are under way.
						fail := func(k string) bool {
							return k == in && halves[1].Load() >= each && halves[2].Load() >= each && failed.CompareAndSwap(false, true)
						}
						f := fold.NewErr(
							func(node int) (int, error) {
								if failed.Load() {
									late.Add(1)
								}
								halves[testtree.BinaryHalf(node)].Add(1)
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
						lates = append(lates, late.Load())
					}
					slices.Sort(lates)
					q := lates[3*rounds/4]
					msg := fmt.Sprintf("p=%d %s, %s fails: nodes started after the error, upper quartile (worst) of %d rounds: %d (%d); bound on the quartile %d",
						par, name, in, rounds, q, lates[rounds-1], bound)
					if q > bound {
						t.Error(msg)
					} else {
						t.Log(msg)
					}
				}
			}
		})
	}
}

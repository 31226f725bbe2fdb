package tree_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// quartileBound bounds, per participant other than the one that
// stopped, the visits that start after the stop in the upper quartile
// round (three rounds in four start no more). It is the bound that holds
// in every round once Stop has set the walk's stopped flag — a look at it
// every 256 nodes (internal/walk's ctxEvery, checked by its
// TestStoppedSeenWithinCtxEvery) — plus the visits under way. Most rounds
// start none or one: the participants are told at once through their poll
// words. But the telling is a few microseconds of work on the stopping
// goroutine, and under the race detector on a loaded machine (CI runs two
// packages' tests at once) a quarter of the rounds measured 57–182 late
// visits on a binary tree at parallelism 2 while the telling was under
// way; a bound below the look at the flag would make this test measure
// the machine's load.
const quartileBound = 256 + 16

// TestStopAtErrorOrMatch: a WalkCtx whose visit returns an error, and a
// Find whose predicate matches, stop the walk at once. The tree is the
// binary tree of 2^20 nodes (push and slice Treeish); the stop comes at
// the first visit that finds 25,000 nodes visited in each half of it (the
// root's two subtrees), so that at least two participants are walking
// when it comes, and the test counts the visits started after it. At
// parallelism 2 and 3, in 32 rounds each (12 under -race), the upper
// quartile round starts at most quartileBound visits per other
// participant.
//
// Why a quartile: what the test measures is a latency, the time between
// the visit's return and the moment the other participants are told (a
// visit each may be under way then, and it takes each one look to see
// it). The stop is made from the visit's goroutine a few instructions
// after it returns, before it unwinds (walk.Ops.Stop); if the operating
// system takes the processor from that goroutine within those
// instructions, the others go on until it runs again, which no bound on
// a single round can cover. Such rounds are rare, and the quartile is not
// moved by them. A walk that records a panic's stack before it cancels
// (tens of microseconds) starts thousands of visits after the stop. What
// holds in every round, whatever the scheduling, once the stopping
// goroutine has set the walk's stopped flag (Stop's first step) is that
// each participant starts at most 256 more nodes: internal/walk's
// TestStoppedSeenWithinCtxEvery.
func TestStopAtErrorOrMatch(t *testing.T) {
	leakcheck.Check(t)
	const n = 1 << 20
	binary := testtree.Binary(n)
	shapes := []struct {
		name string
		g    tree.Treeish[int]
	}{
		{"binary", binary},
		{"binary-slice", tree.FromSlice(func(i int) []int { return tree.AppendChildren(nil, binary, i) })},
	}
	rounds := 32
	if testtree.Race {
		rounds = 12
	}
	errStop := errors.New("stop")
	for _, par := range []int{2, 3} {
		bound := int64(par-1) * quartileBound
		pool.With(par, func(p *pool.Pool) {
			for _, s := range shapes {
				var afterErr, afterMatch []int64
				for range rounds {
					var sb stopBoth
					err := tree.WalkCtx(context.Background(), p, s.g, 0, func(i int) error {
						if sb.visit(i) {
							return errStop
						}
						return nil
					})
					if err != errStop {
						t.Fatalf("p=%d %s: WalkCtx returned %v, want the visit's error as it is", par, s.name, err)
					}
					afterErr = append(afterErr, sb.late.Load())

					sb = stopBoth{}
					if _, ok := tree.Find(p, s.g, 0, sb.visit); !ok {
						t.Fatalf("p=%d %s: Find found nothing", par, s.name)
					}
					afterMatch = append(afterMatch, sb.late.Load())
				}
				slices.Sort(afterErr)
				slices.Sort(afterMatch)
				q := 3 * rounds / 4
				msg := fmt.Sprintf("p=%d %s: visits started after the stop, upper quartile (worst) of %d rounds: %d (%d) after the error, %d (%d) after the match; bound on the quartile %d",
					par, s.name, rounds, afterErr[q], afterErr[rounds-1], afterMatch[q], afterMatch[rounds-1], bound)
				if afterErr[q] > bound || afterMatch[q] > bound {
					t.Error(msg)
				} else {
					t.Log(msg)
				}
			}
		})
	}
}

// stopBoth decides the stop of a walk over a binary tree in heap order:
// visit counts the visits of each half (the subtrees of the root's two
// children), and reports true once, at the first visit that finds
// bothHalves visits in each; late counts the visits that start after.
type stopBoth struct {
	halves  [3]atomic.Int64 // by half: 0 the root, 1 left, 2 right
	stopped atomic.Bool
	late    atomic.Int64
}

const bothHalves = 25_000

func (s *stopBoth) visit(i int) bool {
	if s.stopped.Load() {
		s.late.Add(1)
		return false
	}
	s.halves[testtree.BinaryHalf(i)].Add(1)
	return s.halves[1].Load() >= bothHalves && s.halves[2].Load() >= bothHalves && s.stopped.CompareAndSwap(false, true)
}

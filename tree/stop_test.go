package tree_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// lookEvery is how many nodes a participant of a walk starts at most
// between two looks at whether the walk was stopped, before the run's
// cancellation reaches it (internal/walk's ctxEvery, docs/guarantees.md
// §6).
const lookEvery = 256

// TestStopAtErrorOrMatch: a WalkCtx whose visit returns an error, and a
// Find whose predicate matches, stop the walk as a cancellation does. The
// visit or predicate of one node (the 50,000th started, when every
// participant is busy) marks the stop and returns; the test counts the
// visits started after the mark, on random and regular shapes, push and
// slice Treeishes, at parallelism 2 and 3.
//
// The bound: the participant that stopped starts nothing more; each other
// participant may be inside a visit when the mark is set, and starts at
// most lookEvery more before it sees the walk stopped (the run's
// cancellation, which reaches it within a microsecond or so, tells it
// sooner). So (p-1)·(lookEvery+1) visits at most. The bound does not
// depend on scheduling: the flag those looks read is set by the stopping
// goroutine a few instructions after the test's mark. A walk that takes a
// panic's stack before it cancels goes on for thousands of visits (tens
// of microseconds).
func TestStopAtErrorOrMatch(t *testing.T) {
	leakcheck.Check(t)
	const n, stopAt = 1 << 20, 50_000
	binary, wide := testtree.Binary(n), testtree.Wide(n)
	octal := tree.FromFunc(func(i int, yield func(int) bool) {
		for c := 8*i + 1; c <= 8*i+8 && c < n; c++ {
			if !yield(c) {
				return
			}
		}
	})
	sliceOf := func(g tree.Treeish[int]) tree.Treeish[int] {
		return tree.FromSlice(func(i int) []int { return tree.AppendChildren(nil, g, i) })
	}
	shapes := []struct {
		name string
		g    tree.Treeish[int]
	}{{"binary", binary}, {"binary-slice", sliceOf(binary)}, {"octal", octal}, {"wide", wide}, {"chain", testtree.Chain(n)}}
	rounds := 30
	if testtree.Race {
		rounds = 5
	}
	errStop := errors.New("stop")
	for _, par := range []int{2, 3} {
		bound := int64(par-1) * (lookEvery + 1)
		pool.With(par, func(p *pool.Pool) {
			for _, s := range shapes {
				var worstErr, worstFind int64
				for range rounds {
					var started, late atomic.Int64
					var marked atomic.Bool
					// visit marks the stop at the stopAt-th node started and
					// reports whether it is that node.
					visit := func() bool {
						if marked.Load() {
							late.Add(1)
						}
						if started.Add(1) == stopAt {
							marked.Store(true)
							return true
						}
						return false
					}
					err := tree.WalkCtx(context.Background(), p, s.g, 0, func(int) error {
						if visit() {
							return errStop
						}
						return nil
					})
					if err != errStop {
						t.Fatalf("p=%d %s: WalkCtx returned %v, want the visit's error as it is", par, s.name, err)
					}
					worstErr = max(worstErr, late.Load())

					started.Store(0)
					late.Store(0)
					marked.Store(false)
					if _, ok := tree.Find(p, s.g, 0, func(int) bool { return visit() }); !ok {
						t.Fatalf("p=%d %s: Find found nothing", par, s.name)
					}
					worstFind = max(worstFind, late.Load())
				}
				msg := fmt.Sprintf("p=%d %s: at most %d visits started after the error, %d after the match (bound %d)", par, s.name, worstErr, worstFind, bound)
				if worstErr > bound || worstFind > bound {
					t.Error(msg)
				} else {
					t.Log(msg)
				}
			}
		})
	}
}

package fold_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// TestRunStreamsChildren: a thief starts on a node's children while the
// node is still listing them. The root's children function yields one
// child at a time and, after each, waits up to a millisecond for another
// participant to initialise one of the children yielded so far; it stops
// listing as soon as that happens. Without streaming no child can be
// initialised before the listing ends (the owner is busy listing, and the
// children are handed out only after it), so the listing would run to its
// bound and the test fail.
func TestRunStreamsChildren(t *testing.T) {
	leakcheck.Check(t)
	const maxKids = 5000 // about 5 s of listing at most
	pool.With(2, func(p *pool.Pool) {
		for round := 0; round < 20; round++ {
			var started atomic.Bool // a child of the root was initialised
			var listed int
			children := func(n int, yield func(int) bool) {
				if n != 0 {
					return
				}
				for listed = 0; listed < maxKids && !started.Load(); {
					listed++
					if !yield(listed) {
						return
					}
					for end := time.Now().Add(time.Millisecond); !started.Load() && time.Now().Before(end); {
						runtime.Gosched()
					}
				}
			}
			f := fold.New(
				func(n int) int {
					if n != 0 {
						started.Store(true)
					}
					return 1
				},
				func(h *int, c int) { *h += c },
				func(h *int) int { return *h },
			)
			got := fold.Run(p, f, tree.FromFunc(children), 0)
			if !started.Load() || listed == maxKids {
				t.Fatalf("round %d: no child was started while %d children were listed", round, listed)
			}
			if got != listed+1 {
				t.Fatalf("round %d: counted %d nodes, want %d", round, got, listed+1)
			}
		}
	})
}

// TestRunStreamingMatchesSeq is TestRunMatchesSeq with a children function
// that yields slowly (it lets other goroutines run after each child), so
// that requests for work often arrive during a listing and children are
// published while their parent is still listing them.
func TestRunStreamingMatchesSeq(t *testing.T) {
	leakcheck.Check(t)
	slow := tree.FromFunc(func(n *testtree.Node, yield func(*testtree.Node) bool) {
		testtree.Children.Each(n, func(c *testtree.Node) bool {
			runtime.Gosched()
			return yield(c)
		})
	})
	checkKinds(t, slow)
}

// TestRunRootWithOneChild: a request for work that the walk cannot answer
// when it arrives (the root has a single child) is answered later, not
// lost. The root has one child c, and c two children a and b; a's Init
// waits (up to testcheck.StuckAfter) for b's Init to start on another
// participant. The first request of a run comes while the root is being
// entered, when there is nothing to give; if it were dropped, the pool's
// sleeping worker would never be woken and b would start only after a, on
// the same goroutine. Each round uses a new pool, whose workers start
// asleep.
func TestRunRootWithOneChild(t *testing.T) {
	leakcheck.Check(t)
	kids := map[int][]int{-1: {0}, 0: {1, 2}}
	g := tree.FromSlice(func(n int) []int { return kids[n] })
	for round := 0; round < 20; round++ {
		var bStarted atomic.Bool
		var waitedOut atomic.Bool
		f := fold.New(
			func(n int) int {
				switch n {
				case 1:
					if !testcheck.PollUntil(bStarted.Load) {
						waitedOut.Store(true)
					}
				case 2:
					bStarted.Store(true)
				}
				return 1
			},
			func(h *int, c int) { *h += c },
			func(h *int) int { return *h },
		)
		var got int
		pool.With(2, func(p *pool.Pool) { got = fold.Run(p, f, g, -1) })
		if waitedOut.Load() {
			t.Fatalf("round %d: b did not start while a waited for it: the request for work was lost", round)
		}
		if got != 4 {
			t.Fatalf("round %d: counted %d nodes, want 4", round, got)
		}
	}
}

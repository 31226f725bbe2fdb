package fold_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// retainNode is a node of a pointer-linked tree whose collection the test
// watches.
type retainNode struct {
	v    int64
	kids []*retainNode
}

// TestRunRetainsNothing: once Run returns, the pool holds nothing of the
// fold: not its nodes (a published child is a task that the worker's
// deque pointed to until the ring came round again), not its callbacks
// and what they capture. Every node and a block the callbacks capture get
// a finalizer; after the runs everything is dropped and collected while
// the pool stays open, and every finalizer must run.
func TestRunRetainsNothing(t *testing.T) {
	leakcheck.Check(t)
	depth := 8 // 4-ary: 21,845 nodes
	if testtree.Race {
		depth = 6
	}
	for _, par := range []int{1, 2, 4} {
		p := pool.New(par)
		var freed, nodes atomic.Int64
		var build func(d int) *retainNode
		build = func(d int) *retainNode {
			n := &retainNode{v: nodes.Add(1)}
			runtime.SetFinalizer(n, func(*retainNode) { freed.Add(1) })
			if d > 1 {
				for range 4 {
					n.kids = append(n.kids, build(d-1))
				}
			}
			return n
		}
		root := build(depth)
		captured := new([1 << 16]byte)
		var capturedFreed atomic.Bool
		runtime.SetFinalizer(captured, func(*[1 << 16]byte) { capturedFreed.Store(true) })
		f := fold.New(
			func(n *retainNode) int64 { return n.v + int64(captured[n.v%(1<<16)]) },
			func(h *int64, c int64) { *h = *h*31 + c },
			func(h *int64) int64 { return *h },
		)
		g := tree.FromSlice(func(n *retainNode) []*retainNode { return n.kids })
		want := fold.Seq(f, g, root)
		for range 3 {
			if got := fold.Run(p, f, g, root); got != want {
				t.Fatalf("p=%d: Run = %d, want %d", par, got, want)
			}
		}
		root, captured, f = nil, nil, fold.Fold[*retainNode, int64, int64]{}
		// A node's finalizer runs a collection after its parent's: a level
		// per collection. The pool's workers drop what they hold when they
		// stop searching, ~0.1 ms after the last run: poll until then.
		for deadline := time.Now().Add(10 * time.Second); freed.Load() < nodes.Load() || !capturedFreed.Load(); runtime.Gosched() {
			if time.Now().After(deadline) {
				t.Fatalf("p=%d: %d of %d nodes collected, captured block collected: %v; the pool keeps the rest alive",
					par, freed.Load(), nodes.Load(), capturedFreed.Load())
			}
			runtime.GC()
		}
		p.Close()
	}
}

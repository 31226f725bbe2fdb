package fold_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/tree"
)

// seqMarker is captured by a fold's callbacks and by its children
// function, to see whether anything keeps them after Seq returns.
type seqMarker struct{ pad [64]byte }

// TestSeqKeepsNothingAfterReturn checks that the folder Seq keeps for its
// next call holds neither the callbacks nor the children function (nor so
// what they capture) once Seq has returned, for a tree deep enough to use
// the explicit stacks.
func TestSeqKeepsNothingAfterReturn(t *testing.T) {
	var collected atomic.Int64
	const runs = 3
	for range runs {
		func() {
			m := &seqMarker{}
			runtime.SetFinalizer(m, func(*seqMarker) { collected.Add(1) })
			f := fold.New(
				func(n int) int { _ = m.pad[0]; return 1 },
				func(h *int, c int) { *h += c },
				func(h *int) int { return *h },
			)
			chain := testtree.Chain(1000)
			g := tree.FromFunc(func(n int, yield func(int) bool) { _ = m.pad[1]; chain.Each(n, yield) })
			if got := fold.Seq(f, g, 0); got != 1000 {
				t.Fatalf("Seq = %d, want 1000", got)
			}
		}()
	}
	// One collection only: a second would empty the sync.Pool, which
	// would free a kept folder whatever it holds. The finalizers of what
	// that collection found unreachable run on their own goroutine.
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for collected.Load() < runs && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := collected.Load(); n < runs {
		t.Errorf("%d of %d folds' captured values collected after Seq returned", n, runs)
	}
}

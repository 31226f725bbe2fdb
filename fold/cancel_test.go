package fold_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// TestCancelStopsBeforeTheNextNode: once a participant has been told that
// its run is canceled, it starts no new node of the fold, whatever the
// parallelism: a cancellation takes at most the time of the callbacks
// already running (docs/guarantees.md, §6). A callback cancels the
// run's context and waits until the core has told the participant (the
// run is canceled and the participant's poll word is down; the core
// tells it from a goroutine of the context's); the test then counts the
// nodes started after: none may be.
//
// Where the fold runs on one participant: the sequential executor of a
// pool of parallelism 1 (near the root, in its recursion, and deep in a
// chain, on its explicit stacks), with a push and a slice Treeish, through
// what RunCtx and RunErr run; and the walk down a chain on a pool of 2,
// once the other participant has asked for work that a chain cannot give
// (its request stands, so the walk no longer looks at its poll word). The
// cancel comes 2 nodes past a multiple of 256, where a look every 256
// nodes would start 254 more.
func TestCancelStopsBeforeTheNextNode(t *testing.T) {
	leakcheck.Check(t)
	const n = 100_000
	sliceOf := func(g tree.Treeish[int]) tree.Treeish[int] {
		return tree.FromSlice(func(i int) []int { return tree.AppendChildren(nil, g, i) })
	}
	type shape struct {
		name string
		g    tree.Treeish[int]
		at   []int64 // the nodes (in the order started) that cancel
	}
	chain, binary, wide := testtree.Chain(n), testtree.Binary(n), testtree.Wide(n)
	shapes := []shape{
		{"chain", chain, []int64{2*256 + 2, 200*256 + 2}},
		{"chain-slice", sliceOf(chain), []int64{2*256 + 2, 200*256 + 2}},
		{"binary", binary, []int64{20*256 + 2}},
		{"binary-slice", sliceOf(binary), []int64{20*256 + 2}},
		{"wide", wide, []int64{20*256 + 2}},
		{"wide-slice", sliceOf(wide), []int64{20*256 + 2}},
	}
	for _, par := range []int{1, 2} {
		pool.With(par, func(p *pool.Pool) {
			for _, s := range shapes {
				if par > 1 && s.name != "chain" && s.name != "chain-slice" {
					continue // more than one participant walks it: see the doc
				}
				for _, at := range s.at {
					for _, viaErr := range []bool{false, true} {
						name := fmt.Sprintf("p=%d %s, canceled at node %d", par, s.name, at)
						if viaErr {
							name += " (RunErr)"
						}
						late := canceledRun(t, p, s.g, at, viaErr)
						if late != 0 {
							t.Errorf("%s: %d nodes started after the participant was told", name, late)
						}
					}
				}
			}
		})
	}
}

// canceledRun folds g on p as RunCtx (or RunErr) does, canceling the
// run's context in the callback of the at-th node started and waiting
// there until the participant has been told, and returns how many nodes
// started after that. On a pool of more than one participant, it first
// waits, at node at-10, for a request for work to stand.
func canceledRun(t *testing.T, p *pool.Pool, g tree.Treeish[int], at int64, viaErr bool) (late int64) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started, told atomic.Int64
	err := forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
		word := core.PollOf(w).Word()
		init := func(n int) int {
			switch started.Add(1) {
			case at - 10:
				if w.Parallelism() > 1 && !waitFor(func() bool { return atomic.LoadUintptr(word) == 0 }) {
					t.Error("no participant asked for work in 10 s")
				}
			case at:
				cancel()
				if !waitFor(func() bool { return w.Canceled() && atomic.LoadUintptr(word) == 0 }) {
					t.Error("the run was not told of its context's cancellation in 10 s")
				}
				told.Store(started.Load())
			}
			return 1
		}
		acc := func(h *int, c int) { *h += c }
		fin := func(h *int) int { return *h }
		if viaErr {
			fold.RunErrOn(w, fold.Lift(fold.New(init, acc, fin)), g, 0)
		} else {
			fold.RunOn(w, fold.New(init, acc, fin), g, 0)
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the run returned %v, want context.Canceled", err)
	}
	if told.Load() == 0 {
		t.Fatalf("the fold ended after %d nodes, before node %d", started.Load(), at)
	}
	return started.Load() - told.Load()
}

// waitFor reports whether cond became true within 10 s, yielding the
// processor between looks.
func waitFor(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		runtime.Gosched()
	}
	return true
}

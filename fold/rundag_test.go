package fold_test

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/fold/foldtest"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// TestRunDAGMatchesSeqDAG: on graphs with heavy sharing, each test fold
// run by RunDAG at random parallelism initialises each key once, keeps the
// contract and gives SeqDAG's answer: foldtest.CheckDAG. The folds whose
// results grow with the number of paths get smaller graphs.
func TestRunDAGMatchesSeqDAG(t *testing.T) {
	leakcheck.Check(t)
	for _, kind := range testtree.Kinds {
		t.Run(kind.String(), func(t *testing.T) {
			spec := testtree.FoldSpec{Kind: kind, Seed: 0x9e3779b97f4a7c15 * uint64(kind+1)}
			size := 120
			if kind.Expands() {
				size = 14
			}
			foldtest.CheckDAG(t, spec.Fold(), testtree.Children, testtree.Key, testNodes(foldtest.DAGs(size)), testtree.Res.Equal)
		})
	}
}

func TestRunDAGCycle(t *testing.T) {
	a := &testtree.Node{ID: 0}
	b := &testtree.Node{ID: 1}
	c := &testtree.Node{ID: 2}
	a.Children = []*testtree.Node{b}
	b.Children = []*testtree.Node{c}
	c.Children = []*testtree.Node{a}
	pool.With(2, func(p *pool.Pool) {
		_, err := fold.RunDAG(context.Background(), p, testtree.SumFold(), testtree.Children, a, testtree.Key)
		var ce *fold.CycleError[int]
		if !errors.As(err, &ce) || len(ce.Cycle) != 3 {
			t.Fatalf("RunDAG on a cycle: %v", err)
		}
	})
}

// TestRunDAGWaitsForCallbacksAfterFailure: when a node panics, RunDAG
// returns only once the callbacks running on other participants are over
// (no callback of the fold runs after RunDAG has returned). One leaf
// blocks its participant until another leaf, on the other participant,
// has panicked; then it finishes its callbacks, which must all come before
// RunDAG returns.
func TestRunDAGWaitsForCallbacksAfterFailure(t *testing.T) {
	leakcheck.Check(t)
	pool.With(2, func(p *pool.Pool) {
		for round := 0; round < 20; round++ {
			var started atomic.Int32
			var panicked, returned, blockerDone atomic.Bool
			var blocker atomic.Int64
			var late atomic.Int32
			after := func() {
				if returned.Load() {
					late.Add(1)
				}
			}
			g := tree.FromFunc(func(n int, yield func(int) bool) {
				if n == 0 {
					for k := 1; k <= 1000; k++ {
						yield(k)
					}
				}
			})
			f := fold.New(
				func(n int) int {
					after()
					switch n {
					case 0:
					default:
						switch started.Add(1) {
						case 1: // the blocker
							blocker.Store(int64(n))
							if !testcheck.PollUntil(panicked.Load) {
								t.Error("no leaf panicked")
							}
						case 2:
							panicked.Store(true)
							panic("leaf")
						}
					}
					return n
				},
				func(h *int, c int) { after(); *h += c },
				func(h *int) int {
					after()
					if int64(*h) == blocker.Load() { // a leaf's heap is its node
						blockerDone.Store(true)
					}
					return *h
				},
			)
			_, err := fold.RunDAG(context.Background(), p, f, g, 0, func(n int) int { return n })
			returned.Store(true)
			var pe *forkjoin.PanicError
			if !errors.As(err, &pe) || pe.Value != "leaf" {
				t.Fatalf("round %d: RunDAG returned %v, want the leaf's panic", round, err)
			}
			if !testcheck.PollUntil(blockerDone.Load) {
				t.Fatalf("round %d: the blocked leaf never finished", round)
			}
			if n := late.Load(); n != 0 {
				t.Fatalf("round %d: %d callbacks ran after RunDAG returned", round, n)
			}
		}
	})
}

// TestRunDAGCycleRing: the cycle report of a ring of 10^6 keys is built in
// time linear in the cycle (a quadratic one does not end within the test's
// timeout), lists the ring in order from the key reached again, and is the
// report SeqDAG gives.
func TestRunDAGCycleRing(t *testing.T) {
	testcheck.Long(t)
	leakcheck.Check(t)
	const n = 1_000_000
	nodes := make([]*testtree.Node, n)
	for i := range nodes {
		nodes[i] = &testtree.Node{ID: i}
	}
	for i, nd := range nodes {
		nd.Children = []*testtree.Node{nodes[(i+1)%n]}
	}
	_, seqErr := fold.SeqDAG(testtree.SumFold(), testtree.Children, nodes[0], testtree.Key)
	var want *fold.CycleError[int]
	if !errors.As(seqErr, &want) {
		t.Fatalf("SeqDAG on a ring: %v", seqErr)
	}
	pool.With(2, func(p *pool.Pool) {
		_, err := fold.RunDAG(context.Background(), p, testtree.SumFold(), testtree.Children, nodes[0], testtree.Key)
		var ce *fold.CycleError[int]
		if !errors.As(err, &ce) {
			t.Fatalf("RunDAG on a ring: %v", err)
		}
		if ce.Key != 0 || len(ce.Cycle) != n {
			t.Fatalf("RunDAG's cycle: key %d, %d keys; want key 0, %d keys", ce.Key, len(ce.Cycle), n)
		}
		for i, k := range ce.Cycle {
			if k != i {
				t.Fatalf("RunDAG's cycle[%d] = %d, want %d", i, k, i)
			}
		}
		if want.Key != ce.Key || !slices.Equal(want.Cycle, ce.Cycle) {
			t.Fatalf("SeqDAG reports key %d and %d keys, RunDAG key %d and %d keys", want.Key, len(want.Cycle), ce.Key, len(ce.Cycle))
		}
	})
}

// TestRunDAGAllocs: RunDAG's per-key state comes out of chunks, so a run
// allocates objects for the chunks and the key map's growth, and a few per
// share of work handed to another participant, but none per key: fewer
// than one object per 50 keys at parallelism 1, and per 10 keys at
// parallelism 2 (where the number of shares depends on how often the
// other participant asks), on a chain of 10^6 keys (as deep as a graph
// gets), a complete binary tree and a layered DAG whose keys have several
// parents; and each run gives SeqDAG's answer. Under the race detector
// the shapes are smaller and parallelism 2 is not bounded.
func TestRunDAGAllocs(t *testing.T) {
	leakcheck.Check(t)
	layered := func(layers, width int) tree.Treeish[int] {
		return tree.FromFunc(func(k int, yield func(int) bool) {
			l, j := k/width, k%width
			if l+1 < layers {
				next := (l + 1) * width
				_ = yield(next+j) && yield(next+(7*j+1)%width) && yield(next+(13*j+5)%width)
			}
		})
	}
	key := func(i int) int { return i }
	scale, layers := 1, 20
	if testtree.Race { // ten times slower
		scale, layers = 10, 12
	}
	for _, s := range []struct {
		name string
		g    tree.Treeish[int]
	}{
		{"chain", testtree.Chain(1_000_000 / scale)},
		{"binary", testtree.Binary(100_000 / scale)},
		{"layered", layered(layers, 10_000)},
	} {
		keys := countKeys(s.g)
		want, err := fold.SeqDAG(fold.Size[int](), s.g, 0, key)
		if err != nil {
			t.Fatal(err)
		}
		for _, par := range []int{1, 2} {
			pool.With(par, func(p *pool.Pool) {
				var got int
				allocs := testing.AllocsPerRun(2, func() {
					got, err = fold.RunDAG(context.Background(), p, fold.Size[int](), s.g, 0, key)
				})
				if err != nil || got != want {
					t.Fatalf("%s p=%d: RunDAG = %d, %v; SeqDAG %d", s.name, par, got, err, want)
				}
				limit := float64(keys) / 50
				if par > 1 {
					limit = float64(keys) / 10
				}
				// Under the race detector the other participant asks
				// far more often, for shares of a few keys.
				if allocs > limit && !(testtree.Race && par > 1) {
					t.Errorf("%s p=%d: %.0f allocations per run of %d keys, more than %.0f", s.name, par, allocs, keys, limit)
				}
				t.Logf("%s p=%d: %.0f allocations per run of %d keys", s.name, par, allocs, keys)
			})
		}
	}
}

// TestRunDAGCtxOnOneProcessor: a RunDAG whose context is canceled from
// one of its callbacks stops within ctxEvery nodes per participant also
// when the goroutine that tells the core of the cancellation cannot run
// (one processor, every participant busy): each phase looks at the
// context itself at its first node and every 256 after. The cancel comes
// at the 50,000th call of the children function (discovery) or of Init
// (folding); the test counts the calls of the same kind that start after
// it: at most p·257.
func TestRunDAGCtxOnOneProcessor(t *testing.T) {
	leakcheck.Check(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const n, cancelAt = 200_000, 50_000
	binary := testtree.Binary(n)
	for _, par := range []int{1, 2} {
		pool.With(par, func(p *pool.Pool) {
			for _, phase := range []string{"discovery", "folding"} {
				ctx, cancel := context.WithCancel(context.Background())
				var calls, late atomic.Int64
				var canceled atomic.Bool
				// count counts a call of the phase's callback; it cancels at
				// the cancelAt-th.
				count := func(of string) {
					if of != phase {
						return
					}
					if canceled.Load() {
						late.Add(1)
					}
					if calls.Add(1) == cancelAt {
						cancel()
						canceled.Store(true)
					}
					spin(300)
				}
				g := tree.FromFunc(func(i int, yield func(int) bool) {
					count("discovery")
					binary.Each(i, yield)
				})
				f := fold.New(func(i int) int { count("folding"); return i },
					func(h *int, c int) { *h += c }, func(h *int) int { return *h })
				_, err := fold.RunDAG(ctx, p, f, g, 0, func(i int) int { return i })
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("p=%d, canceled in %s: RunDAG returned %v, want context.Canceled", par, phase, err)
				}
				if bound := int64(par) * 257; late.Load() > bound {
					t.Errorf("p=%d, canceled in %s: %d calls started after the cancel (bound %d)", par, phase, late.Load(), bound)
				}
			}
		})
	}
}

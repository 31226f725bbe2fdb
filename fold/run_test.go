package fold_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/fold/foldtest"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// TestRunMatchesSeq: for random shapes, each test fold (order-sensitive
// ones included) run by Run at random parallelism, with hand-offs forced,
// gives Seq's answer and keeps the contract (child order, no concurrent
// call on a heap, counts): foldtest.Check.
func TestRunMatchesSeq(t *testing.T) {
	leakcheck.Check(t)
	for _, g := range testtree.Treeishes {
		t.Run(g.Name, func(t *testing.T) { checkKinds(t, g.G) })
	}
}

// checkKinds runs foldtest.Check on each test fold over trees of
// testtree nodes listed by children (which must list testtree.Children's
// children).
func checkKinds(t *testing.T, children tree.Treeish[*testtree.Node]) {
	for _, kind := range testtree.Kinds {
		t.Run(kind.String(), func(t *testing.T) {
			spec := testtree.FoldSpec{Kind: kind, Seed: 0x9e3779b97f4a7c15 * uint64(kind+1)}
			foldtest.Check(t, spec.Fold(), children, testNodes(foldtest.Trees(400)), testtree.Res.Equal)
		})
	}
}

// testNodes makes testtree nodes in the kit's shapes: IDs from the labels,
// values from -100 to 100.
func testNodes(shapes *rapid.Generator[*foldtest.Node]) *rapid.Generator[*testtree.Node] {
	return rapid.Map(shapes, func(n *foldtest.Node) *testtree.Node {
		return foldtest.Build(n, func(label int, kids []*testtree.Node) *testtree.Node {
			return &testtree.Node{ID: label, Value: int64(label*37%201 - 100), Children: kids}
		})
	})
}

func TestRunPanicAndReuse(t *testing.T) {
	leakcheck.Check(t)
	pool.With(4, func(p *pool.Pool) {
		g := testtree.Balanced(2000).Example(3)
		want := fold.Seq(testtree.SumFold(), testtree.Children, g.Root)
		for i := 0; i < 200; i++ {
			bad := (i * 7919) % len(g.Nodes)
			f := testtree.SumFold()
			init := f.Init
			f.Init = func(n *testtree.Node) int64 {
				if n.ID == bad {
					panic(fmt.Sprintf("boom %d", n.ID))
				}
				return init(n)
			}
			func() {
				defer func() {
					r := recover()
					var pe *forkjoin.PanicError
					err, _ := r.(error)
					if !errors.As(err, &pe) || pe.Value != fmt.Sprintf("boom %d", bad) || len(pe.Stack) == 0 {
						t.Fatalf("run %d: recovered %v, want a PanicError for node %d", i, r, bad)
					}
				}()
				fold.Run(p, f, testtree.Children, g.Root)
			}()
			if got := fold.Run(p, testtree.SumFold(), testtree.Children, g.Root); got != want {
				t.Fatalf("after panic %d: got %d want %d", i, got, want)
			}
		}
	})
}

func TestRunErrAndCancel(t *testing.T) {
	leakcheck.Check(t)
	pool.With(2, func(p *pool.Pool) {
		g := testtree.Balanced(5000).Example(1)
		errBad := errors.New("bad node")
		f := fold.Lift(testtree.SumFold())
		init := f.Init
		f.Init = func(n *testtree.Node) (int64, error) {
			if n.ID == len(g.Nodes)/2 {
				return 0, errBad
			}
			return init(n)
		}
		if _, err := fold.RunErr(context.Background(), p, f, testtree.Children, g.Root); !errors.Is(err, errBad) {
			t.Fatalf("RunErr: %v, want %v", err, errBad)
		}
		big := perfect(8, 6) // 299,593 nodes
		ctx, cancel := context.WithCancel(context.Background())
		var seen atomic.Int64
		sf := testtree.SumFold()
		sinit := sf.Init
		sf.Init = func(n *testtree.Node) int64 {
			if seen.Add(1) == 100 {
				cancel()
			}
			return sinit(n)
		}
		if _, err := fold.RunCtx(ctx, p, sf, testtree.Children, big.Root); !errors.Is(err, context.Canceled) {
			t.Fatalf("RunCtx: %v, want context.Canceled", err)
		}
		if seen.Load() >= int64(len(big.Nodes)) {
			t.Fatalf("cancellation did not stop the fold: %d of %d nodes started", seen.Load(), len(big.Nodes))
		}
		t.Logf("canceled after node 100: %d of %d nodes started", seen.Load(), len(big.Nodes))
	})
}

// TestRunStopsOnChainWhenThiefFails: a walk down a chain, with a request
// standing that it cannot answer, stops answering it (the walk's dry
// state); it must still stop at once when another participant fails the
// run. The root has three children: a chain of 10^6 nodes, which the
// caller walks, and two leaves, which the two pool workers take (the first
// is dealt at the run's first look). One leaf returns at once, so its
// worker asks the caller for more, which the chain cannot give; the other
// waits until the chain is 10^5 nodes deep and panics. The chain's next
// node waits until the run is canceled (however long the failing
// worker's goroutine takes to get there); after it no node may start. Only the run's cancellation tells the caller (the run
// has no context to watch), so a walk that stopped looking at the run
// while dry would go on down the chain.
func TestRunStopsOnChainWhenThiefFails(t *testing.T) {
	leakcheck.Check(t)
	const n, failAt = 1_000_000, 100_000
	children := tree.FromFunc(func(x int, yield func(int) bool) {
		switch {
		case x == 0:
			_ = yield(1) && yield(-1) && yield(-2)
		case x > 0 && x < n:
			yield(x + 1)
		}
	})
	pool.With(3, func(p *pool.Pool) {
		for round := 0; round < 5; round++ {
			var walked, late atomic.Int64
			var told atomic.Bool
			// The first look deals -1 (the caller enters 1, the chain), so
			// that it is out before the chain's node waits.
			ctx := walk.WithSchedule(context.Background(), &dealFirst{})
			err := forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
				f := fold.New(
					func(x int) int {
						switch {
						case x > 0: // on the caller's goroutine: nothing of a chain is dealt
							if told.Load() {
								late.Add(1)
							}
							if walked.Add(1) == failAt+1 {
								if !testcheck.PollUntil(w.Canceled) {
									t.Errorf("round %d: the run was not canceled", round)
								}
								told.Store(true)
							}
						case x == -1:
							if !testcheck.PollUntil(func() bool { return walked.Load() >= failAt }) {
								t.Errorf("round %d: the chain was only %d nodes deep", round, walked.Load())
							}
							panic("leaf failed")
						}
						return 0
					},
					func(h *int, r int) { *h += r },
					func(h *int) int { return *h },
				)
				fold.RunOn(w, f, children, 0)
				return nil
			})
			var pe *forkjoin.PanicError
			if !errors.As(err, &pe) || pe.Value != "leaf failed" {
				t.Fatalf("round %d: recovered %v, want the leaf's panic", round, err)
			}
			if !told.Load() {
				t.Fatalf("round %d: the chain walk ended at node %d, before the failure", round, walked.Load())
			}
			if late.Load() != 0 {
				t.Fatalf("round %d: the chain walk started %d nodes after the run was canceled", round, late.Load())
			}
		}
	})
}

// dealFirst is a walk.Schedule that deals at the first look of a run's
// walks, as if a participant had asked, and never again: the walk's owner
// enters the first unstarted child of the root and publishes the next
// one before it goes on.
type dealFirst struct{ looks atomic.Int64 }

func (s *dealFirst) Deal() bool        { return s.looks.Add(1) == 1 }
func (s *dealFirst) Dealt(func() bool) {}

// spin does k steps of busy work that the compiler cannot drop.
func spin(k int) {
	x := spinSink.Load()
	for range k {
		x = x*6364136223846793005 + 1442695040888963407
	}
	spinSink.Store(x)
}

var spinSink atomic.Uint64

func TestRunBigShapes(t *testing.T) {
	leakcheck.Check(t)
	const deep = 1_000_000
	chain := &testtree.Node{ID: 0, Value: 1}
	last := chain
	for i := 1; i < deep; i++ {
		n := &testtree.Node{ID: i, Value: 1}
		last.Children = []*testtree.Node{n}
		last = n
	}
	wide := &testtree.Node{ID: 0}
	for i := 1; i <= deep; i++ {
		wide.Children = append(wide.Children, &testtree.Node{ID: i, Value: 1})
	}
	pool.With(2, func(p *pool.Pool) {
		big := testtree.BigBinary // 10^7 nodes (10^6 under -race)
		if got := fold.Run(p, fold.Size[int](), testtree.Binary(big), 0); got != big {
			t.Fatalf("binary: counted %d of %d", got, big)
		}
		for _, g := range testtree.Treeishes {
			if got := fold.Run(p, testtree.SumFold(), g.G, chain); got != deep {
				t.Fatalf("chain (%s): %d", g.Name, got)
			}
			if got := fold.Run(p, testtree.SumFold(), g.G, wide); got != deep {
				t.Fatalf("wide (%s): %d", g.Name, got)
			}
		}
	})
}

// perfect builds a perfect tree of branching bf and the given depth, ids in
// pre-order.
func perfect(bf, depth int) *testtree.Graph {
	g := &testtree.Graph{Tree: true}
	var build func(d int) *testtree.Node
	build = func(d int) *testtree.Node {
		n := &testtree.Node{ID: len(g.Nodes), Value: int64(len(g.Nodes) % 7)}
		g.Nodes = append(g.Nodes, n)
		if d > 0 {
			for i := 0; i < bf; i++ {
				n.Children = append(n.Children, build(d-1))
			}
		}
		return n
	}
	g.Root = build(depth)
	return g
}

// TestConcurrentAndNestedRuns: folds from several goroutines at once on one
// pool, and a fold started from inside a callback of another.
func TestConcurrentAndNestedRuns(t *testing.T) {
	leakcheck.Check(t)
	g := perfect(4, 6) // 5,461 nodes
	want := fold.Seq(testtree.SumFold(), testtree.Children, g.Root)
	pool.With(3, func(p *pool.Pool) {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < 50; j++ {
					if got := fold.Run(p, testtree.SumFold(), testtree.Children, g.Root); got != want {
						errs <- fmt.Errorf("concurrent run: %d, want %d", got, want)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		// Nested: every node's Init runs a small fold of its own subtree.
		nested := fold.New(
			func(n *testtree.Node) int64 {
				return int64(fold.Run(p, fold.Size[*testtree.Node](), testtree.Children, n)) // a fold inside a fold
			},
			func(h *int64, c int64) { *h += c },
			func(h *int64) int64 { return *h },
		)
		small := perfect(3, 4)
		got := fold.Run(p, nested, testtree.Children, small.Root)
		if seq := fold.Seq(nested, testtree.Children, small.Root); got != seq {
			t.Fatalf("nested runs: %d, want %d", got, seq)
		}
	})
}

// TestRunStressFailures mixes wide nodes (range pubs), deep subtrees,
// panics at random nodes and cancellations at random moments on pools of
// several sizes; every run must end (no hang), with the panic, the
// cancellation or the right answer, and leave the pool usable.
func TestRunStressFailures(t *testing.T) {
	leakcheck.Check(t)
	shapes := []*testtree.Graph{perfect(2, 12), perfect(40, 2), perfect(7, 4)}
	rounds := 150
	if testtree.Race {
		rounds = 40
	}
	for _, par := range []int{2, 3} {
		pool.With(par, func(p *pool.Pool) {
			for i := 0; i < rounds; i++ {
				g := shapes[i%len(shapes)]
				want := fold.Seq(testtree.SumFold(), testtree.Children, g.Root)
				bad := (i*7919 + 13) % len(g.Nodes)
				ctx, cancel := context.WithCancel(context.Background())
				var seen atomic.Int64
				f := testtree.SumFold()
				init := f.Init
				f.Init = func(n *testtree.Node) int64 {
					k := seen.Add(1)
					switch i % 3 {
					case 0:
						if n.ID == bad {
							panic("stress")
						}
					case 1:
						if k == int64(bad) {
							cancel()
						}
					}
					return init(n)
				}
				got, err := fold.RunCtx(ctx, p, f, testtree.Children, g.Root)
				cancel()
				switch {
				case err == nil:
					if got != want {
						t.Fatalf("p=%d round %d: %d, want %d", par, i, got, want)
					}
				case errors.Is(err, context.Canceled):
				case errors.As(err, new(*forkjoin.PanicError)):
				default:
					t.Fatalf("p=%d round %d: %v", par, i, err)
				}
				if got := fold.Run(p, testtree.SumFold(), testtree.Children, g.Root); got != want {
					t.Fatalf("p=%d after round %d: %d, want %d", par, i, got, want)
				}
			}
		})
	}
}

// poolsFor returns a function giving one pool per parallelism, created on
// first use and closed when the test ends, so that property tests drawing
// a parallelism per case do not start a pool per case.
func poolsFor(t *testing.T) func(n int) *pool.Pool {
	pools := map[int]*pool.Pool{}
	t.Cleanup(func() {
		for _, p := range pools {
			p.Close()
		}
	})
	return func(n int) *pool.Pool {
		p := pools[n]
		if p == nil {
			p = pool.New(n)
			pools[n] = p
		}
		return p
	}
}

// TestRunCtxStopsInsideWideNode: a context canceled by a callback stops
// the walk within a few hundred nodes per participant, also inside the
// ranges of children a wide node deals out, which the walk folds child by
// child without going through its loop. With one processor, the
// goroutine that tells the core of the cancellation cannot run while the
// walk does, so the walk's own looks at the context are what stop it.
func TestRunCtxStopsInsideWideNode(t *testing.T) {
	leakcheck.Check(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	// The walk runs some 30 ms before the cancel, so that the runtime's
	// preemption has interleaved the participants: each is inside a
	// range of the root's children when it comes.
	const leaves, cancelAt = 100_000, 30_000
	g := tree.FromFunc(func(n int, yield func(int) bool) {
		if n == 0 {
			for k := 1; k <= leaves; k++ {
				if !yield(k) {
					return
				}
			}
		}
	})
	pool.With(2, func(p *pool.Pool) {
		for round := 0; round < 5; round++ {
			ctx, cancel := context.WithCancel(context.Background())
			var inits, afterCancel atomic.Int64
			var canceled atomic.Bool
			f := fold.New(
				func(n int) int {
					if canceled.Load() {
						afterCancel.Add(1)
					}
					if inits.Add(1) == cancelAt {
						cancel()
						canceled.Store(true)
					}
					spin(1000)
					return n
				},
				func(h *int, c int) { *h += c },
				func(h *int) int { return *h },
			)
			_, err := fold.RunCtx(ctx, p, f, g, 0)
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("round %d: RunCtx returned %v, want context.Canceled", round, err)
			}
			// Each of the two participants may start up to 256 nodes
			// before its next look (ctxEvery in internal/walk).
			if n := afterCancel.Load(); n > 2*256+16 {
				t.Fatalf("round %d: %d nodes started after the context was canceled", round, n)
			}
		}
	})
}

// TestNilContext: RunCtx refuses a nil context with a message naming
// itself, not the core's forkjoin.RunCtx.
func TestNilContext(t *testing.T) {
	leaf := tree.FromFunc(func(int, func(int) bool) {})
	pool.With(1, func(p *pool.Pool) {
		//lint:ignore SA1012 the nil context is what is tested
		testcheck.MustPanicWith(t, "fold.RunCtx", func() { fold.RunCtx(nil, p, fold.Size[int](), leaf, 0) }, "fold: RunCtx with a nil context")
		//lint:ignore SA1012 the nil context is what is tested
		testcheck.MustPanicWith(t, "tree.WalkCtx", func() { tree.WalkCtx(nil, p, leaf, 0, func(int) error { return nil }) }, "tree: WalkCtx with a nil context")
	})
}

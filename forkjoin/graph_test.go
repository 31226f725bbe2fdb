package forkjoin_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// dagRun is one run of a random DAG for the graph tests: node i depends on
// each earlier node with probability 1/k and returns input + i + the sum
// of its dependencies' values; node failAt (if ≥ 0) fails instead, and
// node cancelAt (if ≥ 0) cancels the run's context and then succeeds.
type dagRun struct {
	n, failAt, cancelAt, input int
	deps                       [][]int
	preCancel                  bool // the run's context is canceled before Run
}

func newDAGRun(rng *rand.Rand, n, k int) *dagRun {
	d := &dagRun{n: n, failAt: -1, cancelAt: -1, input: rng.IntN(1000), deps: make([][]int, n)}
	for i := range n {
		for j := 0; j < i; j++ {
			if rng.IntN(k) == 0 {
				d.deps[i] = append(d.deps[i], j)
			}
		}
	}
	switch rng.IntN(5) {
	case 0:
		d.failAt = rng.IntN(n)
	case 1:
		d.cancelAt = rng.IntN(n)
	case 2:
		d.preCancel = true
	}
	return d
}

// run builds the graph afresh, runs it on p and checks every node against
// the sequential reference; it returns a description of the first
// discrepancy, or "".
func (d *dagRun) run(p *pool.Pool) string {
	g := forkjoin.NewGraph()
	nodes := make([]*forkjoin.GraphNode[int], d.n)
	runs := make([]atomic.Int32, d.n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range d.n {
		ds := make([]forkjoin.Dep, len(d.deps[i]))
		for k, j := range d.deps[i] {
			ds[k] = nodes[j]
		}
		nodes[i] = forkjoin.AddNode(g, func(w *forkjoin.Worker) (int, error) {
			runs[i].Add(1)
			if i == d.failAt {
				return -1, fmt.Errorf("planned failure of %d", i)
			}
			if i == d.cancelAt {
				cancel()
			}
			v := d.input + i
			for _, j := range d.deps[i] {
				v += nodes[j].Value()
			}
			return v, nil
		}, ds, forkjoin.WithPriority(forkjoin.Priority(i%3)))
	}
	var err error
	switch {
	case d.preCancel:
		cancel()
		err = g.RunCtx(ctx, p)
	case d.cancelAt >= 0:
		err = g.RunCtx(ctx, p)
	default:
		err = g.Run(p)
	}
	want := make([]int, d.n)
	for i := range d.n {
		want[i] = d.input + i
		for _, j := range d.deps[i] {
			want[i] += want[j]
		}
	}
	// A node ran at most once; one that ran and succeeded has the
	// sequential value; one that did not run failed with the context's
	// error or a dependency's. Without a cancellation, exactly the nodes
	// downstream of failAt did not run.
	upstreamFailed := make([]bool, d.n)
	for i := range d.n {
		for _, j := range d.deps[i] {
			upstreamFailed[i] = upstreamFailed[i] || upstreamFailed[j] || j == d.failAt
		}
	}
	canceled := d.preCancel || d.cancelAt >= 0
	for i, nd := range nodes {
		r, v, e := runs[i].Load(), nd.Value(), nd.Err()
		var de *forkjoin.DependencyError
		switch {
		case r > 1:
			return fmt.Sprintf("node %d ran %d times", i, r)
		case r == 1 && i == d.failAt:
			if e == nil || v != -1 {
				return fmt.Sprintf("failing node %d: value %d, err %v", i, v, e)
			}
		case r == 1:
			// (A node that ran while its run was canceled may report
			// the context's error, with its value.)
			if (e != nil && !(canceled && errors.Is(e, context.Canceled))) || v != want[i] {
				return fmt.Sprintf("node %d: value %d, err %v; want %d", i, v, e, want[i])
			}
			if upstreamFailed[i] {
				return fmt.Sprintf("node %d ran after its dependency %d failed", i, d.failAt)
			}
		case !canceled && !upstreamFailed[i]:
			return fmt.Sprintf("node %d did not run (err %v)", i, e)
		case v != 0:
			return fmt.Sprintf("node %d did not run but has the value %d", i, v)
		case !errors.Is(e, context.Canceled) && !errors.As(e, &de):
			return fmt.Sprintf("node %d did not run, with the error %v", i, e)
		}
	}
	switch {
	case d.failAt < 0 && !canceled && err != nil:
		return fmt.Sprintf("Run: %v", err)
	case d.preCancel && !errors.Is(err, context.Canceled):
		return fmt.Sprintf("Run with a canceled context: %v", err)
	case d.failAt >= 0 && runs[d.failAt].Load() == 1 && err == nil:
		return "Run: nil after a failure"
	}
	return ""
}

// Graphs built afresh and run by several goroutines at once on one pool,
// the way a server builds one per request: their nodes' run state comes
// from arrays shared by all graphs and handed on as soon as a Run returns
// (graphrun.go). Runs fail, are canceled before they start or while they
// run, and each must still be exactly its own: no node of one run sees
// a count, a failure or a cancellation of another.
func TestGraphsShareRunState(t *testing.T) {
	leakcheck.Check(t)
	const callers, rounds = 4, 20
	for _, par := range []int{1, 3} {
		p := pool.New(par)
		rapid.Check(t, func(rt *rapid.T) {
			seeds := make([]uint64, callers)
			for c := range seeds {
				seeds[c] = rapid.Uint64().Draw(rt, "seed")
			}
			maxN := rapid.IntRange(1, 80).Draw(rt, "max nodes")
			var wg sync.WaitGroup
			errs := make([]string, callers)
			for c := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(seeds[c], uint64(c)))
					for r := 0; r < rounds && errs[c] == ""; r++ {
						d := newDAGRun(rng, 1+rng.IntN(maxN), 1+rng.IntN(4))
						if msg := d.run(p); msg != "" {
							errs[c] = fmt.Sprintf("caller %d, round %d (%d nodes, failAt %d, cancelAt %d, preCancel %v): %s",
								c, r, d.n, d.failAt, d.cancelAt, d.preCancel, msg)
						}
					}
				}()
			}
			wg.Wait()
			for _, e := range errs {
				if e != "" {
					rt.Fatal(e)
				}
			}
		})
		p.Close()
	}
}

// A graph run from inside a node of another: the inner Run takes its run
// state while the outer one holds its own, and each is exactly its own.
func TestGraphNestedRun(t *testing.T) {
	leakcheck.Check(t)
	pool.With(2, func(p *pool.Pool) {
		rng := rand.New(rand.NewPCG(1, 2))
		for round := 0; round < 20; round++ {
			inner := newDAGRun(rng, 1+rng.IntN(60), 3)
			var msg string
			g := forkjoin.NewGraph()
			a := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
				msg = inner.run(p)
				return 1, nil
			}, nil)
			b := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return a.Value() + 1, nil }, []forkjoin.Dep{a})
			if err := g.Run(p); err != nil || b.Value() != 2 {
				t.Fatalf("round %d: outer graph: %d, %v", round, b.Value(), err)
			}
			if msg != "" {
				t.Fatalf("round %d: inner graph: %s", round, msg)
			}
		}
	})
}

// A graph bigger than the run state shared between graphs keeps its own
// between runs: run again, it starts afresh each time, including after a
// run whose context was canceled (whose run state is not reused).
func TestGraphBigRunAgain(t *testing.T) {
	leakcheck.Check(t)
	const width = 3000 // two layers and a join: more than graphTasksPooled nodes
	pool.With(3, func(p *pool.Pool) {
		var input int
		g := forkjoin.NewGraph()
		root := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return input, nil }, nil)
		var last []forkjoin.Dep
		var lastNodes []*forkjoin.GraphNode[int]
		for layer := 0; layer < 2; layer++ {
			var next []forkjoin.Dep
			var nextNodes []*forkjoin.GraphNode[int]
			for i := 0; i < width; i++ {
				deps := []forkjoin.Dep{root}
				if layer > 0 {
					deps = []forkjoin.Dep{last[i], last[(i+1)%width]}
				}
				prev := lastNodes
				n := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
					if prev == nil {
						return root.Value() + i, nil
					}
					return prev[i].Value() + prev[(i+1)%width].Value(), nil
				}, deps)
				next, nextNodes = append(next, n), append(nextNodes, n)
			}
			last, lastNodes = next, nextNodes
		}
		top := lastNodes
		join := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
			s := 0
			for _, n := range top {
				s += n.Value()
			}
			return s, nil
		}, last)
		want := func(in int) int {
			s := 0
			for i := 0; i < width; i++ {
				s += (in + i) + (in + (i+1)%width)
			}
			return s
		}
		for r := 0; r < 4; r++ {
			input = 10 * r
			if r == 2 {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				if err := g.RunCtx(ctx, p); !errors.Is(err, context.Canceled) || !errors.Is(join.Err(), context.Canceled) {
					t.Fatalf("run %d, canceled: %v, join's %v", r, err, join.Err())
				}
				continue
			}
			if err := g.Run(p); err != nil {
				t.Fatalf("run %d: %v", r, err)
			}
			if join.Value() != want(input) {
				t.Fatalf("run %d: %d, want %d", r, join.Value(), want(input))
			}
		}
	})
}

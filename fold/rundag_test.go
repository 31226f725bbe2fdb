package fold_test

import (
	"context"
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestRunDAGMatchesSeqDAG: heavy sharing, each key initialised once, same
// result as SeqDAG, at random parallelism.
func TestRunDAGMatchesSeqDAG(t *testing.T) {
	leakcheck.Check(t)
	poolOf := poolsFor(t)
	rapid.Check(t, func(rt *rapid.T) {
		g := testtree.DAG(120).Draw(rt, "dag")
		spec := testtree.GenFold().Draw(rt, "fold")
		p := poolOf(rapid.IntRange(1, 16).Draw(rt, "parallelism"))
		want, err := fold.SeqDAG(spec.Fold(), testtree.Children, g.Root, testtree.Key)
		if err != nil {
			rt.Fatal(err)
		}
		c := testtree.NewChecker[int](true)
		got, err := fold.RunDAG(context.Background(), p, testtree.Check(c, spec.Fold(), testtree.Children, testtree.Key), testtree.Children, g.Root, testtree.Key)
		if err != nil {
			rt.Fatal(err)
		}
		if !got.Value.Equal(want) {
			rt.Fatalf("RunDAG = %v, SeqDAG = %v", got.Value, want)
		}
		if err := c.Err(); err != nil {
			rt.Fatal(err)
		}
	})
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

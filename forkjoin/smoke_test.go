package forkjoin

import (
	"testing"

	"github.com/forkjoin-go/forkjoin/pool"
)

type tnode struct {
	val         int64
	left, right *tnode
}

func buildTree(depth int, next *int64) *tnode {
	if depth == 0 {
		return nil
	}
	*next++
	n := &tnode{val: *next}
	n.left = buildTree(depth-1, next)
	n.right = buildTree(depth-1, next)
	return n
}

func seqSum(n *tnode) int64 {
	if n == nil {
		return 0
	}
	return n.val + seqSum(n.left) + seqSum(n.right)
}

var sumFork *Fork[*tnode, int64]

func init() {
	sumFork = NewFork(func(w *Worker, n *tnode) int64 {
		if n == nil {
			return 0
		}
		l, r := sumFork.Join(w, n.left, n.right)
		return n.val + l + r
	})
}

func TestSmokeTreeSum(t *testing.T) {
	var c int64
	root := buildTree(16, &c)
	want := seqSum(root)
	for _, n := range []int{1, 2, 4} {
		pool.With(n, func(p *pool.Pool) {
			for i := 0; i < 50; i++ {
				var got int64
				Run(p, func(w *Worker) { got = sumFork.Call(w, root) })
				if got != want {
					t.Fatalf("n=%d: got %d want %d", n, got, want)
				}
			}
			t.Logf("n=%d stats %+v", n, p.Stats())
		})
	}
}

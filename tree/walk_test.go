package tree_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

type wnode struct {
	id   int
	kids []*wnode
}

var wkids = tree.FromSlice(func(n *wnode) []*wnode { return n.kids })

func wtree(bf, depth int, next *int) *wnode {
	n := &wnode{id: *next}
	*next++
	if depth > 0 {
		for i := 0; i < bf; i++ {
			n.kids = append(n.kids, wtree(bf, depth-1, next))
		}
	}
	return n
}

func TestParallelWalks(t *testing.T) {
	next := 0
	root := wtree(5, 7, &next) // 97,656 nodes
	for _, par := range []int{1, 2, 4} {
		pool.With(par, func(p *pool.Pool) {
			seen := make([]atomic.Int32, next)
			tree.Walk(p, wkids, root, func(n *wnode) { seen[n.id].Add(1) })
			for i := range seen {
				if seen[i].Load() != 1 {
					t.Fatalf("p=%d: node %d visited %d times", par, i, seen[i].Load())
				}
			}
			if c := tree.Count(p, wkids, root); c != next {
				t.Fatalf("p=%d: Count = %d, want %d", par, c, next)
			}
			n, ok := tree.Find(p, wkids, root, func(n *wnode) bool { return n.id == next-1 })
			if !ok || n.id != next-1 {
				t.Fatalf("p=%d: Find = %v, %v", par, n, ok)
			}
			if _, ok := tree.Find(p, wkids, root, func(n *wnode) bool { return n.id < 0 }); ok {
				t.Fatalf("p=%d: Find found a node that does not exist", par)
			}
			errStop := errors.New("stop")
			var visited atomic.Int64
			err := tree.WalkCtx(context.Background(), p, wkids, root, func(n *wnode) error {
				visited.Add(1)
				if n.id == 1000 {
					return errStop
				}
				return nil
			})
			if !errors.Is(err, errStop) {
				t.Fatalf("p=%d: WalkCtx = %v, want %v", par, err, errStop)
			}
		})
	}
}

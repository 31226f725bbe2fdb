package tree_test

import (
	"fmt"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// A tree is described by its children function, here built from a map with
// FromSlice, and walked in parallel on a pool. The walks run visit for
// several nodes at once, so it counts with an atomic.
func Example() {
	children := map[string][]string{
		"/":     {"/usr", "/home"},
		"/usr":  {"/usr/bin", "/usr/lib"},
		"/home": {"/home/ana"},
	}
	g := tree.FromSlice(func(dir string) []string { return children[dir] })

	pool.With(0, func(p *pool.Pool) {
		fmt.Println("nodes:", tree.Count(p, g, "/"))

		var leaves atomic.Int64
		tree.Walk(p, g, "/", func(dir string) {
			if len(children[dir]) == 0 {
				leaves.Add(1)
			}
		})
		fmt.Println("leaves:", leaves.Load())
	})
	fmt.Println("sequential count:", tree.CountSeq(g, "/"))
	// Output:
	// nodes: 6
	// leaves: 3
	// sequential count: 6
}

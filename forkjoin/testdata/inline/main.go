// Command inline is compiled by TestFutureForkInlines with -gcflags=-m, to
// see that Fork.Fork and Future.Join inline into a user's recursion with
// a pointer argument (the fast path of a Future fork).
package main

import (
	"fmt"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

type node struct {
	value       int64
	left, right *node
}

var sumFork *forkjoin.Fork[*node, int64]

func init() { sumFork = forkjoin.NewFork(sum) }

func sum(w *forkjoin.Worker, n *node) int64 {
	if n == nil {
		return 0
	}
	right := sumFork.Fork(w, n.right) // INLINE: Fork
	left := sum(w, n.left)
	return n.value + left + right.Join(w) // INLINE: Join
}

func main() {
	root := &node{1, &node{2, nil, nil}, &node{3, nil, nil}}
	var total int64
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) { total = sum(w, root) })
	})
	fmt.Println(total)
}

// Command inline is compiled by TestFutureForkInlines with -gcflags=-m, to
// see that Future.Join inlines into a user's recursion with a pointer
// argument (the fast path of a Future fork).
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

func sum(f *forkjoin.Fork[*node, int64], w *forkjoin.Worker, n *node) int64 {
	if n == nil {
		return 0
	}
	right := f.Start(w, n.right)
	left := sum(f, w, n.left)
	return n.value + left + right.Join(w) // INLINE: Join
}

func main() {
	root := &node{1, &node{2, nil, nil}, &node{3, nil, nil}}
	var total int64
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) { total = forkjoin.NewFork(sum).Call(w, root) })
	})
	fmt.Println(total)
}

package walk_test

import (
	"fmt"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/pool"
)

func ExampleRun() {
	// The nodes 0..14 of a complete binary tree; the fold lists them in
	// pre-order, an order-sensitive result.
	ops := &walk.Ops[int, []int, []int]{
		Init:       func(n int) []int { return []int{n} },
		Accumulate: func(h *[]int, child []int) { *h = append(*h, child...) },
		Finalize:   func(h *[]int) []int { return *h },
		Children: func(n int, yield func(int) bool) {
			for c := 2*n + 1; c <= 2*n+2 && c < 15; c++ {
				if !yield(c) {
					return
				}
			}
		},
	}
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			fmt.Println(walk.Run(w, ops, 0))
		})
	})
	// Output: [0 1 3 7 8 4 9 10 2 5 11 12 6 13 14]
}

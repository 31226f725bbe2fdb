// Command inlineiter is compiled by TestIterLoopsInline with -gcflags=-m, to
// see that ForIter and ReduceIter inline into their caller, and the yield
// they hand an inlinable iterator inlines into it, so that reading the
// iterator into a buffer costs no call per value.
package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

func main() {
	s := []uint64{1, 2, 3, 4, 5}
	m := map[string]int{"a": 1, "b": 2}
	var sums [2]uint64
	var n uint64
	var keys int
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.ForIter(w, slices.Values(s), 0, func(w *forkjoin.Worker, v uint64) { sums[w.Index()] += v })            // INLINE: ForIter
			n = forkjoin.ReduceIter(w, slices.Values(s), 0, func(w *forkjoin.Worker, v uint64) uint64 { return v }, add)     // INLINE: ReduceIter
			keys = forkjoin.ReduceIter(w, maps.Keys(m), 0, func(w *forkjoin.Worker, k string) int { return len(k) }, addInt) // INLINE: ReduceIter
		})
	})
	fmt.Println(sums[0]+sums[1], n, keys)
}

func add(a, b uint64) uint64 { return a + b }
func addInt(a, b int) int    { return a + b }

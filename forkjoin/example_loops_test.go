package forkjoin_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// ForEach updates a slice in place, element by element, in parallel.
func ExampleForEach() {
	prices := []float64{10, 20, 30, 40}
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.ForEach(w, prices, 0, func(w *forkjoin.Worker, i int, v *float64) {
				*v *= 1.5
			})
		})
	})
	fmt.Println(prices)
	// Output: [15 30 45 60]
}

// For a body of a few nanoseconds, write ForEach's loop over a range with
// For: the compiler then compiles the body into the loop, where ForEach
// calls it through a function value for every element.
func ExampleForEach_perRange() {
	prices := []float64{10, 20, 30, 40}
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.For(w, len(prices), 0, func(w *forkjoin.Worker, lo, hi int) {
				for i := lo; i < hi; i++ {
					prices[i] *= 1.5
				}
			})
		})
	})
	fmt.Println(prices)
	// Output: [15 30 45 60]
}

// MapReduce's per-range form is Reduce: the leaf maps and combines a
// range in a plain loop, and only the ranges' results go through combine.
func ExampleMapReduce_perRange() {
	values := []int{3, 1, 4, 1, 5, 9, 2, 6}
	var sumSquares int
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			sumSquares = forkjoin.Reduce(w, len(values), 0, func(w *forkjoin.Worker, lo, hi int) int {
				s := 0
				for _, v := range values[lo:hi] {
					s += v * v
				}
				return s
			}, func(a, b int) int { return a + b })
		})
	})
	fmt.Println(sumSquares)
	// Output: 173
}

// MapReduce keeps the slice's order: concatenation is associative but not
// commutative.
func ExampleMapReduce() {
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	var initials string
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			initials = forkjoin.MapReduce(w, words, 1,
				func(w *forkjoin.Worker, s *string) string { return (*s)[:1] },
				func(a, b string) string { return a + b })
		})
	})
	fmt.Println(initials)
	// Output: tqbfjotld
}

// ForIter runs a body for every value of an iterator: here the keys of a
// map, which cannot be indexed.
func ExampleForIter() {
	sizes := map[string]int{"a.txt": 120, "b.txt": 30, "c.txt": 850}
	var total atomic.Int64
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.ForIter(w, maps.Keys(sizes), 0, func(w *forkjoin.Worker, name string) {
				total.Add(int64(sizes[name]))
			})
		})
	})
	fmt.Println(total.Load())
	// Output: 1000
}

// ReduceIter combines in the order the iterator yields.
func ExampleReduceIter() {
	var out string
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			out = forkjoin.ReduceIter(w, slices.Values([]int{1, 2, 3, 4, 5}), 2,
				func(w *forkjoin.Worker, v int) string { return fmt.Sprint(v) },
				func(a, b string) string { return a + "," + b })
		})
	})
	fmt.Println(out)
	// Output: 1,2,3,4,5
}

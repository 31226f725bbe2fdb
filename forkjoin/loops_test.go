package forkjoin_test

import (
	"errors"
	"iter"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// phash is a polynomial hash of a sequence: associative, not commutative,
// so a reduce that combines out of order gets another value.
type phash struct{ h, pow uint64 }

func phCombine(a, b phash) phash { return phash{a.h*b.pow + b.h, a.pow * b.pow} }
func phOf(v int) phash           { return phash{uint64(v) + 1, 1_000_003} }

func phSeq(s []int) phash {
	var acc phash
	for i, v := range s {
		if i == 0 {
			acc = phOf(v)
		} else {
			acc = phCombine(acc, phOf(v))
		}
	}
	return acc
}

var loopSizes = []int{0, 1, 2, 3, 1023, 1024, 1025, 5000}

func loopInput(n int) []int {
	if n == 0 {
		return nil
	}
	s := make([]int, n)
	for i := range s {
		s[i] = (i*7919 + 13) % 1001
	}
	return s
}

// countOnce checks that every index in [0, n) was marked exactly once.
func countOnce(t *testing.T, what string, marks []atomic.Int32) {
	t.Helper()
	for i := range marks {
		if c := marks[i].Load(); c != 1 {
			t.Fatalf("%s: element %d visited %d times", what, i, c)
		}
	}
}

func TestForEachAndMapReduce(t *testing.T) {
	leakcheck.Check(t)
	for _, par := range []int{1, 2, 4} {
		pool.With(par, func(p *pool.Pool) {
			for _, n := range loopSizes {
				for _, grain := range []int{0, 1, 7} {
					s := loopInput(n)
					marks := make([]atomic.Int32, n)
					var got phash
					forkjoin.Run(p, func(w *forkjoin.Worker) {
						forkjoin.ForEach(w, s, grain, func(w *forkjoin.Worker, i int, v *int) {
							marks[i].Add(1)
							*v *= 2
						})
						got = forkjoin.MapReduce(w, s, grain, func(w *forkjoin.Worker, v *int) phash { return phOf(*v) }, phCombine)
					})
					countOnce(t, "ForEach", marks)
					want := loopInput(n)
					for i := range want {
						want[i] *= 2
					}
					if !slices.Equal(s, want) {
						t.Fatalf("par %d n %d grain %d: ForEach left %v", par, n, grain, s)
					}
					if got != phSeq(want) {
						t.Fatalf("par %d n %d grain %d: MapReduce %v, sequential %v", par, n, grain, got, phSeq(want))
					}
				}
			}
		})
	}
}

func TestForIterAndReduceIter(t *testing.T) {
	leakcheck.Check(t)
	for _, par := range []int{1, 2, 4} {
		pool.With(par, func(p *pool.Pool) {
			for _, n := range loopSizes {
				for _, buf := range []int{0, 1, 3, 1024} {
					s := loopInput(n)
					marks := make([]atomic.Int32, 1001)
					var sum atomic.Int64
					var got phash
					forkjoin.Run(p, func(w *forkjoin.Worker) {
						forkjoin.ForIter(w, slices.Values(s), buf, func(w *forkjoin.Worker, v int) {
							sum.Add(int64(v))
						})
						forkjoin.ForIter(w, indices(n), buf, func(w *forkjoin.Worker, i int) { marks[i%1001].Add(1) })
						got = forkjoin.ReduceIter(w, slices.Values(s), buf, func(w *forkjoin.Worker, v int) phash { return phOf(v) }, phCombine)
					})
					var want int64
					for _, v := range s {
						want += int64(v)
					}
					if sum.Load() != want {
						t.Fatalf("par %d n %d buf %d: ForIter summed %d, want %d", par, n, buf, sum.Load(), want)
					}
					if n <= 1001 {
						countOnce(t, "ForIter", marks[:n])
					}
					if got != phSeq(s) {
						t.Fatalf("par %d n %d buf %d: ReduceIter %v, sequential %v", par, n, buf, got, phSeq(s))
					}
				}
			}
		})
	}
}

// A panic in a body, on any participant, reaches the caller of Run; loops
// nest inside loops.
func TestLoopsPanicAndNest(t *testing.T) {
	leakcheck.Check(t)
	pool.With(2, func(p *pool.Pool) {
		s := loopInput(3000)
		loops := map[string]func(w *forkjoin.Worker){
			"ForEach": func(w *forkjoin.Worker) {
				forkjoin.ForEach(w, s, 1, func(w *forkjoin.Worker, i int, v *int) {
					if i == 2500 {
						panic("loop boom")
					}
				})
			},
			"MapReduce": func(w *forkjoin.Worker) {
				forkjoin.MapReduce(w, s, 1, func(w *forkjoin.Worker, v *int) int {
					if v == &s[2500] {
						panic("loop boom")
					}
					return 1
				}, func(a, b int) int { return a + b })
			},
			"ForIter": func(w *forkjoin.Worker) {
				forkjoin.ForIter(w, indices(len(s)), 100, func(w *forkjoin.Worker, i int) {
					if i == 2500 {
						panic("loop boom")
					}
				})
			},
			"ReduceIter": func(w *forkjoin.Worker) {
				forkjoin.ReduceIter(w, slices.Values(s), 100, func(w *forkjoin.Worker, v int) int {
					if v == s[2500] {
						panic("loop boom")
					}
					return 1
				}, func(a, b int) int { return a + b })
			},
		}
		for name, loop := range loops {
			func() {
				defer func() {
					var pe *forkjoin.PanicError
					err, _ := recover().(error)
					if !errors.As(err, &pe) || pe.Value != "loop boom" {
						t.Errorf("%s: recovered %v, want the body's panic", name, err)
					}
				}()
				forkjoin.Run(p, loop)
			}()
		}
		// Nested: a ReduceIter whose mapf runs a MapReduce over a slice.
		rows := [][]int{loopInput(10), loopInput(500), nil, loopInput(2000)}
		var got phash
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			got = forkjoin.ReduceIter(w, slices.Values(rows), 1, func(w *forkjoin.Worker, row []int) phash {
				return forkjoin.MapReduce(w, row, 0, func(w *forkjoin.Worker, v *int) phash { return phOf(*v) }, phCombine)
			}, func(a, b phash) phash {
				if a == (phash{}) { // an empty row's zero result
					return b
				}
				if b == (phash{}) {
					return a
				}
				return phCombine(a, b)
			})
		})
		if want := phSeq(slices.Concat(rows...)); got != want {
			t.Errorf("nested: %v, sequential %v", got, want)
		}
	})
}

// indices yields 0, 1, …, n-1.
func indices(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}

package forkjoin

import (
	"context"
	"errors"
	"iter"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
	"pgregory.net/rapid"
)

// The loops' properties: every loop visits each element exactly once, and
// every reduction equals the sequential one for associative combines that
// are not commutative, on random sizes, grains, buffers and parallelism.
// With force set, the iterators of ForIter and ReduceIter ask their producer
// for work every few values (Worker.ask, as a thief does), so that helpers
// are forked and take buffers whatever the timing; without it they come
// only when a participant is idle.

// iterOf yields the values of s; every few values (every, 0: never) it
// asks w, as a thief does.
func iterOf[T any](s []T, w **Worker, every int) iter.Seq[T] {
	return func(yield func(T) bool) {
		for i, v := range s {
			if every > 0 && i%every == 0 && *w != nil {
				(*w).ask()
			}
			if !yield(v) {
				return
			}
		}
	}
}

// drawLoop draws a loop's size, grain (for the slice forms) and buffer
// (for the iterator forms).
func drawLoop(rt *rapid.T, maxN int) (n, grain, buf, every int) {
	n = rapid.IntRange(0, maxN).Draw(rt, "n")
	grain = rapid.OneOf(rapid.Just(0), rapid.IntRange(1, n+1)).Draw(rt, "grain")
	buf = rapid.OneOf(rapid.Just(0), rapid.IntRange(1, 8), rapid.IntRange(1, n+1)).Draw(rt, "buf")
	every = rapid.OneOf(rapid.Just(0), rapid.IntRange(1, 50)).Draw(rt, "ask every")
	return
}

func TestPropLoopsEachOnce(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		n, grain, buf, every := drawLoop(rt, 20_000)
		p := drawPool(rt)
		defer p.Close()
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		forMarks := make([]atomic.Int32, n)
		eachMarks := make([]atomic.Int32, n)
		iterMarks := make([]atomic.Int32, n)
		var wp *Worker
		Run(p, func(w *Worker) {
			For(w, n, grain, func(w *Worker, lo, hi int) {
				for i := lo; i < hi; i++ {
					forMarks[i].Add(1)
				}
			})
			ForEach(w, idx, grain, func(w *Worker, i int, v *int) {
				eachMarks[*v].Add(1)
				*v = -*v
			})
			wp = w
			ForIter(w, iterOf(idx, &wp, every), buf, func(w *Worker, v int) { iterMarks[-v].Add(1) })
			wp = nil
		})
		for i := range n {
			if f, e, s := forMarks[i].Load(), eachMarks[i].Load(), iterMarks[i].Load(); f != 1 || e != 1 || s != 1 || idx[i] != -i {
				rt.Fatalf("element %d: For visited it %d times, ForEach %d (left %d), ForIter %d", i, f, e, idx[i], s)
			}
		}
	})
}

// Associative combines that are not commutative: a reduction that
// combines out of order, or twice, or skips a piece, gets another value.

// poly is a polynomial hash of a sequence.
type poly struct{ h, pow uint64 }

func polyOf(v int) poly             { return poly{uint64(v)*0x9E3779B97F4A7C15 + 1, 1_000_003} }
func polyCombine(a, b poly) poly    { return poly{a.h*b.pow + b.h, a.pow * b.pow} }
func strOf(v int) string            { return strconv.Itoa(v) + "," }
func strCombine(a, b string) string { return a + b }

// mat2 is a 2×2 matrix over the integers mod 2^64; the product is
// associative, not commutative.
type mat2 [4]uint64

func mat2Of(v int) mat2 { return mat2{uint64(v) + 1, 1, uint64(v) * 7, 1} }
func mat2Mul(a, b mat2) mat2 {
	return mat2{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
}

// seqReduce is the sequential reduction: combine(…combine(f(s0), f(s1))…,
// f(sk)), or the zero R for an empty s.
func seqReduce[R any](s []int, f func(int) R, combine func(a, b R) R) R {
	var acc R
	for i, v := range s {
		if i == 0 {
			acc = f(v)
		} else {
			acc = combine(acc, f(v))
		}
	}
	return acc
}

// checkReductions runs every reduction of s with f and combine and
// compares each with the sequential one.
func checkReductions[R comparable](rt *rapid.T, what string, s []int, grain, buf, every int, p *pool.Pool, f func(int) R, combine func(a, b R) R) {
	want := seqReduce(s, f, combine)
	var reduce, mapReduce, reduceSeq R
	var wp *Worker
	Run(p, func(w *Worker) {
		reduce = Reduce(w, len(s), grain, func(w *Worker, lo, hi int) R {
			return seqReduce(s[lo:hi], f, combine)
		}, combine)
		mapReduce = MapReduce(w, s, grain, func(w *Worker, v *int) R { return f(*v) }, combine)
		wp = w
		reduceSeq = ReduceIter(w, iterOf(s, &wp, every), buf, func(w *Worker, v int) R { return f(v) }, combine)
		wp = nil
	})
	if reduce != want || mapReduce != want || reduceSeq != want {
		rt.Fatalf("%s of %d elements: Reduce %v, MapReduce %v, ReduceIter %v, sequential %v", what, len(s), reduce, mapReduce, reduceSeq, want)
	}
}

func TestPropLoopsReduce(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		n, grain, buf, every := drawLoop(rt, 20_000)
		s := rapid.SliceOfN(rapid.IntRange(-1000, 1000), n, n).Draw(rt, "s")
		p := drawPool(rt)
		defer p.Close()
		checkReductions(rt, "polynomial hash", s, grain, buf, every, p, polyOf, polyCombine)
		checkReductions(rt, "matrix product", s, grain, buf, every, p, mat2Of, mat2Mul)
		if n <= 2000 {
			checkReductions(rt, "concatenation", s, grain, buf, every, p, strOf, strCombine)
		}
	})
}

// TestIterLoopsEnd: an iterator that stops early, panics, or whose run is
// canceled (by Worker.Cancel, from the iterator or from a body, or by
// the context of RunCtx) ends the loop cleanly: the panic or the error
// reaches the caller of Run, the iterator is not read on (its deferred
// calls ran, and it yields at most a buffer more after a cancellation it
// made), no body runs after Run returns, and no goroutine is left.
func TestIterLoopsEnd(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		const n = 50_000
		stop := rapid.IntRange(0, n-1).Draw(rt, "stop at")
		buf := rapid.IntRange(1, 64).Draw(rt, "buf")
		how := rapid.SampledFrom([]string{"return", "panic", "cancel in seq", "cancel in body", "panic in body", "context"}).Draw(rt, "how")
		p := drawPool(rt)
		defer p.Close()
		ctx, cancelCtx := context.WithCancel(context.Background())
		defer cancelCtx()
		var yielded, afterRun atomic.Int64
		var over, deferred atomic.Bool
		errStop := errors.New("stop")
		var cw *Worker // the producer's
		seq := func(yield func(int) bool) {
			defer deferred.Store(true)
			for i := range n {
				if i == stop {
					switch how {
					case "return":
						return
					case "panic":
						panic("seq boom")
					case "context":
						cancelCtx()
					case "cancel in seq":
						cw.Cancel(errStop)
					}
				}
				yielded.Add(1)
				if !yield(i) {
					return
				}
			}
		}
		body := func(w *Worker, v int) {
			if over.Load() {
				afterRun.Add(1)
			}
			switch {
			case v == stop && how == "cancel in body":
				w.Cancel(errStop)
			case v == stop && how == "panic in body":
				panic("body boom")
			}
		}
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					var pe *PanicError
					if e, ok := r.(error); !ok || !errors.As(e, &pe) {
						panic(r)
					}
					err = pe
				}
			}()
			return RunCtx(ctx, p, func(w *Worker) error {
				cw = w
				ReduceIter(w, seq, buf, func(w *Worker, v int) int { body(w, v); return v }, func(a, b int) int { return a + b })
				return nil
			})
		}()
		over.Store(true)
		var pe *PanicError
		switch how {
		case "return":
			if err != nil || yielded.Load() != int64(stop) {
				rt.Fatalf("stopped at %d: RunCtx returned %v, %d values yielded", stop, err, yielded.Load())
			}
		case "panic", "panic in body":
			want := "seq boom"
			if how == "panic in body" {
				want = "body boom"
			}
			if !errors.As(err, &pe) || pe.Value != want {
				rt.Fatalf("%s at %d: recovered %v", how, stop, err)
			}
		case "cancel in seq", "cancel in body":
			if !errors.Is(err, errStop) {
				rt.Fatalf("%s at %d: RunCtx returned %v", how, stop, err)
			}
		case "context":
			if !errors.Is(err, context.Canceled) {
				rt.Fatalf("context canceled at %d: RunCtx returned %v", stop, err)
			}
		}
		if how == "cancel in seq" && yielded.Load() > int64(stop+buf) {
			rt.Fatalf("canceled at %d with buf %d: the iterator yielded %d values", stop, buf, yielded.Load())
		}
		if how != "return" && stop+1 < n && yielded.Load() == n && how != "panic in body" && how != "cancel in body" && how != "context" {
			rt.Fatalf("%s at %d: the iterator was read to its end", how, stop)
		}
		if !deferred.Load() {
			rt.Fatalf("%s at %d: the iterator's deferred call did not run", how, stop)
		}
		if afterRun.Load() != 0 {
			rt.Fatalf("%s at %d: %d bodies ran after RunCtx returned", how, stop, afterRun.Load())
		}
	})
}

// TestIterLoopsStress runs many small ForIter and ReduceIter loops whose
// producers are asked for work all the time, on pools of 2 to 4, so that
// helpers start, take buffers, run dry and end, over and over (run it with
// -race); every loop's result is checked. Lent buffers rest behind only
// 64 bytes of others here, so that they are reused within these small
// loops.
func TestIterLoopsStress(t *testing.T) {
	leakcheck.Check(t)
	defer func(b uintptr) { iterCoolBytes = b }(iterCoolBytes)
	iterCoolBytes = 64
	rounds := 300
	if testing.Short() || raceEnabled {
		rounds = 60
	}
	for par := 2; par <= 4; par++ {
		p := pool.New(par)
		for r := range rounds {
			n := 1 + r*37%3000
			s := make([]string, n)
			for i := range s {
				s[i] = strconv.Itoa(i) + ","
			}
			want := strings.Join(s, "")
			var got string
			var count atomic.Int64
			var wp *Worker
			Run(p, func(w *Worker) {
				wp = w
				buf := r % 7
				ForIter(w, iterOf(s, &wp, 1+r%5), buf, func(w *Worker, v string) { count.Add(int64(len(v))) })
				if r%4 == 0 { // a slow body: lent buffers are filled again without resting
					var slow atomic.Uint64
					ForIter(w, iterOf(s, &wp, 3), 0, func(w *Worker, v string) { slow.Add(spin(50 * len(v))) })
					var want uint64
					for _, v := range s {
						want += spin(50 * len(v))
					}
					if slow.Load() != want {
						t.Errorf("p %d round %d: the slow ForIter summed %d, want %d", par, r, slow.Load(), want)
					}
				}
				got = ReduceIter(w, iterOf(s, &wp, 1+r%3), buf, func(w *Worker, v string) string { return v }, strCombine)
				wp = nil
			})
			if got != want || count.Load() != int64(len(want)) {
				t.Fatalf("p %d round %d: ReduceIter %q…, want %q…; ForIter saw %d bytes of %d", par, r, got[:min(20, len(got))], want[:min(20, len(want))], count.Load(), len(want))
			}
		}
		p.Close()
	}
}

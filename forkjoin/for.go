package forkjoin

// For and Reduce split a range on demand ("lazy binary splitting"): a
// worker walks its range chunk by chunk and splits off the upper half of
// what remains only when another participant asks for work (its poll flag
// is set). The half is forked and, since somebody is asking, published at
// once. A range nobody asks for is never split, so a sequential run costs
// one call of body per chunk and nothing more; a range many participants
// want is split as finely as they want it.
//
// With grain 0 the chunk adapts to the body's speed: it doubles while a
// chunk takes under ~20 µs and halves when one takes over ~200 µs, so that
// the loop answers a request for work within a fraction of a millisecond
// without paying a clock read per element.

import (
	"reflect"
	"sync"
	"time"
)

const (
	chunkFast = 20 * time.Microsecond
	chunkSlow = 200 * time.Microsecond
	chunkMax  = 1 << 16
)

type forArg struct {
	lo, hi int
	grain  int // fixed chunk, or 0 for adaptive
	body   func(w *Worker, lo, hi int)
}

// forFork forks forStep; forStep reaches it as its parameter f, so this
// declaration needs no init function.
var forFork = NewFork(forStep)

// For calls body(w, lo, hi) for consecutive sub-ranges [lo, hi) that
// together cover [0, n) exactly once, possibly in parallel. grain is the
// size of the sub-ranges (the last one, and those that end where the range
// was split between participants, may be shorter); grain 0 adapts it to
// the speed of body. For returns when every call has returned. n < 0 or
// grain < 0 panics.
func For(w *Worker, n, grain int, body func(w *Worker, lo, hi int)) {
	if n < 0 {
		panic("forkjoin: For with a negative n")
	}
	if grain < 0 {
		panic("forkjoin: For with a negative grain")
	}
	if body == nil {
		panic("forkjoin: For with a nil body")
	}
	w.checkCaller()
	if n == 0 {
		return
	}
	forFork.Call(w, forArg{lo: 0, hi: n, grain: grain, body: body})
}

// forStep is For's step: it runs its range chunk by chunk, and forks the
// upper half of what remains when a participant asks (rangeSplitter).
func forStep(f *Fork[forArg, struct{}], w *Worker, a forArg) struct{} {
	r := newRangeSplitter(a.lo, a.hi, a.grain)
	for r.more() {
		if mid, ok := r.splitAt(w); ok {
			f.Join(w,
				forArg{lo: r.lo, hi: mid, grain: a.grain, body: a.body},
				forArg{lo: mid, hi: r.hi, grain: a.grain, body: a.body})
			return struct{}{}
		}
		lo, end := r.next()
		start := r.start()
		a.body(w, lo, end)
		r.took(start)
	}
	return struct{}{}
}

// rangeSplitter is the splitting For and Reduce share: it walks a range
// [lo, hi) chunk by chunk, from the bottom, and tells when to split off
// the upper half of what remains. Its methods are small enough to inline
// into the step functions.
type rangeSplitter struct {
	lo, hi   int // what remains
	chunk    int // the next chunk's size
	adaptive bool
}

// newRangeSplitter walks [lo, hi) in chunks of grain, or, with grain 0,
// of a size that adapts to the time a chunk takes (adapt).
func newRangeSplitter(lo, hi, grain int) rangeSplitter {
	if grain == 0 {
		return rangeSplitter{lo: lo, hi: hi, chunk: 1, adaptive: true}
	}
	return rangeSplitter{lo: lo, hi: hi, chunk: grain}
}

// more reports whether some of the range remains.
func (r *rangeSplitter) more() bool { return r.lo < r.hi }

// splitAt reports whether what remains is to be split now, and where: a
// participant asks for work, and more than one element remains (with a
// fixed grain, more than one chunk).
func (r *rangeSplitter) splitAt(w *Worker) (mid int, ok bool) {
	if w.asked() && r.hi-r.lo > 1 && (r.adaptive || r.hi-r.lo > r.chunk) {
		return r.lo + (r.hi-r.lo)/2, true
	}
	return 0, false
}

// next returns the next chunk and moves past it.
func (r *rangeSplitter) next() (lo, end int) {
	lo, end = r.lo, r.hi
	if end-lo > r.chunk {
		end = lo + r.chunk
	}
	r.lo = end
	return lo, end
}

// start returns the time a chunk starts if its size adapts (for took), and
// reads no clock otherwise.
func (r *rangeSplitter) start() time.Time {
	if r.adaptive {
		return time.Now()
	}
	return time.Time{}
}

// took adapts the chunk size to a chunk that started at start.
func (r *rangeSplitter) took(start time.Time) {
	if r.adaptive {
		r.adaptTo(start)
	}
}

// adaptTo is took's clock read and adaptation, out of line so that took
// inlines.
func (r *rangeSplitter) adaptTo(start time.Time) {
	r.chunk = adapt(r.chunk, time.Since(start))
}

func adapt(chunk int, took time.Duration) int {
	switch {
	case took < chunkFast && chunk < chunkMax:
		return chunk * 2
	case took > chunkSlow && chunk > 1:
		return chunk / 2
	}
	return chunk
}

type reduceSpec[T any] struct {
	grain   int
	leaf    func(w *Worker, lo, hi int) T
	combine func(a, b T) T
}

type reduceArg[T any] struct {
	lo, hi int
	spec   *reduceSpec[T]
}

// reduceForks caches one Fork per result type, so that Reduce creates none
// per call.
var reduceForks sync.Map // reflect.Type -> *Fork[reduceArg[T], T]

func reduceForkFor[T any]() *Fork[reduceArg[T], T] {
	key := reflect.TypeFor[T]()
	if f, ok := reduceForks.Load(key); ok {
		return f.(*Fork[reduceArg[T], T])
	}
	f, _ := reduceForks.LoadOrStore(key, NewFork(reduceStep[T]))
	return f.(*Fork[reduceArg[T], T])
}

// Reduce computes leaf over consecutive sub-ranges covering [0, n) and
// combines their results in index order with combine, possibly in
// parallel: for sub-ranges r1 < r2 < … < rk the result is
// combine(…combine(leaf(r1), leaf(r2))…, leaf(rk)) up to re-association,
// so combine must be associative; it need not be commutative. grain is as
// for For. Reduce of an empty range (n == 0) returns the zero T without
// calling leaf.
func Reduce[T any](w *Worker, n, grain int, leaf func(w *Worker, lo, hi int) T, combine func(a, b T) T) T {
	if n < 0 {
		panic("forkjoin: Reduce with a negative n")
	}
	if grain < 0 {
		panic("forkjoin: Reduce with a negative grain")
	}
	if leaf == nil {
		panic("forkjoin: Reduce with a nil leaf")
	}
	if combine == nil {
		panic("forkjoin: Reduce with a nil combine")
	}
	w.checkCaller()
	var zero T
	if n == 0 {
		return zero
	}
	spec := &reduceSpec[T]{grain: grain, leaf: leaf, combine: combine}
	return reduceForkFor[T]().Call(w, reduceArg[T]{lo: 0, hi: n, spec: spec})
}

// reduceStep is Reduce's step: it reduces its range chunk by chunk, and
// forks the upper half of what remains when a participant asks
// (rangeSplitter).
func reduceStep[T any](f *Fork[reduceArg[T], T], w *Worker, a reduceArg[T]) T {
	sp := a.spec
	r := newRangeSplitter(a.lo, a.hi, sp.grain)
	var acc T
	have := false
	for r.more() {
		if mid, ok := r.splitAt(w); ok {
			left, right := f.Join(w, reduceArg[T]{lo: r.lo, hi: mid, spec: sp}, reduceArg[T]{lo: mid, hi: r.hi, spec: sp})
			m := sp.combine(left, right)
			if have {
				return sp.combine(acc, m)
			}
			return m
		}
		lo, end := r.next()
		start := r.start()
		v := sp.leaf(w, lo, end)
		r.took(start)
		if have {
			acc = sp.combine(acc, v)
		} else {
			acc, have = v, true
		}
	}
	return acc
}

package forkjoin

// Loops over a slice: ForEach and MapReduce are For and Reduce over the
// slice's index range, with a per-range body that calls the user's
// function for every element. (The loops over an iter.Seq are in iter.go.)

// ForEach calls body(w, i, &s[i]) for every index of s, possibly in
// parallel, splitting s on demand as For does (grain as for For: 0
// adapts the chunk to the body's speed). It returns when every call has
// returned. body may modify *v; calls for distinct indices may run
// concurrently. An empty or nil s calls nothing.
//
// Cost: For's, plus a call of body through a function value for every
// element, which the compiler cannot inline: on the 2-core VM of
// docs/BENCHMARKS.md, ~0.4 ns per element. Over 10^7 uint64 with a body
// of three multiply/xor-shift steps (~1.5 ns), ForEach on 2 participants
// takes 0.64× the time of the plain for loop (1.27× on 1: the calls),
// where For with the loop in its body takes 0.48×; with 20 times that
// work per element, 0.52× and 0.51× (BenchmarkLoops in forkjoin). So it
// pays at any body size on 2 participants, and comes within 20% of For
// from about 2 ns of work per element; for a cheaper body, write the loop
// over a range with For (see the example).
func ForEach[T any](w *Worker, s []T, grain int, body func(w *Worker, i int, v *T)) {
	if grain < 0 {
		panic("forkjoin: ForEach with a negative grain")
	}
	if body == nil {
		panic("forkjoin: ForEach with a nil body")
	}
	w.checkActive()
	if len(s) == 0 {
		return
	}
	For(w, len(s), grain, func(w *Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			body(w, i, &s[i])
		}
	})
}

// MapReduce maps every element of s with mapf and combines the results in
// index order with combine, possibly in parallel, splitting s on demand as
// Reduce does: combine must be associative, need not be commutative. An
// empty or nil s returns the zero R without calling mapf.
//
// Cost: Reduce's, plus two calls through function values per element,
// mapf's and combine's: on the 2-core VM of docs/BENCHMARKS.md, ~1.7 ns
// per element. Summing three multiply/xor-shift steps (~1.4 ns) over 10^7
// uint64, MapReduce on 2 participants takes 1.09× the time of the plain
// for loop (2.2× on 1), where Reduce with the loop in its leaf takes
// 0.52×; with 20 times that work per element, 0.54× and 0.52×
// (BenchmarkLoops in forkjoin). So on 2 participants it pays from about 2
// ns of work per element and comes within 20% of Reduce from about 8 ns;
// for a cheaper body, write the loop over a range with Reduce (see the
// example).
func MapReduce[T, R any](w *Worker, s []T, grain int, mapf func(w *Worker, v *T) R, combine func(a, b R) R) R {
	if grain < 0 {
		panic("forkjoin: MapReduce with a negative grain")
	}
	if mapf == nil {
		panic("forkjoin: MapReduce with a nil mapf")
	}
	if combine == nil {
		panic("forkjoin: MapReduce with a nil combine")
	}
	w.checkActive()
	var zero R
	if len(s) == 0 {
		return zero
	}
	return Reduce(w, len(s), grain, func(w *Worker, lo, hi int) R {
		r := mapf(w, &s[lo])
		for i := lo + 1; i < hi; i++ {
			r = combine(r, mapf(w, &s[i]))
		}
		return r
	}, combine)
}

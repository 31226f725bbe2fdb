package forkjoin

import "iter"

// Loops over data: a slice is an index range (For, Reduce); an iter.Seq,
// which cannot be split, is read on the calling goroutine into buffers of
// seqBuffer elements, and each full buffer is forked as a For or Reduce of
// its own while the next one fills, so that another participant may take
// it (and split it further on demand, as For does). Two buffers at most
// are alive at once: one being filled, one forked.

// ForEach calls body(w, i, &s[i]) for every index of s, possibly in
// parallel, splitting s on demand as For does (grain as for For). It
// returns when every call has returned. body may modify *v; calls for
// distinct indices may run concurrently. An empty or nil s calls nothing.
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

// seqBuffer is how many elements of an iter.Seq ForSeq and ReduceSeq
// buffer before they fork the buffer, when their caller passes 0.
const seqBuffer = 1024

// ForSeq calls body(w, v) for every value seq yields, possibly in
// parallel and in any order: seq runs on the calling goroutine and its
// values are buffered, buf at a time (0 means 1024); each full buffer is
// forked while the next one fills, and split on demand as For splits a
// range. It returns when every call has returned. A nil seq panics.
func ForSeq[T any](w *Worker, seq iter.Seq[T], buf int, body func(w *Worker, v T)) {
	if buf < 0 {
		panic("forkjoin: ForSeq with a negative buf")
	}
	if seq == nil {
		panic("forkjoin: ForSeq with a nil seq")
	}
	if body == nil {
		panic("forkjoin: ForSeq with a nil body")
	}
	w.checkActive()
	chunkBody := func(b []T) func(w *Worker, lo, hi int) {
		return func(w *Worker, lo, hi int) {
			for _, v := range b[lo:hi] {
				body(w, v)
			}
		}
	}
	var pending Future[forArg, struct{}]
	forked := false
	eachBuffer(seq, buf, func(b []T, last bool) {
		// Only the last Future is outstanding: it is joined before the
		// next is forked (its buffer then becomes the one to fill).
		if !last {
			if forked {
				pending.Join(w)
			}
			pending, forked = forFork.Fork(w, forArg{lo: 0, hi: len(b), body: chunkBody(b)}), true
			return
		}
		if len(b) > 0 {
			forStep(w, forArg{lo: 0, hi: len(b), body: chunkBody(b)}) // before the Join: forks nest
		}
		if forked {
			pending.Join(w)
		}
	})
}

// ReduceSeq maps every value seq yields with mapf and combines the results
// in the order seq yields them with combine, possibly in parallel: combine
// must be associative, need not be commutative. seq runs on the calling
// goroutine, buffered as for ForSeq. An empty seq returns the zero R
// without calling mapf. A nil seq panics.
func ReduceSeq[T, R any](w *Worker, seq iter.Seq[T], buf int, mapf func(w *Worker, v T) R, combine func(a, b R) R) R {
	if buf < 0 {
		panic("forkjoin: ReduceSeq with a negative buf")
	}
	if seq == nil {
		panic("forkjoin: ReduceSeq with a nil seq")
	}
	if mapf == nil {
		panic("forkjoin: ReduceSeq with a nil mapf")
	}
	if combine == nil {
		panic("forkjoin: ReduceSeq with a nil combine")
	}
	w.checkActive()
	fork := reduceForkFor[R]()
	arg := func(b []T) reduceArg[R] {
		leaf := func(w *Worker, lo, hi int) R {
			r := mapf(w, b[lo])
			for _, v := range b[lo+1 : hi] {
				r = combine(r, mapf(w, v))
			}
			return r
		}
		return reduceArg[R]{lo: 0, hi: len(b), spec: &reduceSpec[R]{leaf: leaf, combine: combine, fork: fork}}
	}
	var acc R
	have := false
	add := func(r R) {
		if have {
			acc = combine(acc, r)
		} else {
			acc, have = r, true
		}
	}
	var pending Future[reduceArg[R], R]
	forked := false
	eachBuffer(seq, buf, func(b []T, last bool) {
		if !last {
			if forked {
				add(pending.Join(w))
			}
			pending, forked = fork.Fork(w, arg(b)), true
			return
		}
		var r R
		if len(b) > 0 {
			r = reduceStep(w, arg(b)) // before the Join: forks nest
		}
		if forked {
			add(pending.Join(w))
		}
		if len(b) > 0 {
			add(r)
		}
	})
	return acc
}

// eachBuffer reads seq into two alternating buffers of size buf (0:
// seqBuffer) and calls chunk with each full one (last false), then once
// with the rest, possibly empty (last true). A buffer passed with last
// false is filled again only after the next call of chunk has returned.
func eachBuffer[T any](seq iter.Seq[T], buf int, chunk func(b []T, last bool)) {
	if buf == 0 {
		buf = seqBuffer
	}
	var bufs [2][]T
	k := 0
	b := make([]T, 0, buf)
	for v := range seq {
		b = append(b, v)
		if len(b) == buf {
			chunk(b, false)
			bufs[k] = b
			k ^= 1
			if bufs[k] == nil {
				bufs[k] = make([]T, 0, buf)
			}
			b = bufs[k][:0]
		}
	}
	chunk(b, true)
}

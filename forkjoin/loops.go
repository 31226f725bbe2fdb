package forkjoin

import "iter"

// Loops over data: a slice is an index range (For, Reduce); an iter.Seq,
// which cannot be split, is read on the calling goroutine into buffers of
// seqBuffer elements, and each full buffer is forked as a For or Reduce of
// its own while the next ones fill, so that other participants may take
// it (and split it further on demand, as For does). Up to seqInFlight
// buffers are forked at once; then they are joined, the last first (so the
// caller runs what nobody took), and reading goes on.

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
// forked while the next ones fill (up to 8 forked at once), and split on
// demand as For splits a range. It returns when every call has returned. A nil seq panics.
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
	pipeline(seq, buf,
		func(b []T) Future[forArg, struct{}] {
			return forFork.Start(w, forArg{lo: 0, hi: len(b), body: chunkBody(b)})
		},
		func(fs []Future[forArg, struct{}]) {
			for i := len(fs) - 1; i >= 0; i-- {
				fs[i].Join(w)
			}
		},
		func(b []T) {
			if len(b) > 0 {
				forFork.Call(w, forArg{lo: 0, hi: len(b), body: chunkBody(b)})
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
		return reduceArg[R]{lo: 0, hi: len(b), spec: &reduceSpec[R]{leaf: leaf, combine: combine}}
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
	var rs [seqInFlight]R
	var zero R
	var rLast R
	lastHave := false
	pipeline(seq, buf,
		func(b []T) Future[reduceArg[R], R] { return fork.Start(w, arg(b)) },
		func(fs []Future[reduceArg[R], R]) {
			for i := len(fs) - 1; i >= 0; i-- {
				rs[i] = fs[i].Join(w)
			}
			for i := range fs {
				add(rs[i])
				rs[i] = zero
			}
		},
		func(b []T) {
			if len(b) > 0 {
				rLast, lastHave = fork.Call(w, arg(b)), true
			}
		})
	if lastHave { // after the buffers forked before it
		add(rLast)
	}
	return acc
}

// seqInFlight is how many buffers of an iter.Seq are forked at once.
const seqInFlight = 8

// pipeline reads seq into buffers of size buf (0: seqBuffer). It forks
// each full one (fork), and once seqInFlight are forked it joins them
// (join, which must join them the last first, as Futures nest) before the
// next is filled; a buffer is filled again only once joined. When seq is
// over, it calls last with the rest, possibly empty, then joins the
// buffers still forked.
func pipeline[T, F any](seq iter.Seq[T], buf int, fork func(b []T) F, join func(fs []F), last func(b []T)) {
	if buf == 0 {
		buf = seqBuffer
	}
	var (
		futs [seqInFlight]F
		bufs [seqInFlight][]T
	)
	k := 0
	b := make([]T, 0, buf)
	for v := range seq {
		b = append(b, v)
		if len(b) < buf {
			continue
		}
		bufs[k], futs[k] = b, fork(b)
		if k++; k == seqInFlight {
			join(futs[:k])
			clear(futs[:])
			k = 0
		}
		if bufs[k] == nil {
			bufs[k] = make([]T, 0, buf)
		}
		b = bufs[k][:0]
	}
	last(b) // before the joins: forks nest
	join(futs[:k])
}

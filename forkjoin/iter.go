package forkjoin

// ForIter and ReduceIter: loops over an iter.Seq (iterring.go is the engine).
//
// Both are small enough for the compiler to inline into their caller, and
// the function they hand the iterator as its yield is small enough to be
// inlined into the iterator: where the caller's iterator is a function
// literal the compiler sees (an inlinable function returning one, such as
// slices.Values or maps.Keys), the iterator's loop and the copy of each
// value into the current buffer become one loop in the caller, as a
// range-over-func loop does, and only a full buffer leaves it (forIterNext,
// reduceIterNext). TestIterLoopsInline checks that this stays so.

import (
	"iter"
	"unsafe"
)

// ForIter calls body(w, v) for every value seq yields, possibly in
// parallel and in any order. seq runs on the calling goroutine, which
// copies its values into a buffer of buf values (0: a size that adapts,
// see below). While no other participant asks for work, the caller runs
// the body over each full buffer itself; once one asks, it forks a helper
// that takes whole buffers from it while it goes on reading, and it runs
// the body itself only over the buffers no helper is ready for. ForIter
// returns when every call has returned. A nil seq panics; a nil body or a
// negative buf panics at the first value seq yields. seq must call yield
// on the goroutine that called ForIter, and must not leave a fork of w
// pending across a yield.
//
// Cost. The iterator runs on one goroutine, so ForIter cannot take less
// time than the iterator alone. For an iterator the compiler can see (an
// inlinable function returning a function literal, such as slices.Values
// or maps.Keys), ForIter and its yield inline into the caller, and reading
// a value costs a store into the buffer, as in a range-over-func loop;
// other iterators cost a call per value, as they do in such a loop. Then
// every value costs a call of body through a function value, and every
// value a helper runs the body over crosses from the caller's core to the
// helper's. On the 2-core VM of docs/BENCHMARKS.md, over 10^7 uint64 with
// a body of three multiply/xor-shift steps that adds to a per-participant
// sum, ForIter on 2 participants takes 1.16× the time of the
// range-over-func loop over the same iterator (2.3× on 1), and 0.55× with
// 20 times that work per value (BenchmarkLoops in forkjoin; `go run
// ./bench -workloads loop/iter`). It pays from about 2 ns of work per
// value on 2 participants.
//
// A buf above 0 fixes the buffer's size, up to 65536 values or 256 KiB.
// With buf 0 the buffer starts at 16 values and doubles while filling and
// processing one take under ~20 µs, up to that size, and halves above
// ~200 µs: a request for work is answered within a buffer's
// time, the last buffers' imbalance stays under a millisecond, and the
// hand-off of a buffer (a few atomic operations and clock reads) is spread
// over many values when the body is cheap. While helpers run, a buffer a
// helper has read waits behind twice a core's L2 cache of others (2 MiB
// on that VM) before the caller fills it again, so that the caller's
// writes need not take its cache lines back from the helper's core.
func ForIter[T any](w *Worker, seq iter.Seq[T], buf int, body func(w *Worker, v T)) {
	if seq == nil {
		panic("forkjoin: ForIter with a nil seq")
	}
	var st struct {
		c *iterCore
		b []T
	}
	seq(func(v T) bool {
		if len(st.b) == cap(st.b) {
			st.c, st.b = forIterNext(st.c, w, buf, body, st.b)
		}
		st.b = append(st.b, v)
		return true
	})
	callIterEnd(iterEnd, w, st.c, len(st.b))
}

// callIterEnd calls end(w, c, n). It is a call through a parameter, which
// the inliner charges less than a direct call: it keeps ForIter and
// ReduceIter within the inlining budget, and inlined it is a direct call.
func callIterEnd(end func(w *Worker, c *iterCore, n int), w *Worker, c *iterCore, n int) {
	end(w, c, n)
}

// iterEnd ends a loop over an iter.Seq once the iterator has returned: c is
// the loop (nil if the iterator yielded nothing) and n the number of
// values in its last buffer.
func iterEnd(w *Worker, c *iterCore, n int) {
	if c == nil {
		w.checkActive()
		return
	}
	c.finish(w, n)
}

// forIterLoop is the state of a ForIter: the engine and its buffers.
type forIterLoop[T any] struct {
	iterCore
	iterBufs[T]
	body func(w *Worker, v T)
}

// forIterNext is the step of ForIter at a full buffer b (on the first value,
// c is nil and b empty: it makes the loop). It returns the loop and the
// next buffer, empty.
//
//go:noinline
func forIterNext[T any](c *iterCore, w *Worker, buf int, body func(w *Worker, v T), b []T) (*iterCore, []T) {
	var l *forIterLoop[T]
	if c == nil {
		switch {
		case body == nil:
			panic("forkjoin: ForIter with a nil body")
		case buf < 0:
			panic("forkjoin: ForIter with a negative buf")
		}
		w.checkCaller()
		l = &forIterLoop[T]{body: body}
		l.init(w, buf, unsafe.Sizeof(*new(T)))
		l.bufs = make([][]T, l.nslot)
		l.lend, l.own, l.proc, l.tail = l.lendCur, l.processCur, l.process, l.seal
		l.start(w)
	} else {
		l = (*forIterLoop[T])(unsafe.Pointer(c))
		l.seal(len(b))
		l.full(w)
	}
	return &l.iterCore, l.next(l.chunk)
}

func (l *forIterLoop[T]) processCur(w *Worker, _ int) int { return l.run(w, l.cur) }

func (l *forIterLoop[T]) process(w *Worker, k int64) int { return l.run(w, l.bufs[l.slot(k)]) }

func (l *forIterLoop[T]) run(w *Worker, b []T) int {
	for _, v := range b {
		l.body(w, v)
	}
	return len(b)
}

// iterBufs are the buffers of a loop over an iter.Seq: the producer's,
// cur, one per slot of the ring, and the spare ones. A buffer keeps its
// whole array; its length is the number of values in it.
//
// A lent buffer is not filled again at once when it comes back: the
// helper that read it holds its cache lines, and the producer's writes
// would take each line back from the helper's core, one round trip per
// line — on the 2-core VM of docs/BENCHMARKS.md that tripled the time to
// fill a buffer (ForIter over 10^7 values with a cheap body took 42 ms
// instead of 19). It joins the spares, and the producer takes the oldest
// spare only once more than iterCoolBytes of them wait, by which time the
// helper's cache holds other lines; until then it fills a new buffer.
// When the body takes longer than iterRestTime per value (as measured with
// buf 0; with a fixed buf the buffers always rest), those round trips are
// a small part of a buffer's time, and the buffer is filled again at once:
// no spares, no new buffers.
type iterBufs[T any] struct {
	cur        []T
	bufs       [][]T
	spare      [][]T // oldest first, from spare[spareHead]
	spareHead  int
	spareBytes uintptr
}

// next returns the producer's buffer, emptied, with room for n values
// exactly: its capacity is n, as the loop's test for a full buffer is
// len == cap.
func (b *iterBufs[T]) next(n int) []T {
	if cap(b.cur) < n {
		b.cur = make([]T, 0, n)
	}
	return b.cur[:0:n]
}

// seal records that the producer's buffer holds n values.
func (b *iterBufs[T]) seal(n int) { b.cur = b.cur[:n] }

// lendCur puts the producer's buffer in slot s, whose buffer, lent before
// and retired since, joins the spares if rest is set (else it becomes the
// producer's buffer at once); the producer goes on with the oldest spare
// if enough have rested, else with a new buffer.
func (b *iterBufs[T]) lendCur(s int, rest bool) {
	size := unsafe.Sizeof(*new(T))
	old := b.bufs[s]
	b.bufs[s], b.cur = b.cur, nil
	if !rest {
		b.cur = old[:0]
		return
	}
	if cap(old) > 0 {
		b.spare = append(b.spare, old[:0])
		b.spareBytes += uintptr(cap(old)) * size
	}
	if b.spareHead < len(b.spare) {
		oldest := b.spare[b.spareHead]
		if rest := b.spareBytes - uintptr(cap(oldest))*size; rest >= iterCoolBytes {
			b.cur = oldest
			b.spare[b.spareHead] = nil
			b.spareHead++
			b.spareBytes = rest
		}
	}
	if b.spareHead > len(b.spare)/2 { // compact the queue
		n := copy(b.spare, b.spare[b.spareHead:])
		clear(b.spare[n:])
		b.spare, b.spareHead = b.spare[:n], 0
	}
}

// ReduceIter maps every value seq yields with mapf and combines the results
// in the order seq yields them with combine, possibly in parallel: combine
// must be associative, need not be commutative. seq runs on the calling
// goroutine, buffered and shared as for ForIter; whoever runs a buffer maps
// and combines its values, and the caller combines the buffers' results
// in order. An empty seq returns the zero R without calling mapf. A nil
// seq panics; a nil mapf or combine or a negative buf panics at the first
// value seq yields. seq must call yield on the goroutine that called
// ReduceIter, and must not leave a fork of w pending across a yield.
//
// Cost: as ForIter's, with two calls through function values per value
// (mapf and combine) where ForIter makes one. On the 2-core VM of
// docs/BENCHMARKS.md, summing three multiply/xor-shift steps over 10^7
// uint64 on 2 participants takes 1.45× the time of the range-over-func
// loop over the same iterator (2.7× on 1), and 0.57× with 20 times that
// work per value (BenchmarkLoops in forkjoin): it pays from about 3 ns of
// work per value on 2 participants. For a commutative combine (a sum, a
// maximum), ForIter into per-participant accumulators (Worker.Index) makes
// one call per value.
func ReduceIter[T, R any](w *Worker, seq iter.Seq[T], buf int, mapf func(w *Worker, v T) R, combine func(a, b R) R) (r R) {
	if seq == nil {
		panic("forkjoin: ReduceIter with a nil seq")
	}
	var st struct {
		c *iterCore
		b []T
	}
	seq(func(v T) bool {
		if len(st.b) == cap(st.b) {
			st.c, st.b = reduceIterNext(st.c, w, buf, mapf, combine, st.b, &r)
		}
		st.b = append(st.b, v)
		return true
	})
	callIterEnd(iterEnd, w, st.c, len(st.b))
	return
}

// reduceIterLoop is the state of a ReduceIter: the engine, its buffers,
// the results of the lent buffers and of the producer's own that came
// after them (see iterring.go, "Order"), and the result of what is
// retired, in out.
type reduceIterLoop[T, R any] struct {
	iterCore
	iterBufs[T]
	mapf     func(w *Worker, v T) R
	combine  func(a, b R) R
	res      []R    // per slot: the lent buffer's result
	after    []R    // per slot: the producer's buffers processed after it
	hasAfter []bool // per slot: after holds a result
	out      *R     // where the result goes: ReduceIter's
	have     bool   // *out holds a result
}

// reduceIterNext is ReduceIter's forIterNext.
//
//go:noinline
func reduceIterNext[T, R any](c *iterCore, w *Worker, buf int, mapf func(w *Worker, v T) R, combine func(a, b R) R, b []T, out *R) (*iterCore, []T) {
	var l *reduceIterLoop[T, R]
	if c == nil {
		switch {
		case mapf == nil:
			panic("forkjoin: ReduceIter with a nil mapf")
		case combine == nil:
			panic("forkjoin: ReduceIter with a nil combine")
		case buf < 0:
			panic("forkjoin: ReduceIter with a negative buf")
		}
		w.checkCaller()
		l = &reduceIterLoop[T, R]{mapf: mapf, combine: combine, out: out}
		l.init(w, buf, unsafe.Sizeof(*new(T)))
		l.bufs = make([][]T, l.nslot)
		l.res = make([]R, l.nslot)
		l.after = make([]R, l.nslot)
		l.hasAfter = make([]bool, l.nslot)
		l.lend, l.own, l.proc, l.tail, l.retire = l.lendCur, l.processCur, l.process, l.seal, l.retireBuffer
		l.start(w)
	} else {
		l = (*reduceIterLoop[T, R])(unsafe.Pointer(c))
		l.seal(len(b))
		l.full(w)
	}
	return &l.iterCore, l.next(l.chunk)
}

// reduce maps and combines the values of b, in order.
func (l *reduceIterLoop[T, R]) reduce(w *Worker, b []T) R {
	r := l.mapf(w, b[0])
	for _, v := range b[1:] {
		r = l.combine(r, l.mapf(w, v))
	}
	return r
}

func (l *reduceIterLoop[T, R]) process(w *Worker, k int64) int {
	s := l.slot(k)
	l.res[s] = l.reduce(w, l.bufs[s])
	return len(l.bufs[s])
}

// processCur reduces the producer's buffer: its result joins the result
// retired so far, or, if lent buffers are pending, the after result of
// the last of them (slot after).
func (l *reduceIterLoop[T, R]) processCur(w *Worker, after int) int {
	r := l.reduce(w, l.cur)
	switch {
	case after < 0:
		l.add(r)
	case l.hasAfter[after]:
		l.after[after] = l.combine(l.after[after], r)
	default:
		l.after[after], l.hasAfter[after] = r, true
	}
	return len(l.cur)
}

// retireBuffer combines lent buffer k's result, and the producer's that
// came after it, into the result of the buffers before it.
func (l *reduceIterLoop[T, R]) retireBuffer(k int64) {
	s := l.slot(k)
	var zero R
	l.add(l.res[s])
	l.res[s] = zero
	if l.hasAfter[s] {
		l.add(l.after[s])
		l.after[s], l.hasAfter[s] = zero, false
	}
}

// add combines r into the result.
func (l *reduceIterLoop[T, R]) add(r R) {
	if l.have {
		*l.out = l.combine(*l.out, r)
	} else {
		*l.out, l.have = r, true
	}
}

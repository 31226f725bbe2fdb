package main

import (
	"fmt"
	"iter"
	"sync"
)

// LoopProblem is a loop over data: N uint64 (0, 1, …, N-1) with a cheap
// body, three multiply/xor-shift steps (step3), or one with twenty times
// that work (step60). The three kinds of loop workload use it:
//
//   - KindLoopEach: out[i] = f(in[i]) for every i (the plain for loop;
//     For, ForEach);
//   - KindLoopSum: the sum of f(in[i]) (Reduce, MapReduce);
//   - KindLoopSeq: the sum of f(v) over loopSeq(N), an iter.Seq (the
//     range-over-func loop; ForIter, ReduceIter).
//
// Every body is written out for each f, so that f inlines into it as it
// does into the plain loop: a function value would cost a call per
// element on both sides.
type LoopProblem struct {
	N     int
	Heavy bool
	in    []uint64
	out   []uint64 // KindLoopEach's output, cleared before every run
}

func step3(h uint64) uint64 {
	h = (h ^ h>>31) * 0xBF58476D1CE4E5B9
	h = (h ^ h>>27) * 0x94D049BB133111EB
	h = (h ^ h>>31) * 0x9E3779B97F4A7C15
	return h
}

func step60(h uint64) uint64 {
	for range 20 {
		h = step3(h)
	}
	return h
}

// loopSeq yields 0, 1, …, n-1: the iterator of KindLoopSeq. Like most
// iterators a Go programmer writes, it is small enough to inline into a
// range-over-func loop.
func loopSeq(n int) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		for i := range n {
			if !yield(uint64(i)) {
				return
			}
		}
	}
}

func newLoopProblem(n int, heavy bool, kind Kind) *LoopProblem {
	lp := &LoopProblem{N: n, Heavy: heavy}
	if kind != KindLoopSeq {
		lp.in = make([]uint64, n)
		for i := range lp.in {
			lp.in[i] = uint64(i)
		}
	}
	if kind == KindLoopEach {
		lp.out = make([]uint64, n)
	}
	return lp
}

// outHash is KindLoopEach's result: a hash of out in index order.
func (lp *LoopProblem) outHash() uint64 {
	h := uint64(len(lp.out))
	for _, v := range lp.out {
		h = combine(h, v)
	}
	return h
}

// loopExpected computes a loop workload's result the plain way.
func loopExpected(lp *LoopProblem, kind Kind) uint64 {
	switch kind {
	case KindLoopEach:
		loopEachSeq(lp)
		h := lp.outHash()
		clear(lp.out)
		return h
	case KindLoopSum:
		return loopSumSeq(lp)
	}
	return loopSeqSeq(lp)
}

// The plain loops: the sequential rows.

func loopEachSeq(lp *LoopProblem) {
	out := lp.out
	if lp.Heavy {
		for i, v := range lp.in {
			out[i] = step60(v)
		}
		return
	}
	for i, v := range lp.in {
		out[i] = step3(v)
	}
}

func loopSumSeq(lp *LoopProblem) uint64 { return sumRange(lp, 0, lp.N) }

// sumRange is the sum of f(in[i]) over [lo, hi): a per-range body.
func sumRange(lp *LoopProblem, lo, hi int) uint64 {
	var h uint64
	if lp.Heavy {
		for _, v := range lp.in[lo:hi] {
			h += step60(v)
		}
		return h
	}
	for _, v := range lp.in[lo:hi] {
		h += step3(v)
	}
	return h
}

// eachRange writes out[i] = f(in[i]) over [lo, hi): a per-range body.
func eachRange(lp *LoopProblem, lo, hi int) {
	out := lp.out[lo:hi]
	if lp.Heavy {
		for i, v := range lp.in[lo:hi] {
			out[i] = step60(v)
		}
		return
	}
	for i, v := range lp.in[lo:hi] {
		out[i] = step3(v)
	}
}

// loopSeqSeq is the range-over-func loop over loopSeq.
func loopSeqSeq(lp *LoopProblem) uint64 {
	var h uint64
	if lp.Heavy {
		for v := range loopSeq(lp.N) {
			h += step60(v)
		}
		return h
	}
	for v := range loopSeq(lp.N) {
		h += step3(v)
	}
	return h
}

// The goroutines a Go programmer starts by hand: one per contiguous chunk
// of the slice; for the iterator, batches of 1024 values sent on a channel
// to P goroutines that sum them.

func loopChunks(p, n int, body func(k, lo, hi int)) {
	var wg sync.WaitGroup
	for k := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(k, k*n/p, (k+1)*n/p)
		}()
	}
	wg.Wait()
}

func loopEachChunks(env *Env, lp *LoopProblem) {
	loopChunks(env.P, lp.N, func(_, lo, hi int) { eachRange(lp, lo, hi) })
}

func loopSumChunks(env *Env, lp *LoopProblem) uint64 {
	sums := make([]padded, env.P)
	loopChunks(env.P, lp.N, func(k, lo, hi int) { sums[k].v = sumRange(lp, lo, hi) })
	var h uint64
	for _, s := range sums {
		h += s.v
	}
	return h
}

const chanBatch = 1024

func loopSeqChan(env *Env, lp *LoopProblem) uint64 {
	batches := make(chan []uint64, 2*env.P)
	free := make(chan []uint64, 4*env.P)
	sums := make([]padded, env.P)
	var wg sync.WaitGroup
	for k := range env.P {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var h uint64
			for b := range batches {
				if lp.Heavy {
					for _, v := range b {
						h += step60(v)
					}
				} else {
					for _, v := range b {
						h += step3(v)
					}
				}
				select {
				case free <- b:
				default:
				}
			}
			sums[k].v = h
		}()
	}
	b := make([]uint64, 0, chanBatch)
	for v := range loopSeq(lp.N) {
		b = append(b, v)
		if len(b) == chanBatch {
			batches <- b
			select {
			case b = <-free:
				b = b[:0]
			default:
				b = make([]uint64, 0, chanBatch)
			}
		}
	}
	if len(b) > 0 {
		batches <- b
	}
	close(batches)
	wg.Wait()
	var h uint64
	for _, s := range sums {
		h += s.v
	}
	return h
}

// padded is a per-goroutine sum on a cache line of its own.
type padded struct {
	v uint64
	_ [56]byte
}

func loopWorkload(kind Kind, n int, heavy bool) *Workload {
	id, label := "", ""
	_, size := sizeName(n)
	work := "cheap body (3 multiply/xor-shift steps)"
	wid := "cheap"
	if heavy {
		work, wid = "20× that work", "x20"
	}
	switch kind {
	case KindLoopEach:
		id, label = "loop/each/"+wid, fmt.Sprintf("loop over %s uint64, out[i] = f(in[i]), %s", size, work)
	case KindLoopSum:
		id, label = "loop/sum/"+wid, fmt.Sprintf("loop over %s uint64, sum of f(in[i]), %s", size, work)
	case KindLoopSeq:
		id, label = "loop/iter/"+wid, fmt.Sprintf("loop over an iter.Seq of %s uint64, sum of f(v), %s", size, work)
	}
	mk := func(n int) func() *Instance {
		return func() *Instance {
			lp := newLoopProblem(n, heavy, kind)
			return &Instance{Units: float64(n), Expected: loopExpected(lp, kind), HasExpected: true, loop: lp}
		}
	}
	return &Workload{
		ID: id, Label: label, Kind: kind, UnitName: "elem", Nesting: NestFlat,
		build: mk(n), probe: mk(min(n, 1<<14)),
	}
}

// loopSuite is the loops' rows: each, sum and iterator loops with the
// cheap body over n elements and with twenty times the work over nHeavy.
func loopSuite(n, nHeavy int) []*Workload {
	var ws []*Workload
	for _, k := range []Kind{KindLoopEach, KindLoopSum, KindLoopSeq} {
		ws = append(ws, loopWorkload(k, n, false), loopWorkload(k, nHeavy, true))
	}
	return ws
}

package main

// forkjoin's loops over data, one row each: the per-range forms (For,
// Reduce), the per-element forms over a slice (ForEach, MapReduce) and
// over an iter.Seq (ForIter, ReduceIter), all with grain or buffer 0 (the
// default, which adapts). Each Open starts a pool.Pool of parallelism
// env.P for the workload.

import "github.com/forkjoin-go/forkjoin/forkjoin"

func addU(a, b uint64) uint64 { return a + b }

func init() {
	register(&Strategy{
		Name: "forkjoin-for", Family: "forkjoin", Open: openPool,
		Desc: "forkjoin.For with a per-range body (grain 0)",
		LoopEach: func(env *Env, lp *LoopProblem) {
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) {
				forkjoin.For(w, lp.N, 0, func(w *forkjoin.Worker, lo, hi int) { eachRange(lp, lo, hi) })
			})
		},
	})
	register(&Strategy{
		Name: "forkjoin-foreach", Family: "forkjoin", Open: openPool,
		Desc: "forkjoin.ForEach, a body call per element (grain 0)",
		LoopEach: func(env *Env, lp *LoopProblem) {
			out := lp.out
			body := func(w *forkjoin.Worker, i int, v *uint64) { out[i] = step3(*v) }
			if lp.Heavy {
				body = func(w *forkjoin.Worker, i int, v *uint64) { out[i] = step60(*v) }
			}
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) { forkjoin.ForEach(w, lp.in, 0, body) })
		},
	})
	register(&Strategy{
		Name: "forkjoin-reduce", Family: "forkjoin", Open: openPool,
		Desc: "forkjoin.Reduce with a per-range leaf (grain 0)",
		LoopSum: func(env *Env, lp *LoopProblem) (h uint64) {
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) {
				h = forkjoin.Reduce(w, lp.N, 0, func(w *forkjoin.Worker, lo, hi int) uint64 { return sumRange(lp, lo, hi) }, addU)
			})
			return h
		},
	})
	register(&Strategy{
		Name: "forkjoin-mapreduce", Family: "forkjoin", Open: openPool,
		Desc: "forkjoin.MapReduce, a mapf and a combine call per element (grain 0)",
		LoopSum: func(env *Env, lp *LoopProblem) (h uint64) {
			mapf := func(w *forkjoin.Worker, v *uint64) uint64 { return step3(*v) }
			if lp.Heavy {
				mapf = func(w *forkjoin.Worker, v *uint64) uint64 { return step60(*v) }
			}
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) { h = forkjoin.MapReduce(w, lp.in, 0, mapf, addU) })
			return h
		},
	})
	register(&Strategy{
		Name: "forkjoin-foriter", Family: "forkjoin", Open: openPool,
		Desc: "forkjoin.ForIter over the iterator, per-participant sums (buffer 0)",
		LoopSeq: func(env *Env, lp *LoopProblem) uint64 {
			sums := make([]padded, env.P)
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) {
				if lp.Heavy {
					forkjoin.ForIter(w, loopSeq(lp.N), 0, func(w *forkjoin.Worker, v uint64) { sums[w.Index()].v += step60(v) })
				} else {
					forkjoin.ForIter(w, loopSeq(lp.N), 0, func(w *forkjoin.Worker, v uint64) { sums[w.Index()].v += step3(v) })
				}
			})
			var h uint64
			for _, s := range sums {
				h += s.v
			}
			return h
		},
	})
	register(&Strategy{
		Name: "forkjoin-reduceiter", Family: "forkjoin", Open: openPool,
		Desc: "forkjoin.ReduceIter over the iterator, a mapf and a combine call per element (buffer 0)",
		LoopSeq: func(env *Env, lp *LoopProblem) (h uint64) {
			mapf := func(w *forkjoin.Worker, v uint64) uint64 { return step3(v) }
			if lp.Heavy {
				mapf = func(w *forkjoin.Worker, v uint64) uint64 { return step60(v) }
			}
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) { h = forkjoin.ReduceIter(w, loopSeq(lp.N), 0, mapf, addU) })
			return h
		},
	})
}

package forkjoin_test

import (
	"iter"
	"slices"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// step3 is the cheap body of the loop benchmarks: three multiply /
// xor-shift steps (about a nanosecond on the 2-core VM).
func step3(h uint64) uint64 {
	h = (h ^ h>>31) * 0xBF58476D1CE4E5B9
	h = (h ^ h>>27) * 0x94D049BB133111EB
	h = (h ^ h>>31) * 0x9E3779B97F4A7C15
	return h
}

// step60 is twenty times step3's work.
func step60(h uint64) uint64 {
	for range 20 {
		h = step3(h)
	}
	return h
}

// genN yields 0, 1, …, n-1: the iterator of the iterator benchmarks.
func genN(n int) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		for i := range n {
			if !yield(uint64(i)) {
				return
			}
		}
	}
}

// padded is a per-participant sum on a cache line of its own.
type padded struct {
	v uint64
	_ [56]byte
}

const loopN = 10_000_000

// loopForms are the loops of BenchmarkLoops with one per-element work
// function written into every body: passed as a function value, it would
// cost a call per element in the plain loop too.
type loopForms struct {
	loop, forRange, forEach                                  func(s, out []uint64, p *pool.Pool)
	sumLoop, reduce, mapReduce, rangeFunc, forSeq, reduceSeq func(s []uint64, p *pool.Pool) uint64
}

func addU(a, b uint64) uint64 { return a + b }

// cheapForms are the loops of BenchmarkLoops with step3 as the work.
func cheapForms() loopForms {
	return loopForms{
		loop: func(s, out []uint64, _ *pool.Pool) {
			for i, v := range s {
				out[i] = step3(v)
			}
		},
		forRange: func(s, out []uint64, p *pool.Pool) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.For(w, len(s), 0, func(w *forkjoin.Worker, lo, hi int) {
					for i, v := range s[lo:hi] {
						out[lo+i] = step3(v)
					}
				})
			})
		},
		forEach: func(s, out []uint64, p *pool.Pool) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.ForEach(w, s, 0, func(w *forkjoin.Worker, i int, v *uint64) { out[i] = step3(*v) })
			})
		},
		sumLoop: func(s []uint64, _ *pool.Pool) uint64 {
			var h uint64
			for _, v := range s {
				h += step3(v)
			}
			return h
		},
		reduce: func(s []uint64, p *pool.Pool) (h uint64) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				h = forkjoin.Reduce(w, len(s), 0, func(w *forkjoin.Worker, lo, hi int) uint64 {
					var h uint64
					for _, v := range s[lo:hi] {
						h += step3(v)
					}
					return h
				}, addU)
			})
			return h
		},
		mapReduce: func(s []uint64, p *pool.Pool) (h uint64) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				h = forkjoin.MapReduce(w, s, 0, func(w *forkjoin.Worker, v *uint64) uint64 { return step3(*v) }, addU)
			})
			return h
		},
		rangeFunc: func(s []uint64, _ *pool.Pool) uint64 {
			var h uint64
			for v := range genN(len(s)) {
				h += step3(v)
			}
			return h
		},
		forSeq: func(s []uint64, p *pool.Pool) uint64 {
			var sums [2]padded
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.ForIter(w, genN(len(s)), 0, func(w *forkjoin.Worker, v uint64) {
					sums[w.Index()].v += step3(v)
				})
			})
			return sums[0].v + sums[1].v
		},
		reduceSeq: func(s []uint64, p *pool.Pool) (h uint64) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				h = forkjoin.ReduceIter(w, genN(len(s)), 0, func(w *forkjoin.Worker, v uint64) uint64 { return step3(v) }, addU)
			})
			return h
		},
	}
}

// x20Forms are the loops of BenchmarkLoops with step60 as the work.
func x20Forms() loopForms {
	return loopForms{
		loop: func(s, out []uint64, _ *pool.Pool) {
			for i, v := range s {
				out[i] = step60(v)
			}
		},
		forRange: func(s, out []uint64, p *pool.Pool) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.For(w, len(s), 0, func(w *forkjoin.Worker, lo, hi int) {
					for i, v := range s[lo:hi] {
						out[lo+i] = step60(v)
					}
				})
			})
		},
		forEach: func(s, out []uint64, p *pool.Pool) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.ForEach(w, s, 0, func(w *forkjoin.Worker, i int, v *uint64) { out[i] = step60(*v) })
			})
		},
		sumLoop: func(s []uint64, _ *pool.Pool) uint64 {
			var h uint64
			for _, v := range s {
				h += step60(v)
			}
			return h
		},
		reduce: func(s []uint64, p *pool.Pool) (h uint64) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				h = forkjoin.Reduce(w, len(s), 0, func(w *forkjoin.Worker, lo, hi int) uint64 {
					var h uint64
					for _, v := range s[lo:hi] {
						h += step60(v)
					}
					return h
				}, addU)
			})
			return h
		},
		mapReduce: func(s []uint64, p *pool.Pool) (h uint64) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				h = forkjoin.MapReduce(w, s, 0, func(w *forkjoin.Worker, v *uint64) uint64 { return step60(*v) }, addU)
			})
			return h
		},
		rangeFunc: func(s []uint64, _ *pool.Pool) uint64 {
			var h uint64
			for v := range genN(len(s)) {
				h += step60(v)
			}
			return h
		},
		forSeq: func(s []uint64, p *pool.Pool) uint64 {
			var sums [2]padded
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.ForIter(w, genN(len(s)), 0, func(w *forkjoin.Worker, v uint64) {
					sums[w.Index()].v += step60(v)
				})
			})
			return sums[0].v + sums[1].v
		},
		reduceSeq: func(s []uint64, p *pool.Pool) (h uint64) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				h = forkjoin.ReduceIter(w, genN(len(s)), 0, func(w *forkjoin.Worker, v uint64) uint64 { return step60(v) }, addU)
			})
			return h
		},
	}
}

// BenchmarkLoops compares the loops over data with what a user compares
// them against, in the same run: the plain for loop over the slice, and
// for the iterator forms the range-over-func loop over the same iter.Seq.
// 10^7 uint64 (0, 1, 2, …), the cheap body (step3) and 20× its work
// (step60), on a pool of 2. The slice forms write step(s[i]) to out[i]
// ("loop" is their plain loop) or sum it ("sumloop"); the iterator forms
// sum step(v) over genN ("rangefunc"), ForIter into per-participant sums.
// The rows ending in -p1 run on a pool of 1: the loop's cost with nobody
// to share it, its body calls included, which halved is the floor of
// the row on 2.
//
//	go test -run '^$' -bench 'Loops$' -benchtime 20x -count 5 ./forkjoin
func BenchmarkLoops(b *testing.B) {
	s := make([]uint64, loopN)
	for i := range s {
		s[i] = uint64(i)
	}
	out := make([]uint64, loopN)
	p := pool.New(2)
	defer p.Close()
	p1 := pool.New(1)
	defer p1.Close()
	for _, wk := range []struct {
		name  string
		forms loopForms
	}{{"cheap", cheapForms()}, {"x20", x20Forms()}} {
		fs := wk.forms
		want := make([]uint64, loopN)
		fs.loop(s, want, nil)
		wantSum := fs.sumLoop(s, nil)
		for _, c := range []struct {
			name string
			run  func(s, out []uint64, p *pool.Pool)
			p    *pool.Pool
		}{{"loop", fs.loop, nil}, {"For", fs.forRange, p}, {"ForEach", fs.forEach, p}, {"ForEach-p1", fs.forEach, p1}} {
			b.Run(wk.name+"/"+c.name, func(b *testing.B) {
				for b.Loop() {
					c.run(s, out, c.p)
				}
				if !slices.Equal(out, want) {
					b.Fatal("wrong output")
				}
				clear(out)
			})
		}
		for _, c := range []struct {
			name string
			run  func(s []uint64, p *pool.Pool) uint64
			p    *pool.Pool
		}{{"sumloop", fs.sumLoop, nil}, {"Reduce", fs.reduce, p}, {"MapReduce", fs.mapReduce, p}, {"MapReduce-p1", fs.mapReduce, p1},
			{"rangefunc", fs.rangeFunc, nil}, {"ForIter", fs.forSeq, p}, {"ForIter-p1", fs.forSeq, p1},
			{"ReduceIter", fs.reduceSeq, p}, {"ReduceIter-p1", fs.reduceSeq, p1}} {
			b.Run(wk.name+"/"+c.name, func(b *testing.B) {
				var h uint64
				for b.Loop() {
					h = c.run(s, c.p)
				}
				if h != wantSum {
					b.Fatalf("sum %x, want %x", h, wantSum)
				}
			})
		}
	}
}

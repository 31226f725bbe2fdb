package forkjoin_test

import (
	"slices"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// mix is ~100 ns of work per element.
func mix(v int) uint64 {
	h := uint64(v)*0x9E3779B97F4A7C15 + 1
	for range 40 {
		h ^= h >> 31
		h *= 0xBF58476D1CE4E5B9
	}
	return h
}

// BenchmarkLoops compares the loops over data with the plain sequential
// loop, on 10^5 elements of ~100 ns each, on a pool of 2.
func BenchmarkLoops(b *testing.B) {
	s := make([]int, 100_000)
	for i := range s {
		s[i] = i
	}
	xor := func(a, b uint64) uint64 { return a ^ b }
	var want uint64
	for _, v := range s {
		want ^= mix(v)
	}
	p := pool.New(2)
	defer p.Close()
	check := func(b *testing.B, got uint64) {
		if got != want {
			b.Fatalf("got %x, want %x", got, want)
		}
	}
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			var h uint64
			for _, v := range s {
				h ^= mix(v)
			}
			check(b, h)
		}
	})
	out := make([]uint64, len(s))
	xorAll := func() uint64 {
		var h uint64
		for _, m := range out {
			h ^= m
		}
		clear(out)
		return h
	}
	b.Run("For", func(b *testing.B) {
		for b.Loop() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.For(w, len(s), 0, func(w *forkjoin.Worker, lo, hi int) {
					for i := lo; i < hi; i++ {
						out[i] = mix(s[i])
					}
				})
			})
			check(b, xorAll())
		}
	})
	b.Run("ForEach", func(b *testing.B) {
		for b.Loop() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.ForEach(w, s, 0, func(w *forkjoin.Worker, i int, v *int) { out[i] = mix(*v) })
			})
			check(b, xorAll())
		}
	})
	b.Run("ForSeq", func(b *testing.B) {
		for b.Loop() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.ForSeq(w, indices(len(s)), 0, func(w *forkjoin.Worker, i int) { out[i] = mix(s[i]) })
			})
			check(b, xorAll())
		}
	})
	b.Run("MapReduce", func(b *testing.B) {
		for b.Loop() {
			var h uint64
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				h = forkjoin.MapReduce(w, s, 0, func(w *forkjoin.Worker, v *int) uint64 { return mix(*v) }, xor)
			})
			check(b, h)
		}
	})
	b.Run("ReduceSeq", func(b *testing.B) {
		for b.Loop() {
			var h uint64
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				h = forkjoin.ReduceSeq(w, slices.Values(s), 0, func(w *forkjoin.Worker, v int) uint64 { return mix(v) }, xor)
			})
			check(b, h)
		}
	})
}

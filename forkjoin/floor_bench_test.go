package forkjoin

// How cheap can a fork be in Go? BenchmarkForkFloor answers with code that
// is not the library: the least bookkeeping a heartbeat fork needs (record
// the forked argument where a heartbeat could publish it, check a poll
// flag, pop), written for one concrete type, once inlined by hand into the
// recursion and once behind a Join-shaped function that calls the user's
// function through a func value, as any Join API in Go must (Go compiles a
// generic function once per shape and does not inline bodies that call
// unknown functions, so the user's function cannot be called directly).
// The gap between the two is the price of the API shape, which no
// implementation of Fork.Join can avoid; docs/BENCHMARKS.md quotes it.
// Fork.Start and Future.Join (future-p1) avoid most of it: the recursion
// calls itself for one half, Future.Join inlines into it, and the other
// half is one call through the Fork's function value.

import (
	"sync/atomic"
	"testing"
)

// floorWorker is the least state a heartbeat fork needs: a stack of
// forked arguments, how many of them are published, and a poll flag. An
// argument is kept as a pointer, as the library's word forks keep theirs
// (forkEntry), so that the collector sees it: recording it is a store with
// the write barrier's check.
type floorWorker struct {
	args      []*tnode
	sp, pub   int
	poll      atomic.Bool
	published int64
}

//go:noinline
func (w *floorWorker) heartbeat() { w.published++ }

// floorInline is tree-sum with the fork bookkeeping inlined by hand.
func floorInline(w *floorWorker, n *tnode) int64 {
	if n == nil {
		return 0
	}
	i := w.sp
	w.args[i] = n.right
	w.sp = i + 1
	if w.poll.Load() {
		w.heartbeat()
	}
	l := floorInline(w, n.left)
	w.sp = i
	var r int64
	if i >= w.pub {
		r = floorInline(w, n.right)
	} else {
		w.heartbeat() // stands for the join of a published fork; never taken here
	}
	return n.val + l + r
}

// floorJoin is the same bookkeeping behind a Join-shaped function.
//
//go:noinline
func floorJoin(w *floorWorker, fn func(*floorWorker, *tnode) int64, a, b *tnode) (int64, int64) {
	i := w.sp
	w.args[i] = b
	w.sp = i + 1
	if w.poll.Load() {
		w.heartbeat()
	}
	ra := fn(w, a)
	w.sp = i
	if i >= w.pub {
		return ra, fn(w, b)
	}
	w.heartbeat()
	return ra, 0
}

var floorSumFn func(*floorWorker, *tnode) int64

func init() {
	floorSumFn = func(w *floorWorker, n *tnode) int64 {
		if n == nil {
			return 0
		}
		l, r := floorJoin(w, floorSumFn, n.left, n.right)
		return n.val + l + r
	}
}

// BenchmarkForkFloor: tree-sum over 2^20-1 nodes, sequential, with the
// ideal fork inlined by hand, with the same fork behind a Join-shaped
// function, and with the library's typed fork at parallelism 1 (Fork.Join,
// and Fork.Start with Future.Join).
func BenchmarkForkFloor(b *testing.B) {
	bt := treeOf(20)
	sums := []struct {
		name string
		sum  func(n *tnode) int64
	}{
		{"seq", seqSum},
		{"inline", func(n *tnode) int64 {
			return floorInline(&floorWorker{args: make([]*tnode, 64)}, n)
		}},
		{"join-shaped", func(n *tnode) int64 {
			return floorSumFn(&floorWorker{args: make([]*tnode, 64)}, n)
		}},
	}
	for _, s := range sums {
		b.Run(s.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if s.sum(bt.root) != bt.sum {
					b.Fatal("wrong sum")
				}
			}
			perOp(b, bt.nodes, "ns/node")
		})
	}
	b.Run("fork-p1", func(b *testing.B) {
		benchRunSum(b, bt, 1, sumFork.Call)
		perOp(b, bt.nodes, "ns/node")
	})
	b.Run("future-p1", func(b *testing.B) {
		benchRunSum(b, bt, 1, futureSumFork.Call)
		perOp(b, bt.nodes, "ns/node")
	})
}

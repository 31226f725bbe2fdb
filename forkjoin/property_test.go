package forkjoin

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
	"pgregory.net/rapid"
)

// The properties: on random inputs and a random parallelism from 1 to 16,
// every parallel construct gives the sequential answer. Each check makes
// a pool of its own and closes it; the leak check at the start of every
// test then proves that no worker outlives its pool.

// drawPool makes a pool with a random parallelism; the caller closes it.
// drawPool draws a pool's parallelism and whether it has the LIFO slot, so
// that the property tests cover spawned tasks both ways.
func drawPool(rt *rapid.T) *pool.Pool {
	n := rapid.IntRange(1, 16).Draw(rt, "parallelism")
	if rapid.Bool().Draw(rt, "lifoSlot") {
		return pool.New(n, pool.WithLIFOSlot())
	}
	return pool.New(n)
}

func drawRand(rt *rapid.T) *rand.Rand {
	return rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 0))
}

func TestPropTreeSum(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		r := drawRand(rt)
		n := rapid.IntRange(0, 20_000).Draw(rt, "nodes")
		shape := rapid.IntRange(0, numShapes-1).Draw(rt, "shape")
		root := randTree(r, n, shape)
		want := seqSum(root)
		p := drawPool(rt)
		defer p.Close()
		for round := 0; round < 2; round++ {
			var typed, futures, closures int64
			Run(p, func(w *Worker) { typed = sumFork.Call(w, root) })
			Run(p, func(w *Worker) { futures = futureSumFork.Call(w, root) })
			Run(p, func(w *Worker) { closures = joinSum(w, root) })
			if typed != want || futures != want || closures != want {
				rt.Fatalf("round %d: Fork.Join gave %d, Start/Future.Join %d, Join %d, sequential %d",
					round, typed, futures, closures, want)
			}
		}
	})
}

func TestPropFutures(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		r := drawRand(rt)
		root := randKTree(r, rapid.IntRange(1, 20_000).Draw(rt, "nodes"))
		want := seqHash(root)
		p := drawPool(rt)
		defer p.Close()
		var got uint64
		Run(p, func(w *Worker) { got = hashFork.Call(w, root) })
		if got != want {
			rt.Fatalf("Start/Future gave %#x, sequential %#x", got, want)
		}
	})
}

func TestPropFib(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, fibMax).Draw(rt, "n")
		want := seqFib(n)
		p := drawPool(rt)
		defer p.Close()
		var typed, closures int
		Run(p, func(w *Worker) { typed = fibFork.Call(w, n) })
		Run(p, func(w *Worker) { closures = fibJoin(w, n) })
		if typed != want || closures != want {
			rt.Fatalf("fib(%d): Fork.Join gave %d, Join gave %d, want %d", n, typed, closures, want)
		}
	})
}

// drawGrain draws 0 (adaptive) often, small grains often, and any grain up
// to past the end of the range.
func drawGrain(rt *rapid.T, n int) int {
	switch rapid.IntRange(0, 2).Draw(rt, "grainKind") {
	case 0:
		return 0
	case 1:
		return rapid.IntRange(1, 16).Draw(rt, "grain")
	}
	return rapid.IntRange(1, n+10).Draw(rt, "grain")
}

func TestPropFor(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, forMax).Draw(rt, "n")
		grain := drawGrain(rt, n)
		p := drawPool(rt)
		defer p.Close()
		counts := make([]atomic.Int32, n)
		var bad errOnce
		Run(p, func(w *Worker) {
			For(w, n, grain, func(w *Worker, lo, hi int) {
				if lo < 0 || lo >= hi || hi > n || (grain > 0 && hi-lo > grain) {
					bad.set("body called with [%d, %d) for n = %d, grain %d", lo, hi, n, grain)
					return
				}
				for i := lo; i < hi; i++ {
					counts[i].Add(1)
				}
			})
		})
		if msg := bad.get(); msg != "" {
			rt.Fatal(msg)
		}
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				rt.Fatalf("index %d of %d written %d times (grain %d)", i, n, c, grain)
			}
		}
	})
}

// TestPropReduceConcat reduces with string concatenation, which is
// associative and not commutative: any leaf result combined out of order
// shows.
func TestPropReduceConcat(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 5000).Draw(rt, "n")
		grain := drawGrain(rt, n)
		items := make([]string, n)
		for i := range items {
			items[i] = strconv.Itoa(i) + ","
		}
		want := strings.Join(items, "")
		p := drawPool(rt)
		defer p.Close()
		var bad errOnce
		var got string
		Run(p, func(w *Worker) {
			got = Reduce(w, n, grain,
				func(w *Worker, lo, hi int) string {
					if lo < 0 || lo >= hi || hi > n {
						bad.set("leaf called with [%d, %d) for n = %d", lo, hi, n)
					}
					return strings.Join(items[lo:hi], "")
				},
				func(a, b string) string { return a + b })
		})
		if msg := bad.get(); msg != "" {
			rt.Fatal(msg)
		}
		if got != want {
			rt.Fatalf("n = %d, grain %d: Reduce gave %.80q…, want %.80q…", n, grain, got, want)
		}
	})
}

// TestPropReduceMatrix reduces with the product of 2×2 matrices mod 2^64.
func TestPropReduceMatrix(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		r := drawRand(rt)
		n := rapid.IntRange(0, forMax).Draw(rt, "n")
		grain := drawGrain(rt, n)
		ms := make([]mat, n)
		for i := range ms {
			ms[i] = mat{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
		}
		want := mat{} // Reduce of an empty range is the zero value
		if n > 0 {
			want = matIdentity
			for _, m := range ms {
				want = want.mul(m)
			}
		}
		p := drawPool(rt)
		defer p.Close()
		var got mat
		Run(p, func(w *Worker) {
			got = Reduce(w, n, grain,
				func(w *Worker, lo, hi int) mat {
					acc := matIdentity
					for _, m := range ms[lo:hi] {
						acc = acc.mul(m)
					}
					return acc
				},
				mat.mul)
		})
		if got != want {
			rt.Fatalf("n = %d, grain %d: Reduce gave %v, want %v", n, grain, got, want)
		}
	})
}

// The mixed fork: Futures (whose arguments live in slab slots), word forks
// on pointers (arguments in the stack entries, slots only when published),
// a fork on a struct and a word fork on int16, nested in one another, so
// that every kind of entry sits above and below every other on a private
// stack while the answers to requests publish the oldest.
type kArg struct {
	n    *knode
	salt uint64
}

var (
	mixedFork  *Fork[*knode, uint64]
	structFork *Fork[kArg, uint64]
	smallFork  *Fork[int16, int]
)

func init() {
	mixedFork = NewFork(func(f *Fork[*knode, uint64], w *Worker, n *knode) uint64 {
		k := len(n.kids)
		if k == 0 {
			return n.val + uint64(smallFork.Call(w, int16(n.val%12)))
		}
		var futs [maxKids]Future[*knode, uint64]
		var res [maxKids]uint64
		for i := 2; i < k; i++ {
			futs[i] = mixedFork.Start(w, n.kids[i])
		}
		switch {
		case k == 1:
			res[0] = mixedFork.Call(w, n.kids[0])
		case n.val&1 == 0:
			res[0], res[1] = mixedFork.Join(w, n.kids[0], n.kids[1])
		default:
			a, b := structFork.Join(w, kArg{n.kids[0], 1}, kArg{n.kids[1], 2})
			res[0], res[1] = a-1, b-2
		}
		for i := k - 1; i >= 2; i-- {
			res[i] = futs[i].Join(w)
		}
		h := n.val
		for _, r := range res[:k] {
			h = h*0x100000001B3 ^ r
		}
		return h
	})
	structFork = NewFork(func(_ *Fork[kArg, uint64], w *Worker, a kArg) uint64 { return mixedFork.Call(w, a.n) + a.salt })
	smallFork = NewFork(func(f *Fork[int16, int], w *Worker, n int16) int {
		if n < 2 {
			return int(n)
		}
		a, b := smallFork.Join(w, n-1, n-2)
		return a + b
	})
}

func seqMixed(n *knode) uint64 {
	if len(n.kids) == 0 {
		return n.val + uint64(seqFib(int(n.val%12)))
	}
	h := n.val
	for _, k := range n.kids {
		h = h*0x100000001B3 ^ seqMixed(k)
	}
	return h
}

func TestPropMixedForks(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		r := drawRand(rt)
		root := randKTree(r, rapid.IntRange(1, 20_000).Draw(rt, "nodes"))
		want := seqMixed(root)
		p := drawPool(rt)
		defer p.Close()
		for round := 0; round < 2; round++ {
			var got uint64
			Run(p, func(w *Worker) { got = mixedFork.Call(w, root) })
			if got != want {
				rt.Fatalf("round %d: got %#x, sequential %#x", round, got, want)
			}
		}
	})
}

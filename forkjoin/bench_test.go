package forkjoin

// The benchmarks of the work-stealing core, each beside the sequential
// code it competes with, in the same run. docs/BENCHMARKS.md has the
// figures and the command that made them.

import (
	"fmt"
	"sync"
	"testing"

	"github.com/forkjoin-go/forkjoin/pool"
)

type benchTree struct {
	root  *tnode
	sum   int64
	nodes int
}

var (
	benchTreesMu sync.Mutex
	benchTrees   = map[int]*benchTree{}
)

// treeOf builds (once per process) the perfect tree of the given depth,
// allocated in pre-order.
func treeOf(depth int) *benchTree {
	benchTreesMu.Lock()
	defer benchTreesMu.Unlock()
	if t := benchTrees[depth]; t != nil {
		return t
	}
	var c int64
	root := buildTree(depth, &c)
	t := &benchTree{root: root, sum: seqSum(root), nodes: 1<<depth - 1}
	benchTrees[depth] = t
	return t
}

// perOp reports the time per unit (node, call, element) as a metric.
func perOp(b *testing.B, units int, name string) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(units), name)
}

// withWarmPool runs body with a pool of parallelism par on which one run
// of warm has already happened (workers started, slabs and stacks grown).
func withWarmPool(b *testing.B, par int, warm func(w *Worker), body func(p *pool.Pool)) {
	p := pool.New(par)
	defer p.Close()
	Run(p, warm)
	b.ReportAllocs()
	b.ResetTimer()
	body(p)
	b.StopTimer()
}

// benchRunSum times b.N runs of sum over bt's tree on a warm pool of
// parallelism par, checking every answer.
func benchRunSum(b *testing.B, bt *benchTree, par int, sum func(w *Worker, n *tnode) int64) {
	var got int64
	root := func(w *Worker) { got = sum(w, bt.root) }
	withWarmPool(b, par, root, func(p *pool.Pool) {
		for i := 0; i < b.N; i++ {
			Run(p, root)
			if got != bt.sum {
				b.Fatal("wrong sum")
			}
		}
	})
}

// BenchmarkTreeSum: the fork-overhead test (depthD: 2^D-1 nodes). Sum a perfect binary tree of
// pointer-linked nodes, forking at every node, with the typed fork and
// with the closure Join, at parallelism 1 and 2, beside the sequential
// recursion.
func BenchmarkTreeSum(b *testing.B) {
	for _, depth := range []int{20, 24} {
		b.Run(fmt.Sprintf("depth%d", depth), func(b *testing.B) {
			bt := treeOf(depth)
			b.Run("seq", func(b *testing.B) {
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if seqSum(bt.root) != bt.sum {
						b.Fatal("wrong sum")
					}
				}
				perOp(b, bt.nodes, "ns/node")
			})
			for _, par := range []int{1, 2} {
				b.Run(fmt.Sprintf("fork-p%d", par), func(b *testing.B) {
					benchRunSum(b, bt, par, sumFork.Call)
					perOp(b, bt.nodes, "ns/node")
				})
			}
			for _, par := range []int{1, 2} {
				b.Run(fmt.Sprintf("future-p%d", par), func(b *testing.B) {
					benchRunSum(b, bt, par, futureSumFork.Call)
					perOp(b, bt.nodes, "ns/node")
				})
			}
			for _, par := range []int{1, 2} {
				b.Run(fmt.Sprintf("join-p%d", par), func(b *testing.B) {
					benchRunSum(b, bt, par, joinSum)
					perOp(b, bt.nodes, "ns/node")
				})
			}
		})
	}
}

// seqFibRec is the sequential naive recursion the fib benchmarks compare
// with.
func seqFibRec(n int) int {
	if n < 2 {
		return n
	}
	return seqFibRec(n-1) + seqFibRec(n-2)
}

// BenchmarkFib32: naive fib(32), forking at every call.
func BenchmarkFib32(b *testing.B) {
	const n = 32
	want := seqFib(n)
	calls := 2*seqFib(n+1) - 1
	b.Run("seq", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if seqFibRec(n) != want {
				b.Fatal("wrong fib")
			}
		}
		perOp(b, calls, "ns/call")
	})
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("fork-p%d", par), func(b *testing.B) {
			var got int
			fib := func(w *Worker) { got = fibFork.Call(w, n) }
			withWarmPool(b, par, fib, func(p *pool.Pool) {
				for i := 0; i < b.N; i++ {
					Run(p, fib)
					if got != want {
						b.Fatal("wrong fib")
					}
				}
			})
			perOp(b, calls, "ns/call")
		})
	}
}

// goSum is tree-sum with a goroutine per fork down to depth cut, and the
// sequential recursion below: the hand-tuned alternative to a pool.
func goSum(n *tnode, cut int) int64 {
	if n == nil {
		return 0
	}
	if cut == 0 {
		return seqSum(n)
	}
	var l int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		l = goSum(n.left, cut-1)
	}()
	r := goSum(n.right, cut-1)
	wg.Wait()
	return n.val + l + r
}

// spin is a CPU-bound loop that touches no memory.
func spin(k int) uint64 {
	x := uint64(k)
	for i := 0; i < k; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

var spinSink uint64

// BenchmarkScaling: T1 and T2 of the typed fork on the 2^24-1 tree, beside
// the sequential recursion, goroutines with a depth cut-off, and this
// machine's two-core ceiling, measured in the same run as the time of two
// independent loops run one after the other ("alone") over the time of the
// same loops run side by side on two goroutines: for the tree, the sums of
// the root's two subtrees; for the ALU, two spin loops. A perfect
// two-core machine has a ceiling of 2; T1/T2 is judged against it.
func BenchmarkScaling(b *testing.B) {
	bt := treeOf(24)
	left, right := bt.root.left, bt.root.right
	wantHalves := bt.sum - bt.root.val
	b.Run("seq", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if seqSum(bt.root) != bt.sum {
				b.Fatal("wrong sum")
			}
		}
	})
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("fork-p%d", par), func(b *testing.B) {
			benchRunSum(b, bt, par, sumFork.Call)
		})
	}
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("future-p%d", par), func(b *testing.B) {
			benchRunSum(b, bt, par, futureSumFork.Call)
		})
	}
	for _, cut := range []int{1, 4, 8} {
		b.Run(fmt.Sprintf("goroutines-cutoff%d", cut), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if goSum(bt.root, cut) != bt.sum {
					b.Fatal("wrong sum")
				}
			}
		})
	}
	b.Run("ceiling-tree-alone", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if seqSum(left)+seqSum(right) != wantHalves {
				b.Fatal("wrong sum")
			}
		}
	})
	b.Run("ceiling-tree-sidebyside", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var l int64
			done := make(chan struct{})
			go func() {
				l = seqSum(left)
				close(done)
			}()
			r := seqSum(right)
			<-done
			if l+r != wantHalves {
				b.Fatal("wrong sum")
			}
		}
	})
	const k = 20_000_000
	b.Run("ceiling-alu-alone", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			spinSink += spin(k) + spin(k+1)
		}
	})
	b.Run("ceiling-alu-sidebyside", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var x uint64
			done := make(chan struct{})
			go func() {
				x = spin(k)
				close(done)
			}()
			y := spin(k + 1)
			<-done
			spinSink += x + y
		}
	})
}

// BenchmarkEmptyRun: the fixed cost of a run on a warm pool.
func BenchmarkEmptyRun(b *testing.B) {
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("p%d", par), func(b *testing.B) {
			empty := func(*Worker) {}
			withWarmPool(b, par, empty, func(p *pool.Pool) {
				for i := 0; i < b.N; i++ {
					Run(p, empty)
				}
			})
		})
	}
}

const loopN = 10_000_000

var (
	loopOnce     sync.Once
	loopIn       []int64
	loopOut      []int64
	loopWantSum  int64
	loopWantLast int64
)

func loopData() {
	loopOnce.Do(func() {
		loopIn = make([]int64, loopN)
		loopOut = make([]int64, loopN)
		for i := range loopIn {
			loopIn[i] = int64(i)
			loopWantSum += int64(i)
		}
		loopWantLast = 3*int64(loopN-1) + 1
	})
}

func mapBody(_ *Worker, lo, hi int) {
	in, out := loopIn[lo:hi], loopOut[lo:hi]
	for i := range in {
		out[i] = 3*in[i] + 1
	}
}

func sumLeaf(_ *Worker, lo, hi int) int64 {
	var s int64
	for _, v := range loopIn[lo:hi] {
		s += v
	}
	return s
}

func add(a, b int64) int64 { return a + b }

// BenchmarkFor: out[i] = 3*in[i]+1 over 10^7 elements, a plain loop beside
// For with the adaptive grain at parallelism 1 and 2, and the loop split by
// hand into halves run side by side on two goroutines (this machine's
// ceiling for a loop that streams 160 MB through memory).
func BenchmarkFor(b *testing.B) {
	loopData()
	check := func(b *testing.B) {
		if loopOut[loopN-1] != loopWantLast || loopOut[loopN/2] != 3*int64(loopN/2)+1 {
			b.Fatal("wrong output")
		}
		clear(loopOut)
	}
	b.Run("loop", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			mapBody(nil, 0, loopN)
			b.StopTimer()
			check(b)
			b.StartTimer()
		}
		perOp(b, loopN, "ns/elem")
	})
	b.Run("loop-halves-sidebyside", func(b *testing.B) { // the two-core ceiling
		for i := 0; i < b.N; i++ {
			done := make(chan struct{})
			go func() {
				mapBody(nil, 0, loopN/2)
				close(done)
			}()
			mapBody(nil, loopN/2, loopN)
			<-done
			b.StopTimer()
			check(b)
			b.StartTimer()
		}
		perOp(b, loopN, "ns/elem")
	})
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("for-p%d", par), func(b *testing.B) {
			body := func(w *Worker) { For(w, loopN, 0, mapBody) }
			withWarmPool(b, par, body, func(p *pool.Pool) {
				for i := 0; i < b.N; i++ {
					Run(p, body)
					b.StopTimer()
					check(b)
					b.StartTimer()
				}
			})
			perOp(b, loopN, "ns/elem")
		})
	}
}

// BenchmarkReduce: the sum of 10^7 int64, a plain loop beside Reduce with
// the adaptive grain at parallelism 1 and 2, and the two halves summed side
// by side on two goroutines.
func BenchmarkReduce(b *testing.B) {
	loopData()
	b.Run("loop", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if sumLeaf(nil, 0, loopN) != loopWantSum {
				b.Fatal("wrong sum")
			}
		}
		perOp(b, loopN, "ns/elem")
	})
	b.Run("loop-halves-sidebyside", func(b *testing.B) { // the two-core ceiling
		for i := 0; i < b.N; i++ {
			var l int64
			done := make(chan struct{})
			go func() {
				l = sumLeaf(nil, 0, loopN/2)
				close(done)
			}()
			r := sumLeaf(nil, loopN/2, loopN)
			<-done
			if l+r != loopWantSum {
				b.Fatal("wrong sum")
			}
		}
		perOp(b, loopN, "ns/elem")
	})
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("reduce-p%d", par), func(b *testing.B) {
			var got int64
			body := func(w *Worker) { got = Reduce(w, loopN, 0, sumLeaf, add) }
			withWarmPool(b, par, body, func(p *pool.Pool) {
				for i := 0; i < b.N; i++ {
					Run(p, body)
					if got != loopWantSum {
						b.Fatal("wrong sum")
					}
				}
			})
			perOp(b, loopN, "ns/elem")
		})
	}
}

// Command treesum is forkjoin's quick start: it sums the values of a perfect
// binary tree of pointer-linked nodes four ways — with a typed fork and a
// Future (Fork.Start, then Future.Join after the recursion's own call), with
// the typed fork's Join, with the closure-based forkjoin.Join, and with plain
// sequential recursion — and prints the sums and how long each took.
//
//	go run ./examples/treesum                 # 2^20-1 nodes, GOMAXPROCS workers
//	go run ./examples/treesum -depth 24 -p 2  # 2^24-1 nodes, parallelism 2
//
// The typed fork allocates nothing per fork and is the tool for fine-grained
// recursion; with a pointer argument, Fork.Start and Future.Join are inlined
// into the recursion, the cheapest fork of all. forkjoin.Join is the
// convenient form, paying a heap allocation for each closure that captures
// variables.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// Node is a node of a binary tree.
type Node struct {
	Value       int64
	Left, Right *Node
}

// Build returns a perfect binary tree with the given number of levels
// (2^levels - 1 nodes), allocated in pre-order from one array so that a
// left-first walk reads memory front to back. The values are 1, 2, 3, … in
// pre-order, so the sum of a tree of n nodes is n(n+1)/2.
func Build(levels int) *Node {
	nodes := make([]Node, 1<<levels-1)
	next := 0
	var build func(level int) *Node
	build = func(level int) *Node {
		if level == 0 {
			return nil
		}
		n := &nodes[next]
		next++
		n.Value = int64(next)
		n.Left = build(level - 1)
		n.Right = build(level - 1)
		return n
	}
	return build(levels)
}

// Sum is the fastest form: the right half is forked (another worker may
// take it), the left half is the recursion's own call, and the Future is
// joined last, allocating nothing.
//
// Sum receives its own Fork as f; call it as forkjoin.NewFork(Sum).Call(w, root)
// or through a package-level Fork (no init function needed).
func Sum(f *forkjoin.Fork[*Node, int64], w *forkjoin.Worker, n *Node) int64 {
	if n == nil {
		return 0
	}
	right := f.Start(w, n.Right)
	left := Sum(f, w, n.Left)
	return n.Value + left + right.Join(w)
}

// sumFork is Sum prepared for forking, made once.
var sumFork = forkjoin.NewFork(Sum)

// sum is the same with the typed fork's Join: it runs the two recursive
// calls in parallel when another worker is idle, and inline otherwise.
var sum = forkjoin.NewFork(func(f *forkjoin.Fork[*Node, int64], w *forkjoin.Worker, n *Node) int64 {
	if n == nil {
		return 0
	}
	l, r := f.Join(w, n.Left, n.Right)
	return n.Value + l + r
})

// SumJoin is the same recursion written with forkjoin.Join and two closures.
func SumJoin(w *forkjoin.Worker, n *Node) int64 {
	if n == nil {
		return 0
	}
	var l, r int64
	forkjoin.Join(w,
		func(w *forkjoin.Worker) { l = SumJoin(w, n.Left) },
		func(w *forkjoin.Worker) { r = SumJoin(w, n.Right) })
	return n.Value + l + r
}

// SumSeq is the sequential reference.
func SumSeq(n *Node) int64 {
	if n == nil {
		return 0
	}
	return n.Value + SumSeq(n.Left) + SumSeq(n.Right)
}

// Result is one way of summing: its name, the sum and the best time.
type Result struct {
	Name string
	Sum  int64
	Time time.Duration
}

// SumAll sums root with a Future, with the typed fork's Join, with
// forkjoin.Join (all on a pool of parallelism p, 0 meaning GOMAXPROCS) and
// sequentially, each runs times, and returns the sums with the best time of
// each.
func SumAll(root *Node, p, runs int) []Result {
	results := []Result{{Name: "Future"}, {Name: "Fork.Join"}, {Name: "forkjoin.Join"}, {Name: "sequential"}}
	pool.With(p, func(pl *pool.Pool) {
		ways := []func() int64{
			func() (s int64) {
				forkjoin.Run(pl, func(w *forkjoin.Worker) { s = sumFork.Call(w, root) })
				return s
			},
			func() (s int64) {
				forkjoin.Run(pl, func(w *forkjoin.Worker) { s = sum.Call(w, root) })
				return s
			},
			func() (s int64) {
				forkjoin.Run(pl, func(w *forkjoin.Worker) { s = SumJoin(w, root) })
				return s
			},
			func() int64 { return SumSeq(root) },
		}
		for i, way := range ways {
			for range max(runs, 1) {
				start := time.Now()
				results[i].Sum = way()
				if d := time.Since(start); results[i].Time == 0 || d < results[i].Time {
					results[i].Time = d
				}
			}
		}
	})
	return results
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its arguments and output streams, for the test.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("treesum", flag.ContinueOnError)
	fs.SetOutput(stderr)
	depth := fs.Int("depth", 20, "levels of the tree (2^depth-1 nodes)")
	p := fs.Int("p", 0, "parallelism (0: GOMAXPROCS)")
	runs := fs.Int("runs", 3, "runs of each way; the best time is shown")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *depth < 1 || *depth > 26 || *p < 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "treesum: -depth must be in 1..26, -p at least 0, and no arguments")
		return 2
	}
	start := time.Now()
	root := Build(*depth)
	n := int64(1)<<*depth - 1
	fmt.Fprintf(stdout, "tree: %d nodes (depth %d), built in %v\n", n, *depth, round(time.Since(start)))
	par := *p
	if par == 0 {
		par = pool.DefaultParallelism()
	}
	fmt.Fprintf(stdout, "parallelism %d, best of %d runs\n", par, max(*runs, 1))
	ok := true
	for _, r := range SumAll(root, *p, *runs) {
		fmt.Fprintf(stdout, "%-14s sum = %d  in %v\n", r.Name, r.Sum, round(r.Time))
		ok = ok && r.Sum == n*(n+1)/2
	}
	if !ok {
		fmt.Fprintf(stderr, "treesum: wrong sum, want %d\n", n*(n+1)/2)
		return 1
	}
	return 0
}

// round keeps three significant digits of a duration, for reading.
func round(d time.Duration) time.Duration {
	for r := time.Duration(1); ; r *= 10 {
		if d < 1000*r {
			return d.Round(r)
		}
	}
}

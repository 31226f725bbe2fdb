// Command sort sorts int64s with a parallel merge sort built on forkjoin's
// typed fork, and compares it with slices.Sort on the same input.
//
//	go run ./examples/sort                       # 10^6 random values
//	go run ./examples/sort -n 10000000 -p 2      # 10^7 values, parallelism 2
//	go run ./examples/sort -dist reversed -cutoff 1024
//
// Both halves of the array are sorted in parallel (Fork.Join), and the two
// sorted halves are merged in parallel too: the merge splits at the middle
// of the longer run and the matching position in the shorter one (a binary
// search), so every level of the recursion has parallel work, not only the
// sorting. Below the cut-off, pieces are sorted with slices.Sort and merged
// sequentially. The sort ping-pongs between the array and one scratch array
// of the same length, so it allocates n values once and nothing per fork.
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// sortJob asks to sort a. The result goes to buf (same length as a) if
// toBuf, else stays in a; the other array is scratch.
type sortJob struct {
	a, buf []int64
	toBuf  bool
	cutoff int
}

// mergeJob asks to merge the sorted runs x and y into dst.
type mergeJob struct {
	x, y, dst []int64
	cutoff    int
}

// sortFork and mergeFork fork the two recursions; each function receives
// its own Fork as f, so these declarations need no init function.
var sortFork = forkjoin.NewFork(func(f *forkjoin.Fork[sortJob, struct{}], w *forkjoin.Worker, j sortJob) struct{} {
	n := len(j.a)
	if n <= j.cutoff {
		slices.Sort(j.a)
		if j.toBuf {
			copy(j.buf, j.a)
		}
		return struct{}{}
	}
	// Sort each half into the other array, then merge back into ours.
	m := n / 2
	f.Join(w,
		sortJob{j.a[:m], j.buf[:m], !j.toBuf, j.cutoff},
		sortJob{j.a[m:], j.buf[m:], !j.toBuf, j.cutoff})
	src, dst := j.buf, j.a
	if j.toBuf {
		src, dst = j.a, j.buf
	}
	return mergeFork.Call(w, mergeJob{src[:m], src[m:], dst, j.cutoff})
})

var mergeFork = forkjoin.NewFork(func(f *forkjoin.Fork[mergeJob, struct{}], w *forkjoin.Worker, j mergeJob) struct{} {
	x, y := j.x, j.y
	if len(x)+len(y) <= j.cutoff {
		merge(x, y, j.dst)
		return struct{}{}
	}
	if len(x) < len(y) {
		x, y = y, x // split the longer run in its middle
	}
	mx := len(x) / 2
	my, _ := slices.BinarySearch(y, x[mx]) // y[:my] < x[mx] <= y[my:]
	j.dst[mx+my] = x[mx]
	f.Join(w,
		mergeJob{x[:mx], y[:my], j.dst[:mx+my], j.cutoff},
		mergeJob{x[mx+1:], y[my:], j.dst[mx+my+1:], j.cutoff})
	return struct{}{}
})

// merge merges the sorted runs x and y into dst, sequentially.
func merge(x, y, dst []int64) {
	i, j, k := 0, 0, 0
	for i < len(x) && j < len(y) {
		if y[j] < x[i] {
			dst[k] = y[j]
			j++
		} else {
			dst[k] = x[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], x[i:])
	copy(dst[k:], y[j:])
}

// Sort sorts a in increasing order on p. Pieces of at most cutoff values are
// sorted and merged sequentially; cutoff < 1 means 4096.
func Sort(p *pool.Pool, a []int64, cutoff int) {
	if cutoff < 1 {
		cutoff = 4096
	}
	if len(a) <= cutoff {
		slices.Sort(a)
		return
	}
	buf := make([]int64, len(a))
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		sortFork.Call(w, sortJob{a: a, buf: buf, cutoff: cutoff})
	})
}

// Generate returns n values drawn from a seeded generator: "random" (any
// int64), "dups" (values below 100), "sorted" or "reversed" (random values,
// then sorted increasing or decreasing).
func Generate(n int, seed uint64, dist string) ([]int64, error) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	a := make([]int64, n)
	for i := range a {
		a[i] = r.Int64() - r.Int64()
	}
	switch dist {
	case "random":
	case "dups":
		for i := range a {
			a[i] = r.Int64N(100)
		}
	case "sorted":
		slices.Sort(a)
	case "reversed":
		slices.Sort(a)
		slices.Reverse(a)
	default:
		return nil, fmt.Errorf("unknown distribution %q (want random, dups, sorted or reversed)", dist)
	}
	return a, nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its arguments and output streams, for the test.
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("sort", flag.ContinueOnError)
	fl.SetOutput(stderr)
	n := fl.Int("n", 1_000_000, "number of values")
	par := fl.Int("p", 0, "parallelism (0: GOMAXPROCS)")
	cutoff := fl.Int("cutoff", 4096, "pieces of at most this many values are sorted and merged sequentially")
	seed := fl.Uint64("seed", 1, "seed of the input")
	dist := fl.String("dist", "random", "input: random, dups, sorted or reversed")
	runs := fl.Int("runs", 3, "runs of each sort; the best time is shown")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *n < 0 || *par < 0 || *cutoff < 1 || fl.NArg() > 0 {
		fmt.Fprintln(stderr, "sort: -n and -p must be at least 0, -cutoff at least 1, and no arguments")
		return 2
	}
	input, err := Generate(*n, *seed, *dist)
	if err != nil {
		fmt.Fprintln(stderr, "sort:", err)
		return 2
	}
	*runs = max(*runs, 1)

	want := slices.Clone(input)
	got := slices.Clone(input)
	var tStd, tPar time.Duration
	parallelism := 0
	pool.With(*par, func(p *pool.Pool) {
		parallelism = p.Parallelism()
		for range *runs { // alternate the two, for a fair comparison on a noisy machine
			copy(want, input)
			start := time.Now()
			slices.Sort(want)
			tStd = best(tStd, time.Since(start))

			copy(got, input)
			start = time.Now()
			Sort(p, got, *cutoff)
			tPar = best(tPar, time.Since(start))
		}
	})

	fmt.Fprintf(stdout, "%d %s int64 (seed %d), parallelism %d, cut-off %d, best of %d runs\n",
		*n, *dist, *seed, parallelism, *cutoff, *runs)
	fmt.Fprintf(stdout, "slices.Sort      %v\n", round(tStd))
	fmt.Fprintf(stdout, "parallel merge   %v  (%.2fx)\n", round(tPar), float64(tStd)/float64(max(tPar, 1)))
	sorted, equal := slices.IsSorted(got), slices.Equal(got, want)
	fmt.Fprintf(stdout, "sorted: %s, equal to slices.Sort: %s\n", yes(sorted), yes(equal))
	if !sorted || !equal {
		return 1
	}
	return 0
}

func best(b, d time.Duration) time.Duration {
	if b == 0 || d < b {
		return d
	}
	return b
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

// round keeps three significant digits of a duration, for reading.
func round(d time.Duration) time.Duration {
	for r := time.Duration(1); ; r *= 10 {
		if d < 1000*r {
			return d.Round(r)
		}
	}
}

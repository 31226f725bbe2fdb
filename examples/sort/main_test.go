package main

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"

	"github.com/forkjoin-go/forkjoin/pool"
)

func TestSortEqualsSlicesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	sizes := []int{0, 1, 2, 3, 5, 8, 17, 100, 101, 1023, 4097}
	for _, par := range []int{1, 2, 4} {
		pool.With(par, func(p *pool.Pool) {
			for _, n := range sizes {
				for _, cutoff := range []int{1, 5, 64, 0} {
					a := make([]int64, n)
					for i := range a {
						switch n % 3 {
						case 0:
							a[i] = r.Int64() - r.Int64() // negatives too
						case 1:
							a[i] = r.Int64N(10) // many equal values
						default:
							a[i] = int64(n - i) // decreasing
						}
					}
					want := slices.Clone(a)
					slices.Sort(want)
					Sort(p, a, cutoff)
					if !slices.Equal(a, want) {
						t.Fatalf("p=%d n=%d cutoff=%d: Sort differs from slices.Sort", par, n, cutoff)
					}
				}
			}
			// One bigger input with the default cut-off.
			a, _ := Generate(100_001, uint64(par), "random")
			want := slices.Clone(a)
			slices.Sort(want)
			Sort(p, a, 0)
			if !slices.Equal(a, want) {
				t.Fatalf("p=%d n=100001: Sort differs from slices.Sort", par)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	for _, c := range []struct{ x, y, want []int64 }{
		{nil, nil, []int64{}},
		{[]int64{1, 3}, nil, []int64{1, 3}},
		{nil, []int64{2}, []int64{2}},
		{[]int64{1, 3, 5}, []int64{2, 3, 4, 9}, []int64{1, 2, 3, 3, 4, 5, 9}},
	} {
		dst := make([]int64, len(c.x)+len(c.y))
		merge(c.x, c.y, dst)
		if !slices.Equal(dst, c.want) {
			t.Errorf("merge(%v, %v) = %v, want %v", c.x, c.y, dst, c.want)
		}
	}
}

func TestGenerate(t *testing.T) {
	for _, dist := range []string{"random", "dups", "sorted", "reversed"} {
		a, err := Generate(1000, 3, dist)
		b, _ := Generate(1000, 3, dist)
		if err != nil || len(a) != 1000 || !slices.Equal(a, b) {
			t.Errorf("%s: err %v, len %d, same for the same seed: %v", dist, err, len(a), slices.Equal(a, b))
		}
		switch dist {
		case "sorted":
			if !slices.IsSorted(a) {
				t.Error("sorted input is not sorted")
			}
		case "reversed":
			slices.Reverse(a)
			if !slices.IsSorted(a) {
				t.Error("reversed input is not decreasing")
			}
		case "dups":
			if slices.Max(a) >= 100 || slices.Min(a) < 0 {
				t.Error("dups out of [0, 100)")
			}
		}
	}
	if _, err := Generate(1, 1, "zigzag"); err == nil {
		t.Error("an unknown distribution was accepted")
	}
}

// times matches the times and the ratio the program prints.
var times = regexp.MustCompile(`[0-9.]+(ns|µs|ms|s|x)\b`)

func TestRun(t *testing.T) {
	for _, dist := range []string{"random", "reversed"} {
		var out, errOut bytes.Buffer
		args := []string{"-n", "20001", "-p", "2", "-cutoff", "100", "-runs", "1", "-dist", dist, "-seed", "9"}
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("exit %d, stderr %q", code, errOut.String())
		}
		want := "20001 " + dist + ` int64 (seed 9), parallelism 2, cut-off 100, best of 1 runs
slices.Sort      T
parallel merge   T  (T)
sorted: yes, equal to slices.Sort: yes
`
		if got := times.ReplaceAllString(out.String(), "T"); got != want {
			t.Errorf("output:\n%s\nwant:\n%s", got, want)
		}
	}
}

func TestRunBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-n", "-1"}, {"-cutoff", "0"}, {"-dist", "zigzag"}, {"x"}, {"-bad"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 2 || errOut.Len() == 0 {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and a message", args, code, errOut.String())
		}
	}
}

package main

import (
	"bytes"
	"regexp"
	"testing"
)

func TestBuild(t *testing.T) {
	root := Build(3)
	// Pre-order values: 1 is the root, 2..4 its left subtree, 5..7 its right.
	got := []int64{root.Value, root.Left.Value, root.Left.Left.Value, root.Left.Right.Value,
		root.Right.Value, root.Right.Left.Value, root.Right.Right.Value}
	want := []int64{1, 2, 3, 4, 5, 6, 7}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pre-order values %v, want %v", got, want)
		}
	}
	if root.Right.Right.Left != nil || root.Right.Right.Right != nil {
		t.Fatal("a leaf has children")
	}
}

func TestSumAll(t *testing.T) {
	for _, levels := range []int{1, 2, 5, 12} {
		for _, p := range []int{1, 2, 4} {
			n := int64(1)<<levels - 1
			for _, r := range SumAll(Build(levels), p, 2) {
				if r.Sum != n*(n+1)/2 {
					t.Errorf("levels %d, p %d: %s sum = %d, want %d", levels, p, r.Name, r.Sum, n*(n+1)/2)
				}
			}
		}
	}
}

// durations matches the times the program prints.
var durations = regexp.MustCompile(`[0-9.]+(ns|µs|ms|s)\b`)

func TestRun(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-depth", "10", "-p", "2", "-runs", "1"}, &out, &errOut); code != 0 {
		t.Fatalf("exit code %d, stderr %q", code, errOut.String())
	}
	got := durations.ReplaceAllString(out.String(), "T")
	want := `tree: 1023 nodes (depth 10), built in T
parallelism 2, best of 1 runs
Future         sum = 523776  in T
Fork.Join      sum = 523776  in T
forkjoin.Join  sum = 523776  in T
sequential     sum = 523776  in T
`
	if got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr: %q", errOut.String())
	}
}

func TestRunBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-depth", "0"}, {"-depth", "27"}, {"-p", "-1"}, {"-nosuchflag"}, {"extra"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 2 {
			t.Errorf("run(%q) = %d, want 2", args, code)
		}
		if errOut.Len() == 0 {
			t.Errorf("run(%q) printed no error", args)
		}
	}
}

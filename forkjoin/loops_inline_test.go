package forkjoin_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/testcheck"
)

// TestIterLoopsInline compiles testdata/inlineiter with -gcflags=-m and
// checks, at every line marked "// INLINE: ForIter" (or ReduceIter), that
// the compiler inlined the loop into its caller and the loop's yield into
// the iterator: reading an inlinable iterator then costs a store per value
// and no call (iter.go). Both functions sit just under the inlining budget;
// a change that pushes them over fails here rather than only slowing
// BenchmarkLoops down.
func TestIterLoopsInline(t *testing.T) {
	report, marks := testcheck.CompilerInlining(t, "testdata/inlineiter")
	for _, m := range marks {
		// "main.go:L:C: inlining call to forkjoin.ForIter[go.shape.uint64]",
		// and for the yield, a closure of the caller named after the loop:
		// "main.go:L:C: inlining call to main.func1.1.ForIter[go.shape.uint64].5".
		loop := regexp.MustCompile(`inlining call to forkjoin\.` + m.What + `\[[^ ]*\]$`)
		yield := regexp.MustCompile(`inlining call to main\.[^ ]*\.` + m.What + `\[[^ ]*\]\.[0-9]+$`)
		var sawLoop, sawYield bool
		for _, l := range report {
			if strings.Contains(l, m.At) {
				sawLoop = sawLoop || loop.MatchString(l)
				sawYield = sawYield || yield.MatchString(l)
			}
		}
		if !sawLoop || !sawYield {
			t.Errorf("%s %s inlined: %v, its yield inlined into the iterator: %v; the compiler said:\n%s",
				m.At, m.What, sawLoop, sawYield, strings.Join(report, "\n"))
		}
	}
	if len(marks) != 3 {
		t.Fatalf("found %d INLINE marks in testdata/inlineiter/main.go, want 3", len(marks))
	}
}

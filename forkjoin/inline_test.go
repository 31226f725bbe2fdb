package forkjoin

import (
	"strings"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/testcheck"
)

// TestFutureForkInlines compiles testdata/inline, a user's tree-sum with a
// Future per node, and checks in the compiler's report (-gcflags=-m) that
// the calls marked INLINE there were inlined: Future.Join is written to fit
// Go's inlining budget (see joinFuture). (Fork.Start is not: the tests of
// its Fork and Worker take it over the budget.) The benchmarks of the
// cheapest fork depend on it (BenchmarkTreeSum's future-p1 and future-p2,
// BenchmarkForkFloor's future-p1): they measure the inlined path, and this
// test says when a change, or a compiler's new costs, takes them off it.
func TestFutureForkInlines(t *testing.T) {
	report, marks := testcheck.CompilerInlining(t, "testdata/inline")
	for _, m := range marks {
		// The report's lines read "testdata/inline/main.go:L:C: inlining
		// call to Future[...].Join".
		found := false
		for _, l := range report {
			if strings.Contains(l, m.At) && strings.Contains(l, "inlining call to") && strings.HasSuffix(l, "."+m.What) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s the call to %s was not inlined; the compiler said:\n%s", m.At, m.What, strings.Join(report, "\n"))
		}
	}
	if len(marks) != 1 {
		t.Fatalf("found %d INLINE marks in testdata/inline/main.go, want 1", len(marks))
	}
}

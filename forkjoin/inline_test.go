package forkjoin

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		t.Fatalf("no go command at %s (the test needs the toolchain that runs it): %v", gobin, err)
	}
	out, err := exec.Command(gobin, "build", "-gcflags=-m", "-o", os.DevNull, "./testdata/inline").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./testdata/inline: %v\n%s", err, out)
	}
	src, err := os.ReadFile("testdata/inline/main.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i, line := range strings.Split(string(src), "\n") {
		_, what, ok := strings.Cut(line, "// INLINE: ")
		if !ok {
			continue
		}
		checked++
		// The report's lines read "testdata/inline/main.go:L:C: inlining
		// call to Future[...].Join".
		at := fmt.Sprintf("main.go:%d:", i+1)
		found := false
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			l := sc.Text()
			if strings.Contains(l, at) && strings.Contains(l, "inlining call to") && strings.HasSuffix(l, "."+what) {
				found = true
			}
		}
		if !found {
			t.Errorf("main.go:%d: the call to %s was not inlined; the compiler said:\n%s", i+1, what, out)
		}
	}
	if checked != 1 {
		t.Fatalf("found %d INLINE marks in testdata/inline/main.go, want 1", checked)
	}
}

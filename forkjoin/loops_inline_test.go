package forkjoin_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestIterLoopsInline compiles testdata/inlineiter with -gcflags=-m and
// checks, at every line marked "// INLINE: ForIter" (or ReduceIter), that
// the compiler inlined the loop into its caller and the loop's yield into
// the iterator: reading an inlinable iterator then costs a store per value
// and no call (iter.go). Both functions sit just under the inlining budget;
// a change that pushes them over fails here rather than only slowing
// BenchmarkLoops down.
func TestIterLoopsInline(t *testing.T) {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		t.Fatalf("no go command at %s (the test needs the toolchain that runs it): %v", gobin, err)
	}
	out, err := exec.Command(gobin, "build", "-gcflags=-m", "-o", os.DevNull, "./testdata/inlineiter").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./testdata/inlineiter: %v\n%s", err, out)
	}
	src, err := os.ReadFile("testdata/inlineiter/main.go")
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
		// "main.go:L:C: inlining call to forkjoin.ForIter[go.shape.uint64]",
		// and for the yield, a closure of the caller named after the loop:
		// "main.go:L:C: inlining call to main.func1.1.ForIter[go.shape.uint64].5".
		loop := regexp.MustCompile(`inlining call to forkjoin\.` + what + `\[[^ ]*\]$`)
		yield := regexp.MustCompile(`inlining call to main\.[^ ]*\.` + what + `\[[^ ]*\]\.[0-9]+$`)
		at := fmt.Sprintf("main.go:%d:", i+1)
		var sawLoop, sawYield bool
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			l := sc.Text()
			if !strings.Contains(l, at) {
				continue
			}
			sawLoop = sawLoop || loop.MatchString(l)
			sawYield = sawYield || yield.MatchString(l)
		}
		if !sawLoop || !sawYield {
			t.Errorf("main.go:%d: %s inlined: %v, its yield inlined into the iterator: %v; the compiler said:\n%s",
				i+1, what, sawLoop, sawYield, out)
		}
	}
	if checked != 3 {
		t.Fatalf("found %d INLINE marks in testdata/inlineiter/main.go, want 3", checked)
	}
}

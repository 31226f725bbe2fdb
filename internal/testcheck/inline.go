package testcheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// InlineMark is a line of a test program marked "// INLINE: What": a call
// the test expects the compiler to inline there.
type InlineMark struct {
	What string // the text after the mark
	At   string // "main.go:L:", the prefix of the compiler's report lines for that line
}

// CompilerInlining builds the program in dir (a directory below the test's
// package, with a main.go) with -gcflags=-m, using the toolchain that runs
// the test, and returns the compiler's report, split into lines, and the
// INLINE marks of dir/main.go. It fails the test if the build fails.
func CompilerInlining(t testing.TB, dir string) (report []string, marks []InlineMark) {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		t.Fatalf("no go command at %s (the test needs the toolchain that runs it): %v", gobin, err)
	}
	out, err := exec.Command(gobin, "build", "-gcflags=-m", "-o", os.DevNull, "./"+dir).CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./%s: %v\n%s", dir, err, out)
	}
	src, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(src), "\n") {
		if _, what, ok := strings.Cut(line, "// INLINE: "); ok {
			marks = append(marks, InlineMark{What: what, At: fmt.Sprintf("main.go:%d:", i+1)})
		}
	}
	return strings.Split(string(out), "\n"), marks
}

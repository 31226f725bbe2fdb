package readme

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/fold/foldtest"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// The quick start's first snippet, at the top level as in a user's file.

type Node struct {
	Value       int64
	Left, Right *Node
}

func sum(f *forkjoin.Fork[*Node, int64], w *forkjoin.Worker, n *Node) int64 {
	if n == nil {
		return 0
	}
	right := f.Start(w, n.Right) // another worker takes it if one is free
	left := sum(f, w, n.Left)
	return n.Value + left + right.Join(w)
}

var sumFork = forkjoin.NewFork(sum)

// Dir is the quick start's directory tree.
type Dir struct {
	Bytes   int64
	Subdirs []*Dir
}

// The fold of the quick start's second snippet, for TestDirSize.
var (
	size    = fold.Sum(func(d *Dir) int64 { return d.Bytes })
	subdirs = tree.FromSlice(func(d *Dir) []*Dir { return d.Subdirs })
)

func perfect(depth int, next *int64) *Node {
	if depth == 0 {
		return nil
	}
	*next++
	n := &Node{Value: *next}
	n.Left, n.Right = perfect(depth-1, next), perfect(depth-1, next)
	return n
}

func Example_session() {
	var next int64
	root := perfect(16, &next)
	home := &Dir{Bytes: 1, Subdirs: []*Dir{{Bytes: 2}, {Bytes: 3, Subdirs: []*Dir{{Bytes: 4}}}}}
	var total, bytes int64

	pool.With(0, func(p *pool.Pool) { // 0: GOMAXPROCS participants, the caller included
		forkjoin.Run(p, func(w *forkjoin.Worker) { total = sumFork.Call(w, root) })

		size := fold.Sum(func(d *Dir) int64 { return d.Bytes })
		subdirs := tree.FromSlice(func(d *Dir) []*Dir { return d.Subdirs })
		bytes = fold.Run(p, size, subdirs, home)
	}) // the workers are joined here (pool.New and Close for a long-lived pool)

	fmt.Println(total == next*(next+1)/2, bytes)
	// Output: true 10
}

var errNotFound = errors.New("404")

// fetch stands for a call that blocks: it waits for its context unless its
// url is the failing one.
func fetch(ctx context.Context, url string) error {
	if url == "/missing" {
		return errNotFound
	}
	<-ctx.Done()
	return nil
}

func Example_group() {
	p := pool.New(0)
	defer p.Close()
	ctx := context.Background()
	urls := []string{"/a", "/b", "/c", "/missing", "/d"}

	g, ctx := forkjoin.NewGroup(ctx, p)
	for _, url := range urls {
		g.Go(func() error { return fetch(ctx, url) })
	}
	err := g.Wait() // the first error; it cancels ctx for the others

	fmt.Println(err)
	// Output: 404
}

func TestDirSize(t *testing.T) {
	dirs := rapid.Map(foldtest.Trees(300), func(n *foldtest.Node) *Dir {
		return foldtest.Build(n, func(label int, kids []*Dir) *Dir {
			return &Dir{Bytes: int64(label), Subdirs: kids}
		})
	})
	foldtest.Check(t, size, subdirs, dirs, nil)
}

// goBlock is a fenced Go block of a Markdown file.
var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// normalized drops each line's indentation and the blank lines: the
// snippets are indented differently in the README and in this file.
func normalized(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestSnippetsInREADME: every Go block of README.md is in this file, where
// it compiles and runs.
func TestSnippetsInREADME(t *testing.T) {
	defer leakcheck.Check(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	here := normalized(string(self))
	blocks := goBlock.FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 4 {
		t.Fatalf("README.md has %d Go blocks; the quick start has four", len(blocks))
	}
	for _, b := range blocks {
		if !strings.Contains(here, normalized(b[1])) {
			t.Errorf("this README block is not in internal/readme/readme_test.go, where it would be compiled:\n%s", b[1])
		}
	}
}

package fold_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// A fold is three callbacks over a tree given by its children function.
// fold.Seq runs it on the calling goroutine, fold.Run in parallel on a
// pool; both give the same answer.
func Example() {
	// The tree: the children of each node, and the size of each file.
	children := map[string][]string{
		"/":    {"src", "docs"},
		"src":  {"main.go", "util.go"},
		"docs": {"guide.md"},
	}
	size := map[string]int{"main.go": 300, "util.go": 120, "guide.md": 80}
	g := tree.FromSlice(func(n string) []string { return children[n] })

	// The size of a subtree: the node's own size plus its children's.
	total := fold.New(
		func(n string) int { return size[n] },   // Init: start the node's heap
		func(h *int, child int) { *h += child }, // Accumulate: add a child's result
		func(h *int) int { return *h },          // Finalize: the node's result
	)

	fmt.Println("sequential:", fold.Seq(total, g, "/"))
	pool.With(0, func(p *pool.Pool) {
		fmt.Println("parallel:  ", fold.Run(p, total, g, "/"))
	})
	// Output:
	// sequential: 500
	// parallel:   500
}

// Error names a node of the cycle and spells the cycle out; errors.As
// gives the keys. RunDAG finds the cycle before it runs any callback.
func ExampleCycleError_Error() {
	// Build steps and the steps each one needs: link → compile → generate → link.
	needs := map[string][]string{
		"link":     {"compile"},
		"compile":  {"generate"},
		"generate": {"link"},
	}
	g := tree.FromSlice(func(s string) []string { return needs[s] })
	id := func(s string) string { return s }
	pool.With(2, func(p *pool.Pool) {
		_, err := fold.RunDAG(context.Background(), p, fold.Size[string](), g, "link", id)
		fmt.Println(err)
		var ce *fold.CycleError[string]
		if errors.As(err, &ce) {
			fmt.Println(ce.Cycle)
		}
	})
	// Output:
	// fold: cycle in graph: node link reaches itself: link → compile → generate → link
	// [link compile generate]
}

// RunCtx runs a Finished fold under a context: Root is applied to the
// result when the fold completes, and the zero value comes back with the
// context's error when it does not.
func ExampleFinished_RunCtx() {
	report := fold.Finish(fold.Sum(func(d *dir) int { return d.size }), func(b int) string {
		return fmt.Sprintf("%d bytes", b)
	})
	pool.With(2, func(p *pool.Pool) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, err := report.RunCtx(ctx, p, files, root)
		fmt.Printf("%q %v\n", s, err)

		cancel() // a done context: the fold does not start
		s, err = report.RunCtx(ctx, p, files, root)
		fmt.Printf("%q %v\n", s, err)
	})
	// Output:
	// "272 bytes" <nil>
	// "" context canceled
}

package fold_test

import (
	"bytes"
	"context"
	"runtime/trace"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/traceread"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// With tracing on, each fold and walk is a trace task named after its
// entry point, with the caller's share as a region of that task.
func TestTraceNamesEntryPoints(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skipf("cannot trace (is a trace already on, as with go test -trace?): %v", err)
	}
	ctx := context.Background()
	f, g := spinFold(func(n int) int { return n }), spinTree(100)
	fe := fold.NewErr(func(n int) (int, error) { return n, nil },
		func(h *int, c int) error { *h += c; return nil },
		func(h *int) (int, error) { return *h, nil })
	fold.Run(p, f, g, 0)
	_, _ = fold.RunCtx(ctx, p, f, g, 0)
	_, _ = fold.RunErr(ctx, p, fe, g, 0)
	_, _ = fold.RunDAG(ctx, p, f, g, 0, func(n int) int { return n })
	tree.Walk(p, g, 0, func(int) {})
	_ = tree.WalkCtx(ctx, p, g, 0, func(int) error { return nil })
	tree.Count(p, g, 0)
	tree.Find(p, g, 0, func(n int) bool { return n == 50 })
	trace.Stop()
	tr, err := traceread.Read(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fold.Run", "fold.RunCtx", "fold.RunErr", "fold.RunDAG",
		"tree.Walk", "tree.WalkCtx", "tree.Count", "tree.Find"} {
		tasks := tr.TasksOf(name)
		if len(tasks) != 1 || !tasks[0].Ended {
			t.Errorf("%s: tasks %v, want one, ended", name, tasks)
			continue
		}
		mine := 0
		for _, r := range tr.RegionsOf(name) {
			if r.Task == tasks[0].ID {
				mine++
			}
		}
		if mine == 0 {
			t.Errorf("%s: no region in its task", name)
		}
	}
}

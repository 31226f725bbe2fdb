package forkjoin_test

import (
	"bytes"
	"context"
	"runtime/trace"
	"slices"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/internal/traceread"
	"github.com/forkjoin-go/forkjoin/pool"
)

// traced records an execution trace of fn, which runs work on p, and
// reads it once p's workers are back at rest (their regions closed).
func traced(t *testing.T, p *pool.Pool, fn func()) *traceread.Trace {
	t.Helper()
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skipf("cannot trace (is a trace already on, as with go test -trace?): %v", err)
	}
	fn()
	ok := testcheck.PollUntil(func() bool {
		st := p.Stats()
		return st.WorkersParked == st.WorkersAlive && st.CompensatorsAlive == 0
	})
	trace.Stop()
	if !ok {
		t.Fatalf("the pool's workers did not all park: %+v", p.Stats())
	}
	tr, err := traceread.Read(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Misnested) != 0 {
		t.Errorf("regions out of order: %v", tr.Misnested)
	}
	return tr
}

// oneTask returns the one task of type typ in tr, ended, with regions of
// the same name, on at least minGoroutines goroutines, all in that task.
func oneTask(t *testing.T, tr *traceread.Trace, typ string, minGoroutines int) *traceread.Task {
	t.Helper()
	tasks := tr.TasksOf(typ)
	if len(tasks) != 1 {
		t.Fatalf("%d tasks %q in the trace, want 1", len(tasks), typ)
	}
	k := tasks[0]
	if !k.Ended {
		t.Errorf("task %q did not end", typ)
	}
	var gs []int64
	for _, r := range tr.RegionsOf(typ) {
		if r.Task != k.ID {
			t.Errorf("a region %q belongs to task %d, not to the run's %d", typ, r.Task, k.ID)
		}
		if !slices.Contains(gs, r.Goroutine) {
			gs = append(gs, r.Goroutine)
		}
	}
	if len(gs) < minGoroutines {
		t.Errorf("regions %q on %d goroutines, want at least %d", typ, len(gs), minGoroutines)
	}
	return k
}

// With tracing on, a run is a task named after its entry point, and each
// participant's share a region of that name in the task: the caller's, and
// the workers' that took its forks. A Group is a task whose tasks are its
// regions; a spawned task's region belongs to the task of its context; a
// run made from a task's Worker.Context is a child task.
func TestTraceTasksAndRegions(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(3)
	defer p.Close()
	var request *traceread.Task
	tr := traced(t, p, func() {
		ctx, task := trace.NewTask(context.Background(), "request")
		defer task.End()
		runUntilWorkersTook(t, p, func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) { sumRange(w, 0, 1<<12) })
		})
		if err := forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
			// A nested run from the run's context: a child task.
			return forkjoin.RunCtx(w.Context(), p, func(w *forkjoin.Worker) error { return nil })
		}); err != nil {
			t.Fatal(err)
		}
		h := forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) { return 1, nil }, forkjoin.WithContext(ctx))
		<-h.Done() // runs on a worker
		g, _ := forkjoin.NewGroup(ctx, p)
		for range 4 {
			g.Go(func() error { return nil })
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		gr := forkjoin.NewGraph()
		a := forkjoin.AddNode(gr, func(*forkjoin.Worker) (int, error) { return 1, nil }, nil)
		forkjoin.AddNode(gr, func(*forkjoin.Worker) (int, error) { return a.Value() + 1, nil }, []forkjoin.Dep{a})
		if err := gr.RunCtx(ctx, p); err != nil {
			t.Fatal(err)
		}
	})
	for _, k := range tr.TasksOf("request") {
		request = k
	}
	if request == nil {
		t.Fatal("no task \"request\" in the trace")
	}
	runs := tr.TasksOf("forkjoin.Run")
	if len(runs) == 0 {
		t.Fatal("no task forkjoin.Run in the trace")
	}
	gs := map[int64]bool{}
	for _, r := range tr.RegionsOf("forkjoin.Run") {
		gs[r.Goroutine] = true
	}
	if len(gs) < 2 {
		t.Errorf("forkjoin.Run's regions on %d goroutines, want the caller's and a worker's", len(gs))
	}
	ctxRuns := tr.TasksOf("forkjoin.RunCtx")
	if len(ctxRuns) != 2 {
		t.Fatalf("%d tasks forkjoin.RunCtx, want 2 (a run and a run nested in it)", len(ctxRuns))
	}
	outer, inner := ctxRuns[0], ctxRuns[1]
	if outer.Parent != request.ID {
		outer, inner = inner, outer
	}
	if outer.Parent != request.ID || inner.Parent != outer.ID {
		t.Errorf("forkjoin.RunCtx tasks' parents %d and %d, want the request's (%d) and the outer run's", outer.Parent, inner.Parent, request.ID)
	}
	spawns := tr.RegionsOf("forkjoin.Spawn")
	if len(spawns) != 1 || spawns[0].Task != request.ID {
		t.Errorf("regions forkjoin.Spawn %v, want one in the request's task %d", spawns, request.ID)
	}
	for _, typ := range []string{"forkjoin.Group", "forkjoin.Graph"} {
		if k := oneTask(t, tr, typ, 1); k.Parent != request.ID {
			t.Errorf("task %s has parent %d, want the request's %d", typ, k.Parent, request.ID)
		}
	}
}

// With tracing off, a run's context is its caller's: nothing is wrapped.
func TestUntracedContextIsTheCallers(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("a trace is on")
	}
	pool.With(2, func(p *pool.Pool) {
		type key struct{}
		ctx := context.WithValue(context.Background(), key{}, 1)
		if err := forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
			if w.Context() != ctx {
				t.Errorf("Worker.Context() = %v, want the run's context", w.Context())
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
}

// A trace that stops during a run leaves the run's context alone: a Group
// or a run made from it inside the run has a context of its own, and the
// run's trace task ends when the run does.
func TestTraceStoppedInsideRun(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	if err := trace.Start(&bytes.Buffer{}); err != nil {
		t.Skipf("cannot trace: %v", err)
	}
	stopped := false
	defer func() {
		if !stopped {
			trace.Stop()
		}
	}()
	if err := forkjoin.RunCtx(context.Background(), p, func(w *forkjoin.Worker) error {
		trace.Stop()
		stopped = true
		outer := w.Context()
		g, gctx := forkjoin.NewGroup(outer, p)
		g.Go(func() error { return nil })
		if err := g.Wait(); err != nil {
			return err
		}
		if gctx.Err() == nil {
			t.Error("the group's context is not canceled after Wait")
		}
		if err := forkjoin.RunCtx(outer, p, func(*forkjoin.Worker) error { return nil }); err != nil {
			return err
		}
		if w.Context() != outer || outer.Err() != nil {
			t.Errorf("the run's context changed or was canceled: %v, err %v", w.Context(), w.Context().Err())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

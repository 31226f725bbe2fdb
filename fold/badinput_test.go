package fold_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// TestBadInputPolicy calls every entry point of forkjoin, fold, tree and
// pool with each programming error it can be given and checks the policy
// of docs/guarantees.md: the call panics (whether or not it returns an
// error) with a message that names the bad argument. Calls that need a
// Worker make the mistake inside a Run, whose caller gets the panic as a
// *PanicError of the message.
func TestBadInputPolicy(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	ctx := context.Background()
	var nilCtx context.Context
	var nilPool *pool.Pool

	ok := fold.Size[int]()
	var zero fold.Fold[int, int, int]
	okErr := fold.Lift(ok)
	var zeroErr fold.FoldErr[int, int, int]
	g := tree.FromFunc(func(int, func(int) bool) {})
	var nilG tree.Treeish[int]
	id := func(n int) int { return n }
	visit := func(int) {}
	visitErr := func(int) error { return nil }
	pred := func(int) bool { return false }
	noop := func(*forkjoin.Worker) {}
	body := func(*forkjoin.Worker, int, int) {}
	leaf := func(*forkjoin.Worker, int, int) int { return 0 }
	add := func(a, b int) int { return a + b }
	// ForIter and ReduceIter check body, buf and combine at the first value the
	// iterator yields (their docs say so): the iterator yields one.
	seq := iter.Seq[int](func(yield func(int) bool) { yield(1) })
	task := func(*forkjoin.Worker) (int, error) { return 0, nil }
	var initTask forkjoin.Task
	initTask.Init(func(*forkjoin.Worker, *forkjoin.Task) {})

	inRun := func(f func(w *forkjoin.Worker)) func() {
		return func() { forkjoin.Run(p, f) }
	}

	cases := []struct {
		call, want string
		f          func()
	}{
		// forkjoin
		{"Run(nil pool)", "nil *pool.Pool", func() { forkjoin.Run(nilPool, noop) }},
		{"Run(nil fn)", "nil function", func() { forkjoin.Run(p, nil) }},
		{"RunCtx(nil ctx)", "nil context", func() { forkjoin.RunCtx(nilCtx, p, func(*forkjoin.Worker) error { return nil }) }},
		{"RunCtx(nil pool)", "nil *pool.Pool", func() { forkjoin.RunCtx(ctx, nilPool, func(*forkjoin.Worker) error { return nil }) }},
		{"RunCtx(nil fn)", "nil function", func() { forkjoin.RunCtx(ctx, p, nil) }},
		{"Join(nil a)", "nil function", inRun(func(w *forkjoin.Worker) { forkjoin.Join(w, nil, noop) })},
		{"Join(nil Worker)", "nil *Worker", func() { forkjoin.Join(nil, noop, noop) }},
		{"For(n < 0)", "negative n", inRun(func(w *forkjoin.Worker) { forkjoin.For(w, -1, 0, body) })},
		{"For(grain < 0)", "negative grain", inRun(func(w *forkjoin.Worker) { forkjoin.For(w, 1, -1, body) })},
		{"For(nil body)", "nil body", inRun(func(w *forkjoin.Worker) { forkjoin.For(w, 1, 0, nil) })},
		{"Reduce(n < 0)", "negative n", inRun(func(w *forkjoin.Worker) { forkjoin.Reduce(w, -1, 0, leaf, add) })},
		{"Reduce(nil leaf)", "nil leaf", inRun(func(w *forkjoin.Worker) { forkjoin.Reduce(w, 1, 0, nil, add) })},
		{"Reduce(nil combine)", "nil combine", inRun(func(w *forkjoin.Worker) { forkjoin.Reduce(w, 1, 0, leaf, nil) })},
		{"ForEach(grain < 0)", "negative grain", inRun(func(w *forkjoin.Worker) {
			forkjoin.ForEach(w, []int{1}, -1, func(*forkjoin.Worker, int, *int) {})
		})},
		{"ForEach(nil body)", "nil body", inRun(func(w *forkjoin.Worker) { forkjoin.ForEach[int](w, nil, 0, nil) })},
		{"MapReduce(nil mapf)", "nil mapf", inRun(func(w *forkjoin.Worker) { forkjoin.MapReduce[int, int](w, nil, 0, nil, add) })},
		{"ForIter(nil seq)", "nil seq", inRun(func(w *forkjoin.Worker) { forkjoin.ForIter(w, nil, 0, func(*forkjoin.Worker, int) {}) })},
		{"ForIter(buf < 0)", "negative buf", inRun(func(w *forkjoin.Worker) { forkjoin.ForIter(w, seq, -1, func(*forkjoin.Worker, int) {}) })},
		{"ReduceIter(nil combine)", "nil combine", inRun(func(w *forkjoin.Worker) {
			forkjoin.ReduceIter(w, seq, 0, func(*forkjoin.Worker, int) int { return 0 }, nil)
		})},
		{"Scope(nil fn)", "nil function", inRun(func(w *forkjoin.Worker) { forkjoin.Scope(w, nil) })},
		{"ScopeCtx(nil ctx)", "nil context", inRun(func(w *forkjoin.Worker) { forkjoin.ScopeCtx(nilCtx, w, func(*forkjoin.Spawner) {}) })},
		{"Spawner.Spawn(nil fn)", "nil function", inRun(func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.Spawner) { s.Spawn(w, nil) })
		})},
		{"NewGroup(nil ctx)", "nil context", func() { forkjoin.NewGroup(nilCtx, p) }},
		{"NewGroup(nil pool)", "nil *pool.Pool", func() { forkjoin.NewGroup(ctx, nilPool) }},
		{"Group.Go(nil fn)", "nil function", func() {
			g, _ := forkjoin.NewGroup(ctx, p)
			defer g.Wait()
			g.Go(nil)
		}},
		{"Group.GoWorker(nil fn)", "nil function", func() {
			g, _ := forkjoin.NewGroup(ctx, p)
			defer g.Wait()
			g.GoWorker(nil)
		}},
		{"Spawn(nil pool)", "nil *pool.Pool", func() { forkjoin.Spawn(nilPool, task) }},
		{"Spawn(nil fn)", "nil function", func() { forkjoin.Spawn[int](p, nil) }},
		{"Handle.Wait(nil ctx)", "nil context", func() { forkjoin.Spawn(p, task).Wait(nilCtx) }},
		{"WithContext(nil)", "nil context", func() { forkjoin.WithContext(nilCtx) }},
		{"WithPriority(bad)", "Priority", func() { forkjoin.WithPriority(99) }},
		{"Submit(nil pool)", "nil *pool.Pool", func() { forkjoin.Submit(nilPool, &initTask) }},
		{"Submit(nil task)", "nil *Task", func() { forkjoin.Submit(p, nil) }},
		{"Submit(Task without Init)", "without Init", func() { forkjoin.Submit(p, new(forkjoin.Task)) }},
		{"Submit(WithContext)", "WithContext", func() { forkjoin.Submit(p, &initTask, forkjoin.WithContext(ctx)) }},
		{"SubmitBatch(nil pool)", "nil *pool.Pool", func() { forkjoin.SubmitBatch(nilPool, new(forkjoin.Batch)) }},
		{"SubmitBatch(nil batch)", "nil *Batch", func() { forkjoin.SubmitBatch(p, nil) }},
		{"Task.Init(nil)", "nil function", func() { new(forkjoin.Task).Init(nil) }},
		{"NewFork(nil)", "nil function", func() { forkjoin.NewFork[int, int](nil) }},
		{"AddNode(nil graph)", "nil *Graph", func() { forkjoin.AddNode(nil, task, nil) }},
		{"AddNode(nil fn)", "nil function", func() { forkjoin.AddNode[int](forkjoin.NewGraph(), nil, nil) }},
		{"Graph.Run(nil pool)", "nil *pool.Pool", func() { forkjoin.NewGraph().Run(nilPool) }},
		{"Graph.RunCtx(nil ctx)", "nil context", func() { forkjoin.NewGraph().RunCtx(nilCtx, p) }},

		// fold
		{"fold.New(nil init)", "init", func() { fold.New[int, int, int](nil, ok.Accumulate, ok.Finalize) }},
		{"fold.New(nil accumulate)", "accumulate", func() { fold.New(ok.Init, nil, ok.Finalize) }},
		{"fold.New(nil finalize)", "finalize", func() { fold.New(ok.Init, ok.Accumulate, nil) }},
		{"fold.NewErr(nil init)", "init", func() { fold.NewErr[int, int, int](nil, okErr.Accumulate, okErr.Finalize) }},
		{"fold.Run(nil pool)", "nil *pool.Pool", func() { fold.Run(nilPool, ok, g, 0) }},
		{"fold.Run(zero Fold)", "Fold.Init", func() { fold.Run(p, zero, g, 0) }},
		{"fold.Run(nil children)", "children", func() { fold.Run(p, ok, nilG, 0) }},
		{"fold.RunCtx(nil ctx)", "nil context", func() { fold.RunCtx(nilCtx, p, ok, g, 0) }},
		{"fold.RunCtx(nil pool)", "nil *pool.Pool", func() { fold.RunCtx(ctx, nilPool, ok, g, 0) }},
		{"fold.RunCtx(zero Fold)", "Fold.Init", func() { fold.RunCtx(ctx, p, zero, g, 0) }},
		{"fold.RunCtx(nil children)", "children", func() { fold.RunCtx(ctx, p, ok, nilG, 0) }},
		{"fold.RunErr(nil ctx)", "nil context", func() { fold.RunErr(nilCtx, p, okErr, g, 0) }},
		{"fold.RunErr(nil pool)", "nil *pool.Pool", func() { fold.RunErr(ctx, nilPool, okErr, g, 0) }},
		{"fold.RunErr(zero FoldErr)", "FoldErr.Init", func() { fold.RunErr(ctx, p, zeroErr, g, 0) }},
		{"fold.RunDAG(nil ctx)", "nil context", func() { fold.RunDAG(nilCtx, p, ok, g, 0, id) }},
		{"fold.RunDAG(nil pool)", "nil *pool.Pool", func() { fold.RunDAG(ctx, nilPool, ok, g, 0, id) }},
		{"fold.RunDAG(zero Fold)", "Fold.Init", func() { fold.RunDAG(ctx, p, zero, g, 0, id) }},
		{"fold.RunDAG(nil key)", "key", func() { fold.RunDAG[int, int, int, int](ctx, p, ok, g, 0, nil) }},
		{"fold.Seq(zero Fold)", "Fold.Init", func() { fold.Seq(zero, g, 0) }},
		{"fold.SeqErr(zero FoldErr)", "FoldErr.Init", func() { fold.SeqErr(zeroErr, g, 0) }},
		{"fold.SeqErr(nil children)", "children", func() { fold.SeqErr(okErr, nilG, 0) }},
		{"fold.SeqDAG(zero Fold)", "Fold.Init", func() { fold.SeqDAG(zero, g, 0, id) }},
		{"fold.SeqDAG(nil key)", "key", func() { fold.SeqDAG[int, int, int, int](ok, g, 0, nil) }},
		{"fold.Finished.Run(zero Fold)", "Fold.Init", func() { fold.Finish(zero, id).Run(p, g, 0) }},

		// tree
		{"tree.Walk(nil pool)", "nil *pool.Pool", func() { tree.Walk(nilPool, g, 0, visit) }},
		{"tree.Walk(nil children)", "children", func() { tree.Walk(p, nilG, 0, visit) }},
		{"tree.Walk(nil visit)", "nil visit", func() { tree.Walk(p, g, 0, nil) }},
		{"tree.WalkCtx(nil ctx)", "nil context", func() { tree.WalkCtx(nilCtx, p, g, 0, visitErr) }},
		{"tree.WalkCtx(nil children)", "children", func() { tree.WalkCtx(ctx, p, nilG, 0, visitErr) }},
		{"tree.WalkCtx(nil visit)", "nil visit", func() { tree.WalkCtx(ctx, p, g, 0, nil) }},
		{"tree.Count(nil pool)", "nil *pool.Pool", func() { tree.Count(nilPool, g, 0) }},
		{"tree.Count(nil children)", "children", func() { tree.Count(p, nilG, 0) }},
		{"tree.Find(nil children)", "children", func() { tree.Find(p, nilG, 0, pred) }},
		{"tree.Find(nil pred)", "nil pred", func() { tree.Find(p, g, 0, nil) }},
		{"tree.WalkSeq(nil children)", "children", func() { tree.WalkSeq(nilG, 0, pred) }},
		{"tree.WalkSeq(nil visit)", "nil visit", func() { tree.WalkSeq(g, 0, nil) }},
		{"tree.CountSeq(nil children)", "children", func() { tree.CountSeq(nilG, 0) }},
		{"tree.FindSeq(nil pred)", "nil pred", func() { tree.FindSeq(g, 0, nil) }},
		{"tree.All(nil children)", "children", func() { tree.All(nilG, 0) }},
		{"tree.FromSlice(nil)", "nil children", func() { tree.FromSlice[int](nil) }},
		{"tree.FromIter(nil)", "nil children", func() { tree.FromIter[int](nil) }},
		{"tree.Filter(nil keep)", "nil keep", func() { tree.Filter(g, nil) }},
		{"tree.Map(nil to)", "nil to", func() { tree.Map[int, int](g, nil, id) }},
		{"tree.Contramap(nil project)", "nil project", func() { tree.Contramap[int, int](g, nil, func(int, int) int { return 0 }) }},
		{"tree.Memoize(nil key)", "nil key", func() { tree.Memoize[int, int](g, nil) }},

		// pool
		{"pool.New(n < 0)", "negative", func() { pool.New(-1) }},
		{"pool.With(n < 0)", "negative", func() { pool.With(-1, func(*pool.Pool) {}) }},
		{"pool.With(nil fn)", "nil function", func() { pool.With(1, nil) }},
	}
	for _, c := range cases {
		msg := panicMessage(c.f)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: panicked with %q, want a message naming the argument (%q)", c.call, msg, c.want)
		}
	}
}

// panicMessage calls f and returns what it panicked with, as text (the
// message inside a *PanicError for a panic re-raised by Run), or
// "<no panic>".
func panicMessage(f func()) (msg string) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		var pe *forkjoin.PanicError
		if err, ok := v.(error); ok && errors.As(err, &pe) {
			v = pe.Value
		}
		msg = fmt.Sprint(v)
	}()
	f()
	return "<no panic>"
}

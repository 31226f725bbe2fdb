// Package forkjoin is the work-stealing core: fork-join parallelism on a
// pool's workers, with the calling goroutine taking part.
//
//	pool.With(0, func(p *pool.Pool) {
//		forkjoin.Run(p, func(w *forkjoin.Worker) {
//			total = sum.Call(w, root) // sum is a *forkjoin.Fork
//		})
//	})
//
// The pieces:
//
//   - Run and RunCtx start a run: the root function runs on the calling
//     goroutine with a *Worker, and the call returns when everything forked
//     from it has finished. Any number of goroutines may run at once on one
//     pool, and a task may start a nested run.
//   - Fork[A, R] is the typed fork: NewFork(fn), then f.Join(w, a, b) runs
//     fn(f, w, a) and fn(f, w, b) in parallel, or f.Start(w, a) returns a
//     Future to Join later. fn receives its own Fork, so its recursion
//     forks through a parameter: no package variable set in init. Forking allocates nothing and touches no shared
//     memory until another participant asks for work. The cheapest form is
//     a Future in the function's own recursion, with a pointer argument:
//     Start and Future.Join are then inlined into it (example below).
//   - Join(w, a, b) runs two closures in parallel (convenient; each closure
//     that captures variables is a heap allocation).
//   - For and Reduce split an index range on demand; ForEach and MapReduce
//     do the same over a slice, ForSeq and ReduceSeq over an iter.Seq
//     (read in buffers, each forked while the next fills).
//   - Group is errgroup on the core: tasks that return errors, the first
//     failure wins and cancels the others' context, Wait returns it and
//     helps run tasks meanwhile. Scope is its panicking form, for tasks
//     without errors; Spawn runs a task of its own with a Handle.
//   - Task, Submit and SubmitBatch run intrusive tasks that live in the
//     caller's memory: nothing is allocated per task.
//
// Tree-sum, forking at every node, with a Future:
//
//	func sum(f *forkjoin.Fork[*Node, int64], w *forkjoin.Worker, n *Node) int64 {
//		if n == nil {
//			return 0
//		}
//		right := f.Start(w, n.Right) // another worker may take it
//		left := sum(f, w, n.Left)
//		return n.Value + left + right.Join(w)
//	}
//
//	var sumFork = forkjoin.NewFork(sum) // or forkjoin.NewFork(sum).Call(w, root) in the run
//
// Errors and panics follow one rule, here and in packages fold and tree:
// every function with an error result reports through it what fails at
// run time (a callback's error, a cancellation, a cycle, a panic in work
// run on a pool as a *PanicError), every function without one panics
// with the same on the caller's goroutine, and a programming error (a nil
// function, pool or context, a negative count) panics at the call,
// whichever the kind of function (see docs/guarantees.md).
//
// Panics in any task are recovered where they happen and cancel the run;
// the *PanicError keeps the original value and stack. Cancellation through
// a context stops new tasks from starting; running ones finish. Once a run
// has returned, the pool holds nothing of it: what it forked or pushed,
// and its Scopes' tasks, become garbage as soon as the caller drops them
// (a task spawned with a Handle lives until it has run).
//
// See docs/architecture.md for how it works and docs/BENCHMARKS.md for what
// it costs.
package forkjoin

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
//     the recursion calls itself for one half, and Future.Join is inlined
//     into it (example below).
//   - Join(w, a, b) runs two closures in parallel (convenient; each closure
//     that captures variables is a heap allocation).
//   - For and Reduce split an index range on demand; ForEach and MapReduce
//     do the same over a slice, ForIter and ReduceIter over an iter.Seq
//     (read in buffers, each forked while the next fills).
//   - Group is errgroup on the pool: made, fed and waited for from any
//     goroutine; tasks that return errors, the first failure wins and
//     cancels the others' context, Wait returns it and helps run tasks
//     meanwhile. Tasks may block on each other as goroutines do. Scope is
//     its panicking form, for tasks without errors, spawned from a task;
//     Spawn runs a task of its own with a Handle.
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
// Runs show up in Go's own tools: the work a run's participants do carries
// the pprof labels of the run's context (RunCtx, a Group's context, Spawn
// WithContext, ...; use them inside pprof.Do), and with an execution trace
// on, each run is a trace task named after its entry point with a region
// per goroutine's share. pool.Stats gives the counters. See
// docs/observability.md.
//
// See docs/architecture.md for how it works and docs/BENCHMARKS.md for what
// it costs.
package forkjoin

// The files of this package, for a maintainer, in the order to read them
// (each opens with what it holds and why its algorithm is correct):
//
// The design.
//   - scheduler.go: participants, lazy publication (a fork is shared only
//     when someone asks), sleep and wake-up, the scheduler's state word.
//   - worker.go: the Worker, what a participant owns.
//   - task.go: the task header, what queues hold and thieves see.
//   - internal/deque: the one ring, the Chase–Lev deque of published forks
//     and the spawn queue of spawned tasks.
//
// Forks.
//   - fork.go: Fork, NewFork, Fork.Join and the fork stack's entries.
//   - forkword.go: forks whose argument is one machine word.
//   - forkslab.go: slabs, where other forks keep argument and result.
//   - future.go: Fork.Start and Future.Join.
//   - publish.go: the owner's side of a request: publishing its oldest fork.
//   - for.go, loops.go: For and Reduce over ranges, slices and iterators.
//
// Finding, running and waiting for work.
//   - scan.go: the one scan, in priority order, over every place a task
//     can wait; priority.go: priorities and the injector.
//   - boundary.go: the task boundary (execute): runs, panics, cleanup.
//   - help.go: waiting without blocking (helping), and the one park.
//   - serve.go: a pool worker's loop and the pacing of its search.
//   - run.go: Run, RunCtx and the state a run's participants share.
//
// Spawned tasks.
//   - spawn.go: what every spawned task shares and how one runs.
//   - slack.go: counting tasks in and out without contended atomics.
//   - spawnoptions.go, handle.go (Spawn), scope.go (Scope, Spawner),
//     scopetask.go (their recycled structs), lifo.go (the LIFO slot),
//     submit.go (Task, Submit, Batch), drain.go (Close's drain).
//   - group.go, grouplane.go: Group, and the lane its tasks wait in.
//   - family.go: which spawned tasks a waiting participant may run.
//   - compensate.go: extra goroutines while the participants are held up
//     in tasks that block. participants.go: the list of participants.
//   - graph.go, graphrun.go: Graph, built then run.
//
// Edges.
//   - observe.go: pprof labels and trace regions of a run's work.
//   - panic.go: PanicError. misuse*.go, closecheck.go: catching a Worker
//     used by the wrong goroutine and Close from inside the pool.
//   - plumbing.go: what packages built on the core (internal/walk, fold)
//     call through internal/core.
//   - osyield_*.go: the thread yield of a long search.

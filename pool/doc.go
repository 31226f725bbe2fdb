// Package pool owns forkjoin's worker goroutines: a persistent pool of
// parallelism n (the goroutine that runs work counts as one participant, so
// a pool has n-1 background workers), started lazily and stopped and joined
// by Close or at the end of With.
//
//	pool.With(0, func(p *pool.Pool) { // 0: GOMAXPROCS
//		forkjoin.Run(p, func(w *forkjoin.Worker) { ... })
//	})
//
// Most programs only create a pool and hand it to the forkjoin, fold and
// tree packages. The lower-level methods (Dispatch, Pin, WakeOne, Attach)
// are what those layers are built on: Dispatch runs a dispatch.Job on the
// workers while the caller works too, and returns only when no worker is
// inside the job any more.
//
// Guarantees: no goroutine of a pool outlives With or Close; a pool that was
// never used started none; a worker that cannot be started (see WithSpawn)
// is counted and tolerated; n < 0, a nil pool and use after Close panic with
// a message that says so.
package pool

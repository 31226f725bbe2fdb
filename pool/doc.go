// Package pool owns forkjoin's worker goroutines: a persistent pool of
// parallelism n (the goroutine that runs work counts as one participant, so
// a pool has n-1 background workers), started lazily and stopped and joined
// by Close or at the end of With.
//
//	pool.With(0, func(p *pool.Pool) { // 0: GOMAXPROCS
//		forkjoin.Run(p, func(w *forkjoin.Worker) { ... })
//	})
//
// A program creates a pool, hands it to the forkjoin, fold and tree
// packages, reads its Stats, and closes it. How those packages run their
// work on the workers (the dispatch.Job, the work-stealing scheduler kept
// on the pool) is internal to this module.
//
// Guarantees: no goroutine of a pool outlives With or Close; a pool that was
// never used started none; a worker that cannot be started (see WithSpawn)
// is counted and tolerated; n < 0, a nil pool and use after Close panic with
// a message that says so.
package pool

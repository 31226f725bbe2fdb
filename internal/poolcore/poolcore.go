// Package poolcore is the implementation of package pool's Pool, and what
// the layer built on a pool (the work-stealing core in package forkjoin)
// does with its workers beyond what a user calls: run a dispatch.Job on
// them, pin a job for a long time, wake one more worker, count a run, keep
// its per-pool state on the pool.
//
// pool.Pool is a defined type over Pool (type Pool poolcore.Pool), so the
// two share their memory: package pool gives users their methods (New,
// Close, Stats, ...) and a layer converts the *pool.Pool it is handed,
// (*poolcore.Pool)(p), to reach the methods here, which are not in
// pool.Pool's method set. The dependency is an ordinary import of this
// package by both, with no registration and no lookup: a conversion costs
// nothing.
package poolcore

// Attachment is per-pool state that a layer keeps on the pool (the
// work-stealing core keeps its scheduler). The pool's Close calls each
// attachment's Close, in reverse order of attachment, before it stops the
// workers. An attachment that also has a method AddStats(*pool.Stats) adds
// its counters to every snapshot the pool's Stats takes.
type Attachment interface {
	// Close finishes the layer's work on the pool; when it returns the
	// layer no longer needs the workers.
	Close()
}

// Config is what pool.New's options chose.
type Config struct {
	// Spawn starts a worker (pool.WithSpawn); never nil.
	Spawn func(run func()) error
	// LIFOSlot is pool.WithLIFOSlot (see Pool.LIFOSlot).
	LIFOSlot bool
}

package pool

import (
	"fmt"
	"runtime"

	"github.com/forkjoin-go/forkjoin/internal/poolcore"
)

// Pool is a set of persistent worker goroutines plus the goroutine that
// uses it: a pool of parallelism n has n-1 background workers, because the
// caller of a run works too.
//
// Create one with New (and Close it) or scope one with With. All methods
// are safe for concurrent use.
//
// (Pool is defined over the module's internal implementation, so that the
// packages that run work on a pool reach it without widening Pool's
// method set; see docs/architecture.md.)
type Pool poolcore.Pool

func (p *Pool) core() *poolcore.Pool { return (*poolcore.Pool)(p) }

// New starts a pool of parallelism n: the goroutine that runs work on it
// plus n-1 background workers, started lazily when work first needs them.
// n == 0 means runtime.GOMAXPROCS(0). n < 0 panics.
//
// A pool must be closed with Close when it is no longer needed; With does
// that for a pool used in one scope.
func New(n int, opts ...Option) *Pool {
	if n < 0 {
		panic(fmt.Sprintf("pool: parallelism n = %d is negative; use 0 for the default (GOMAXPROCS)", n))
	}
	if n == 0 {
		n = DefaultParallelism()
	}
	cfg := poolcore.Config{Spawn: goSpawn}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return (*Pool)(poolcore.New(n, cfg))
}

// DefaultParallelism is the parallelism of a pool created with n == 0:
// runtime.GOMAXPROCS(0), which already reflects the process's CPU affinity
// and quota. The processor's physical core count (cpuid) is not used: on a
// machine with hyper-threads, GOMAXPROCS workers still run faster than one
// per physical core for fork-join work, and a user who wants one worker per
// core can pass PhysicalCores() explicitly.
func DefaultParallelism() int { return runtime.GOMAXPROCS(0) }

// With runs fn with a pool of parallelism n (see New) and closes the pool
// when fn returns or panics: every worker is stopped and joined before With
// returns, or before fn's panic continues with its original value.
func With(n int, fn func(p *Pool), opts ...Option) {
	if fn == nil {
		panic("pool: With called with a nil function")
	}
	p := New(n, opts...)
	defer p.Close()
	fn(p)
}

// Parallelism is the number of goroutines that can work on a run at once:
// the caller plus the background workers.
func (p *Pool) Parallelism() int { return p.core().Parallelism() }

// Workers is the number of background workers the pool may start, n-1.
func (p *Pool) Workers() int { return p.core().Workers() }

// WorkersAlive reports how many background workers are running now (a
// snapshot: workers start lazily and stop only at Close).
func (p *Pool) WorkersAlive() int { return p.core().WorkersAlive() }

// Closed reports whether the pool refuses new work: Close has finished
// the attached layers' work and is stopping the workers, or has stopped
// them. While Close drains (its layers' Close runs every submitted task),
// Closed is still false and work may still be given to the pool, which
// that Close then waits for: a goroutine that keeps submitting work until
// Closed holds Close up as long as it does so.
func (p *Pool) Closed() bool { return p.core().Closed() }

// Close finishes the work on the pool and stops it: the packages that run
// work on it finish that work (submitted tasks run to completion), then
// every worker goroutine is stopped and joined. When Close
// returns no goroutine of the pool is left. Close is idempotent; a second
// call waits for the first to finish. After Close, what would give the
// pool work (the runs, folds, walks and spawns of the packages built on
// it) panics, saying the pool is closed; what only reports (Stats, Closed,
// Parallelism, Workers, WorkersAlive) still answers.
//
// Close must not be called from work running on the pool (a task, a fork,
// a callback of a fold, a Run's root): it waits for that work, so it would
// wait for itself. Such a call panics at once, saying so, and leaves the
// pool open: on one of the pool's workers, on the goroutine of a Close
// that is running the pool's remaining tasks, and (checked by the layer
// that runs work on the goroutine: forkjoin) on a goroutine inside a run of
// the pool. See docs/guarantees.md.
func (p *Pool) Close() { p.core().Close() }

package pool

import (
	"github.com/klauspost/cpuid/v2"

	"github.com/forkjoin-go/forkjoin/internal/poolcore"
)

// Option configures a pool in New or With.
type Option func(*poolcore.Config)

// WithSpawn supplies the function that starts a worker: it must arrange for
// run to be called on a new goroutine and return nil, or return an error
// and not call run. The default is `go run()`. A failed start is counted in
// Stats.SpawnFailures and tolerated: the work completes with the workers
// that exist (the caller alone if need be), and later runs try again.
//
// Use it to name or label worker goroutines (pprof labels), to limit them,
// or to inject failures in tests. If spawn panics, the worker counts as not
// started and the panic reaches the goroutine whose run needed the worker.
func WithSpawn(spawn func(run func()) error) Option {
	return func(c *poolcore.Config) {
		if spawn != nil {
			c.Spawn = spawn
		}
	}
}

// WithLIFOSlot gives the pool's participants a LIFO slot for the tasks
// they spawn. A Normal task spawned by a task (forkjoin's Spawner.Spawn, a
// Graph node made ready by the node that ends) then goes into a one-task
// slot of the spawning participant and runs next there, while its data is
// in that core's cache; the task the slot held goes to the participant's
// queue, and after 3 slot runs in a row the queue's oldest task runs
// before the next.
//
// It suits message passing (a task that spawns its successor and ends) and
// a task that spawns one child and waits for it; a loop that spawns many
// tasks pays an atomic swap per spawn for it (docs/BENCHMARKS.md has the
// figures). Without it, spawned tasks of one participant run in the order
// they were spawned. Either way every spawned task runs exactly once and
// priorities are honoured (a High task never waits behind the slot). Forks,
// loops, folds and walks do not use the slot.
func WithLIFOSlot() Option {
	return func(c *poolcore.Config) { c.LIFOSlot = true }
}

func goSpawn(run func()) error {
	go run()
	return nil
}

// PhysicalCores reports the number of physical cores as read by cpuid, or 0
// if the processor does not say. Pass it to New for one worker per core.
func PhysicalCores() int { return cpuid.CPU.PhysicalCores }

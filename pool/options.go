package pool

import (
	"github.com/klauspost/cpuid/v2"
)

// Option configures a pool in New or With.
type Option func(*config)

type config struct {
	spawn func(run func()) error
}

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
	return func(c *config) {
		if spawn != nil {
			c.spawn = spawn
		}
	}
}

func goSpawn(run func()) error {
	go run()
	return nil
}

// PhysicalCores reports the number of physical cores as read by cpuid, or 0
// if the processor does not say. Pass it to New for one worker per core.
func PhysicalCores() int { return cpuid.CPU.PhysicalCores }

package forkjoin

// The options of spawned and submitted tasks: a priority and a context.
//
// Options are functions that set a spawnConfig. The config a closure
// writes through escapes to the heap, so the functions that take options
// look at their number first and build a config only when there are some:
// a spawn without options allocates nothing for them.

import "context"

// SpawnOption configures a spawned task.
type SpawnOption func(*spawnConfig)

// spawnConfig is what options set: the values a spawned task starts with.
type spawnConfig struct {
	prio Priority
	ctx  context.Context
}

// WithPriority sets a spawned task's priority (default Normal).
func WithPriority(p Priority) SpawnOption {
	p.check()
	return func(c *spawnConfig) { c.prio = p }
}

// WithContext ties a spawned task to ctx: if ctx is done before the task
// starts, it is skipped and its handle reports ctx.Err(); once it runs, its
// Worker's Context is ctx and its forks stop when ctx is done (the task
// then unwinds, and its handle reports ctx.Err()). A task that returns is
// over with what it returned, even if ctx was done meanwhile.
func WithContext(ctx context.Context) SpawnOption {
	if ctx == nil {
		panic("forkjoin: WithContext with a nil context")
	}
	return func(c *spawnConfig) { c.ctx = ctx }
}

// spawnOptions returns the config that opts make, the default for none.
func spawnOptions(opts []SpawnOption) spawnConfig {
	if len(opts) == 0 {
		return spawnConfig{prio: Normal}
	}
	return spawnOptionsSlow(opts)
}

// spawnOptionsSlow applies opts; its config escapes to them, so it is kept off
// the common path.
func spawnOptionsSlow(opts []SpawnOption) spawnConfig {
	c := spawnConfig{prio: Normal}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// submitPriority is the priority of Submit's or SubmitBatch's options
// (who names the caller in a panic's message).
func submitPriority(who string, opts []SpawnOption) Priority {
	c := spawnOptions(opts)
	if c.ctx != nil {
		panic("forkjoin: " + who + " with WithContext: a submitted Task has no context")
	}
	return c.prio
}

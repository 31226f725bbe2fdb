package core

import (
	"context"

	"github.com/forkjoin-go/forkjoin/pool"
)

// runner is forkjoin's run with an entry point's name
// (func(ctx context.Context, p *pool.Pool, name string, fn func(w *W) error) error).
var runner any

// RegisterRun is called once, by package forkjoin at init, with its run.
func RegisterRun[W any](run func(ctx context.Context, p *pool.Pool, name string, fn func(w *W) error) error) {
	if runner != nil {
		panic("core: RegisterRun called twice")
	}
	runner = run
}

// Run runs fn as the root task of a run on p, as forkjoin.RunCtx does, or
// with a nil ctx as forkjoin.Run does but returning the run's failure
// instead of panicking with it. name is the entry point of the package
// built on the core that starts the run ("fold.Run", "tree.Walk", ...):
// the name of the run's trace task and regions in an execution trace.
// It must be a constant.
func Run[W any](ctx context.Context, p *pool.Pool, name string, fn func(w *W) error) error {
	return runner.(func(context.Context, *pool.Pool, string, func(*W) error) error)(ctx, p, name, fn)
}

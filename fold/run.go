package fold

import (
	"context"
	"errors"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// Run folds the tree below root in parallel on p and returns the root's
// result, which equals Seq(f, g, root) for every tree and every fold: each
// node's Accumulate calls happen in child order, after its Init and before
// its Finalize, one at a time, on whichever goroutine owns the node's heap.
//
// The calling goroutine takes part. Each participant folds a subtree by
// recursion as Seq does, and lists the unvisited children on its path
// only when another participant asks for work, to hand it the oldest
// (internal/walk explains how), so a run that nobody helps costs little
// more than Seq; on a pool of parallelism 1, where nobody can ask, Run
// folds with Seq's executor. Depth is limited only by memory (explicit
// stacks, and at most 64 levels of recursion on the goroutine stack at a
// time), and a node's heap is released as soon as the node is finalised.
//
// A children function that reaches a node again below itself (a cycle)
// stops the run with an error wrapping tree.ErrCycle, re-raised like a
// callback's panic.
//
// A panic in a callback cancels the run and is re-raised here as a
// *forkjoin.PanicError carrying the original value and stack. Run may be
// called from several goroutines at once on one pool, and from inside a
// callback of another run.
func Run[N, H, R any](p *pool.Pool, f Fold[N, H, R], g tree.Treeish[N], root N) R {
	mustCheck("fold.Run", f, g)
	var res R
	err := core.Run(nil, p, "fold.Run", func(w *forkjoin.Worker) error {
		res = runOn(w, f, g, root)
		return nil
	})
	if err != nil {
		panic(err)
	}
	return res
}

// runOn folds the tree below root on w's run. A pool of parallelism 1 has
// no other participant to hand children to, so its runs take the
// sequential executor, which recurses near the root and keeps no buffer of
// children (Seq's), looking before every node at the run's canceled
// flag and every 256 nodes at its context, as the walk does; other pools
// walk (internal/walk).
func runOn[N, H, R any](w *forkjoin.Worker, f Fold[N, H, R], g tree.Treeish[N], root N) R {
	if w.Parallelism() > 1 {
		return walk.Run(w, opsOf(f, g), root)
	}
	s := takeSeqFolder(f, g)
	s.w, s.canceled, s.ticks = w, core.RunOf(w).CanceledFlag(), 0
	if s.deep != nil {
		s.deep.w, s.deep.canceled = w, s.canceled
	}
	r := s.run(root) // if it panics, s is dropped
	putSeqFolder(s)
	return r
}

// RunCtx is Run with a context: once ctx is done, no new node is started,
// callbacks already running finish, and RunCtx returns ctx.Err(). A panic
// in a callback is returned as a *forkjoin.PanicError.
func RunCtx[N, H, R any](ctx context.Context, p *pool.Pool, f Fold[N, H, R], g tree.Treeish[N], root N) (R, error) {
	if ctx == nil {
		panic("fold: RunCtx with a nil context")
	}
	mustCheck("fold.RunCtx", f, g)
	return runCtx(ctx, p, "fold.RunCtx", f, g, root)
}

// runCtx is RunCtx for the entry point name (the name of the run in
// execution traces).
func runCtx[N, H, R any](ctx context.Context, p *pool.Pool, name string, f Fold[N, H, R], g tree.Treeish[N], root N) (R, error) {
	var res R
	err := core.Run(ctx, p, name, func(w *forkjoin.Worker) error {
		res = runOn(w, f, g, root)
		return nil
	})
	if err != nil {
		var zero R
		return zero, err
	}
	return res, nil
}

// RunErr is the parallel SeqErr: the first error a callback returns stops
// the fold (no new node starts; callbacks already running finish) and is
// returned as it is.
func RunErr[N, H, R any](ctx context.Context, p *pool.Pool, f FoldErr[N, H, R], g tree.Treeish[N], root N) (R, error) {
	var zero R
	if ctx == nil {
		panic("fold: RunErr with a nil context")
	}
	mustCheckErr("fold.RunErr", f, g)
	var res R
	err := core.Run(ctx, p, "fold.RunErr", func(w *forkjoin.Worker) error {
		res = runErrOn(w, f, g, root)
		return nil
	})
	if err != nil {
		var pe *forkjoin.PanicError
		if errors.As(err, &pe) {
			if ce, ok := pe.Value.(callbackError); ok {
				return zero, ce.err
			}
		}
		return zero, err
	}
	return res, nil
}

// runErrOn is runOn for a FoldErr. A failing callback stops the run with
// its error: on a pool of parallelism 1 it panics with callbackError,
// which the core records as the run's failure (a *forkjoin.PanicError);
// a walk stops with walk.Ops.Stop, which makes the error itself the run's
// failure without recording a panic, so that the other participants are
// told at once.
func runErrOn[N, H, R any](w *forkjoin.Worker, f FoldErr[N, H, R], g tree.Treeish[N], root N) R {
	fail := func(err error) { panic(callbackError{err}) }
	var ops *walk.Ops[N, H, R]
	if w.Parallelism() > 1 {
		ops = &walk.Ops[N, H, R]{Children: g.Each, Slice: g.SliceFunc()}
		fail = ops.Stop
	}
	lifted := Fold[N, H, R]{
		Init: func(n N) H {
			h, err := f.Init(n)
			if err != nil {
				fail(err)
			}
			return h
		},
		Accumulate: func(h *H, c R) {
			if err := f.Accumulate(h, c); err != nil {
				fail(err)
			}
		},
		Finalize: func(h *H) R {
			r, err := f.Finalize(h)
			if err != nil {
				fail(err)
			}
			return r
		},
	}
	if ops == nil {
		return runOn(w, lifted, g, root)
	}
	ops.Init, ops.Accumulate, ops.Finalize = lifted.Init, lifted.Accumulate, lifted.Finalize
	return walk.Run(w, ops, root)
}

// callbackError carries a FoldErr callback's error through the core.
type callbackError struct{ err error }

func opsOf[N, H, R any](f Fold[N, H, R], g tree.Treeish[N]) *walk.Ops[N, H, R] {
	return &walk.Ops[N, H, R]{Init: f.Init, Accumulate: f.Accumulate, Finalize: f.Finalize,
		Children: g.Each, Slice: g.SliceFunc()}
}

// Run is fold.Run of f.Fold with f.Root applied to the root's result.
func (f Finished[N, H, R, O]) Run(p *pool.Pool, g tree.Treeish[N], root N) O {
	return f.Root(Run(p, f.Fold, g, root))
}

// RunCtx is fold.RunCtx of f.Fold with f.Root applied to the root's
// result.
func (f Finished[N, H, R, O]) RunCtx(ctx context.Context, p *pool.Pool, g tree.Treeish[N], root N) (O, error) {
	r, err := RunCtx(ctx, p, f.Fold, g, root)
	if err != nil {
		var zero O
		return zero, err
	}
	return f.Root(r), nil
}

package tree

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/pool"
)

// The parallel walks run on the same engine as fold.Run (internal/walk):
// an explicit stack per participant, with at most 64 levels of recursion
// at a time, so depth is limited only by memory; unvisited children are
// handed to other participants when they ask for work.

// Walk calls visit once for every node of the tree below root (root
// included), in parallel on p. Calls for different nodes may run at the
// same time and in any order; a node is visited before its children. A
// panic in visit or g cancels the walk and is re-raised as a
// *forkjoin.PanicError.
func Walk[N any](p *pool.Pool, g Treeish[N], root N, visit func(N)) {
	mustFuncs("Walk", []string{"g", "visit"}, g.IsZero(), visit == nil)
	ops := &walk.Ops[N, struct{}, struct{}]{
		Init:       func(n N) struct{} { visit(n); return struct{}{} },
		Accumulate: func(*struct{}, struct{}) {},
		Finalize:   func(*struct{}) struct{} { return struct{}{} },
		Children:   g.each,
		Slice:      g.slice,
	}
	run(nil, p, "tree.Walk", func(w *forkjoin.Worker) { walk.Run(w, ops, root) })
}

// run runs fn as the root of a run on p for the entry point name, with
// ctx (nil for none, as forkjoin.Run), and re-panics with the run's
// failure.
func run(ctx context.Context, p *pool.Pool, name string, fn func(w *forkjoin.Worker)) {
	if err := core.Run(ctx, p, name, func(w *forkjoin.Worker) error {
		fn(w)
		return nil
	}); err != nil {
		panic(err)
	}
}

// WalkCtx is Walk with a context and a fallible visit: the first error
// visit returns, or ctx's error once ctx is done, stops the walk and is
// returned. Visits already running finish; no participant starts a new
// one once it has seen the walk stopped, which it looks at before every
// node (docs/guarantees.md, §6, says how soon it sees it).
func WalkCtx[N any](ctx context.Context, p *pool.Pool, g Treeish[N], root N, visit func(N) error) error {
	if ctx == nil {
		panic("tree: WalkCtx with a nil context")
	}
	mustFuncs("WalkCtx", []string{"g", "visit"}, g.IsZero(), visit == nil)
	ops := &walk.Ops[N, struct{}, struct{}]{
		Accumulate: func(*struct{}, struct{}) {},
		Finalize:   func(*struct{}) struct{} { return struct{}{} },
		Children:   g.each,
		Slice:      g.slice,
	}
	ops.Init = func(n N) struct{} {
		if err := visit(n); err != nil {
			ops.Stop(err) // the run's failure, which RunCtx returns
		}
		return struct{}{}
	}
	return core.Run(ctx, p, "tree.WalkCtx", func(w *forkjoin.Worker) error {
		walk.Run(w, ops, root)
		return nil
	})
}

// Count returns the number of nodes of the tree below root (root
// included), counted in parallel on p.
func Count[N any](p *pool.Pool, g Treeish[N], root N) int {
	mustFuncs("Count", []string{"g"}, g.IsZero())
	ops := &walk.Ops[N, int, int]{
		Init:       func(N) int { return 1 },
		Accumulate: func(h *int, c int) { *h += c },
		Finalize:   func(h *int) int { return *h },
		Children:   g.each,
		Slice:      g.slice,
	}
	var n int
	run(nil, p, "tree.Count", func(w *forkjoin.Worker) { n = walk.Run(w, ops, root) })
	return n
}

// Find searches the tree below root in parallel on p for a node for which
// pred returns true, and stops the walk once one is found, as WalkCtx
// stops at an error: calls of pred already running finish, and no new one
// starts once a participant has seen the walk stopped. With several
// matching nodes, which one is returned is not specified. It returns
// false if no node matches.
func Find[N any](p *pool.Pool, g Treeish[N], root N, pred func(N) bool) (N, bool) {
	mustFuncs("Find", []string{"g", "pred"}, g.IsZero(), pred == nil)
	var (
		found  atomic.Bool
		result N
	)
	ops := &walk.Ops[N, struct{}, struct{}]{
		Accumulate: func(*struct{}, struct{}) {},
		Finalize:   func(*struct{}) struct{} { return struct{}{} },
		Children:   g.each,
		Slice:      g.slice,
	}
	ops.Init = func(n N) struct{} {
		if pred(n) && found.CompareAndSwap(false, true) {
			result = n
			ops.Stop(errFound)
		}
		return struct{}{}
	}
	err := core.Run(context.Background(), p, "tree.Find", func(w *forkjoin.Worker) error {
		walk.Run(w, ops, root)
		return nil
	})
	if err != nil && err != errFound {
		panic(err)
	}
	return result, found.Load()
}

// errFound stops a Find's walk once a match is found.
var errFound = errors.New("tree: found")

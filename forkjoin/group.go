package forkjoin

// Group: errgroup's contract on the work-stealing core. A Group is a Scope
// (scope.go) whose first failure cancels a context its tasks receive, and
// whose tasks wait in the group lane (grouplane.go) so that a task that
// blocks never sits on top of the code it waits for.

import (
	"context"
	"errors"
)

// A Group is a set of tasks that return errors, run on the pool's workers
// as the tasks of a Scope: the first error (or panic, as a *PanicError)
// wins, cancels the context the other tasks receive, skips the tasks not
// yet started, and is what Wait returns. It is errgroup.Group on the
// work-stealing core: a task may make a Group of its own and Wait for it
// (nesting), and Wait helps run the pool's tasks rather than block, so
// nested groups never deadlock, even on a pool of parallelism 1.
//
// A Group's task may block, as an errgroup task does: on the group's
// context until another task fails, on a channel, on I/O. Its tasks are
// run only by a pool worker with nothing of its own below them, or by the
// group's Wait, never by a participant that waits for something else (the
// stolen half of a Join, another Scope or Group): a blocked task cannot
// sit on top of the code it waits for. A task that blocks holds its
// worker meanwhile, so tasks that wait for each other need as many
// participants as wait at once, plus one to run the rest (errgroup needs
// a goroutine each).
//
// A Group is made with NewGroup by a task (or a Run's root function), and
// Wait must be called, once, by that same task. From outside the pool,
// make it inside RunCtx.
type Group struct {
	sp     Spawner
	ctx    context.Context
	owner  *Worker
	waited bool
}

// NewGroup returns a Group for tasks spawned from w, the Worker of the
// calling task. The context its tasks receive is derived from ctx and is
// cancelled by the first failure, with that failure as its cause
// (context.Cause), or when Wait returns. A nil ctx panics.
func NewGroup(ctx context.Context, w *Worker) *Group {
	if ctx == nil {
		panic("forkjoin: NewGroup with a nil context")
	}
	w.checkActive()
	gctx, cancel := context.WithCancelCause(ctx)
	g := &Group{ctx: gctx, owner: w}
	g.sp.sched, g.sp.ctx, g.sp.ctxDone, g.sp.cancel = w.sched, gctx, true, cancel
	g.sp.group = true
	g.sp.pending.Add(1) // counted out by Wait
	return g
}

// Go spawns fn as a task of the group, from w: the Worker of the task
// that made the group, or of a task of the group (which may so add more
// tasks). fn receives the group's context and its own Worker. An error it
// returns, or its panic, fails the group (the first failure wins). Go
// after Wait has returned panics (the group is over).
func (g *Group) Go(w *Worker, fn func(ctx context.Context, w *Worker) error) {
	if fn == nil {
		panic("forkjoin: Group.Go with a nil function")
	}
	if g.owner == nil {
		panic("forkjoin: Group.Go on a Group not made by NewGroup")
	}
	if g.sp.done.Done() {
		panic("forkjoin: Group.Go after Wait returned")
	}
	g.sp.Spawn(w, func(w *Worker) {
		if err := fn(g.ctx, w); err != nil {
			g.sp.recordFailure(err)
		}
	})
}

// Wait returns once every task of the group is over, helping to run the
// pool's tasks meanwhile, and returns the group's first failure: the first
// error a task returned, or a *PanicError for a panic, or the context's
// error if the parent context made a task be skipped or stop short. It
// returns nil if every task returned nil. Wait cancels the group's
// context before it returns.
func (g *Group) Wait() error {
	if g.owner == nil {
		panic("forkjoin: Group.Wait on a Group not made by NewGroup")
	}
	if g.waited {
		panic("forkjoin: Group.Wait called twice")
	}
	g.waited = true
	w := g.owner
	g.sp.release(1)               // the count NewGroup made for Wait
	w.waitLane(&g.sp.done, &g.sp) // it may run the group's tasks (grouplane.go)
	g.sp.cancel(errGroupOver)
	return g.sp.err()
}

// errGroupOver is the cause of a Group's context cancelled by Wait.
var errGroupOver = errors.New("forkjoin: Group.Wait returned")

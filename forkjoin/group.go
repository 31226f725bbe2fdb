package forkjoin

// Group: errgroup's contract on the pool.
//
// A Group is a Scope (scope.go) whose tasks return errors: its Spawner
// counts them, keeps the first failure and cancels the group's context
// with it. Go may be called from any goroutine, so it takes no Worker: the
// tasks wait in the group lane (grouplane.go), where only participants at
// their top level and the group's own Wait take them (family.go says why),
// and where a task that blocks is freed by compensation (compensate.go).
//
// Wait becomes a participant of the pool for as long as it waits (as Run's
// caller does), and runs the group's tasks, and those of groups made
// inside them, on its own goroutine. A Wait from inside one of the group's
// own tasks could never return (it waits for the task that called it): it
// is caught by the id of the calling goroutine, which every participant
// that may run a Group's task records (Worker.goid).

import (
	"context"
	"errors"
	"runtime/trace"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/internal/goroutine"
	"github.com/forkjoin-go/forkjoin/pool"
)

// A Group is a set of tasks that return errors, run on a pool: errgroup's
// Group, whose goroutines are the pool's participants. The first error (or
// panic, as a *PanicError) is what Wait returns, and cancels the context
// NewGroup returned. Every function passed to Go runs, even after a
// failure (it sees the context canceled), as in errgroup.
//
// A Group is made, fed and waited for from any goroutine: outside the
// pool's work, or inside a task (a Group made inside a task of another
// Group, from the context that Group gave, is nested in it: the outer
// Wait helps run the inner group's tasks).
//
// Tasks may block, as errgroup's goroutines do: on the group's context
// until a sibling fails, on a channel another task feeds, on a
// sync.WaitGroup, on I/O. A participant runs a Group's task only at its
// top level or in that group's Wait, never underneath unrelated work that
// the task could be waiting for, and when every participant is held up in
// a task while tasks are queued, the pool adds goroutines for as long as
// that lasts (docs/architecture.md, "Tasks that block"). So every program
// that works with errgroup works with a Group, on a pool of any
// parallelism, 1 included.
//
// A zero Group is not usable: make one with NewGroup.
type Group struct {
	sp     Spawner
	ctx    groupContext
	waited atomic.Bool
	trace  *trace.Task // the group's trace task, if a trace was on at NewGroup (observe.go)
}

// groupContext is the context a Group's tasks see: the cancellable
// context derived from NewGroup's, which also answers which Group it is of
// (groupKey), so that a Group, Handle or Graph made from it is nested in
// the Group (familyIn).
type groupContext struct {
	context.Context
	g *Group
}

// groupKey is the key under which a Group's context answers its Group.
type groupKey struct{}

// Value returns the Group for groupKey, and the parent context's values
// otherwise.
func (c *groupContext) Value(key any) any {
	if key == (groupKey{}) {
		return c.g
	}
	return c.Context.Value(key)
}

// NewGroup returns a Group whose tasks run on p, and the context they
// share: derived from ctx, and canceled the first time a task fails
// (with that failure as its cause, see context.Cause) or Wait returns,
// whichever comes first. It is errgroup.WithContext. A nil ctx, a nil or
// closed pool panic.
func NewGroup(ctx context.Context, p *pool.Pool) (*Group, context.Context) {
	if ctx == nil {
		panic("forkjoin: NewGroup with a nil context")
	}
	s := schedulerOf(p)
	g := &Group{}
	// Observed (observe.go) if ctx carries labels or a trace is being
	// recorded: then the group is a trace task, which its context
	// carries, and its tasks' context is the group's, observed.
	ls, traced := labelsOf(ctx), trace.IsEnabled()
	base := ctx
	if traced {
		base, g.trace = trace.NewTask(ctx, "forkjoin.Group")
	}
	inner, cancel := context.WithCancelCause(base)
	g.ctx = groupContext{inner, g}
	var tasks context.Context = &g.ctx
	if ls != nil || traced {
		tasks = &observed{Context: &g.ctx, labels: ls, name: "forkjoin.Group", traced: traced}
	}
	sp := &g.sp
	sp.fam.init(familyIn(ctx, s))
	sp.fam.scope = sp
	sp.sched, sp.ctx, sp.cancel, sp.group = s, tasks, cancel, true
	sp.pending.Add(1) // counted out by Wait
	return g, &g.ctx
}

// Go runs fn as a task of the group: some participant of the pool calls
// it. The first fn to return an error, or to panic (as a *PanicError),
// fails the group: its context is canceled and Wait returns that
// failure. With a limit (SetLimit), Go blocks while the group has that
// many tasks not yet over. Go may be called from any goroutine, and from
// the group's own tasks, until Wait has returned; after that it panics.
func (g *Group) Go(fn func() error) {
	if fn == nil {
		panic("forkjoin: Group.Go with a nil function")
	}
	g.acquire("Go")
	g.spawn(g.body(fn))
}

// body is the task function of fn: it records fn's error as a failure.
func (g *Group) body(fn func() error) func(w *Worker) {
	return func(*Worker) {
		if err := fn(); err != nil {
			g.sp.recordFailure(err)
		}
	}
}

// GoWorker is Go for a task that forks: fn receives the Worker of the
// participant that runs it, for Join, Fork, For, Scope and the folds, and
// the group's context through it (Worker.Context).
func (g *Group) GoWorker(fn func(w *Worker) error) {
	if fn == nil {
		panic("forkjoin: Group.GoWorker with a nil function")
	}
	g.acquire("GoWorker")
	g.spawn(func(w *Worker) {
		if err := fn(w); err != nil {
			g.sp.recordFailure(err)
		}
	})
}

// TryGo is Go unless the group has as many tasks not yet over as its
// limit allows: then it does nothing and reports false.
func (g *Group) TryGo(fn func() error) bool {
	if fn == nil {
		panic("forkjoin: Group.TryGo with a nil function")
	}
	g.check()
	if g.sp.limit != nil {
		select {
		case g.sp.limit <- struct{}{}:
		default:
			return false
		}
	}
	g.spawn(g.body(fn))
	return true
}

// SetLimit limits the group to n tasks not yet over at a time: Go then
// blocks, and TryGo reports false, while n are. A negative n means no
// limit (the default). It must not be called while tasks of the group are
// not over (it panics if it sees some). A limit of zero admits no task:
// TryGo reports false, and Go panics rather than block for ever.
func (g *Group) SetLimit(n int) {
	g.check()
	if g.sp.limit != nil && len(g.sp.limit) != 0 {
		panic("forkjoin: Group.SetLimit while tasks of the group are not over")
	}
	if n < 0 {
		g.sp.limit = nil
		return
	}
	g.sp.limit = make(chan struct{}, n)
}

// acquire checks the group and takes a token of its limit for Go or
// GoWorker (what), blocking while the group is at its limit.
func (g *Group) acquire(what string) {
	g.check()
	if l := g.sp.limit; l != nil {
		if cap(l) == 0 {
			panic("forkjoin: Group." + what + " with a limit of 0 (SetLimit(0) admits no task)")
		}
		l <- struct{}{}
	}
}

// check panics on a nil or zero Group.
func (g *Group) check() {
	if g == nil || g.sp.sched == nil {
		panic("forkjoin: use of a Group not made by NewGroup")
	}
}

// spawn counts a task of body in and queues it in the group lane.
func (g *Group) spawn(body func(w *Worker)) {
	sp := &g.sp
	s := sp.sched
	for {
		// The group's count is not zero until Wait has seen every task
		// over: a Go that finds it zero comes after that, and must not
		// bring it back.
		n := sp.pending.Load()
		if n <= 0 {
			g.refuse()
			panic("forkjoin: Group.Go after Wait returned")
		}
		if sp.pending.CompareAndSwap(n, n+1) {
			break
		}
	}
	s.pending.Add(1) // before the look at the seal (drain.go)
	if !s.groups.spawn(s, sp, body) {
		sp.release(1)
		g.refuse()
		if s.pending.Add(-1) == 0 {
			s.pendingOver()
		}
		panic(errSealed)
	}
	s.spawned.submitted[Normal].Add(1)
	s.wakeForNew()
}

// refuse gives back the token a refused task took.
func (g *Group) refuse() {
	if g.sp.limit != nil {
		<-g.sp.limit
	}
}

// Wait waits for every task of the group to be over and returns the first
// failure: the first error a task returned, or a *PanicError for a panic;
// nil if there was none. It cancels the group's context before it returns.
//
// While it waits, the calling goroutine runs the group's tasks, and those
// of the groups nested in it, as a participant of the pool: outside the
// pool's work as inside a task. Wait may be called once, from any
// goroutine but the group's own tasks: a second Wait, or a Wait from one
// of the group's tasks (which would wait for itself), panics.
func (g *Group) Wait() error {
	g.check()
	me := goroutine.ID()
	g.checkOutside(me)
	sp := &g.sp
	if g.waited.Swap(true) {
		panic("forkjoin: Group.Wait called twice")
	}
	sp.release(1) // the count NewGroup made for Wait
	if !sp.done.Done() {
		runOn(nil, sp.sched, func(w *Worker) error {
			w.goid.Store(me)
			w.waitFam(&sp.done, &sp.fam)
			return nil
		})
	}
	sp.cancel(errGroupOver)
	if g.trace != nil {
		g.trace.End()
	}
	return sp.err()
}

// checkOutside panics if the goroutine me runs one of the group's tasks
// (or a task of a group nested in it) now.
func (g *Group) checkOutside(me uint64) {
	for _, w := range *g.sp.sched.participants.Load() {
		// A participant whose goid is me runs on this goroutine: its run
		// is this goroutine's to read.
		if w.goid.Load() == me && w.run != nil && w.run.fam.within(&g.sp.fam) {
			panic("forkjoin: Group.Wait called from one of the group's own tasks (it would wait for itself)")
		}
	}
}

// errGroupOver is the cause of a Group's context canceled by Wait.
var errGroupOver = errors.New("forkjoin: Group.Wait returned")

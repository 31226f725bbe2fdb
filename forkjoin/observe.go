package forkjoin

// Observing a pool with Go's own tools: pprof labels in profiles, regions
// in execution traces.
//
// A pool's participants run every caller's work on their own goroutines.
// Left alone, a CPU profile would attribute that work to whatever labels
// those goroutines carry (a worker started from inside a labelled caller
// inherits that caller's labels for life), and an execution trace would
// show anonymous goroutines. So a run that is observed says, in its
// context, what its work must show: the pprof labels of its caller, and
// the name of its entry point (forkjoin.Run, fold.Run, forkjoin.Group, ...)
// with the run's trace task. A participant that runs the run's work sets
// its goroutine's labels to the run's while it does, and opens a trace
// region named after the entry point for its share.
//
// What it costs. A run is observed if its context carries pprof labels or
// if an execution trace was being recorded when it began: its entry point
// looks once (observe) and then wraps the run's context in an *observed,
// which Worker.Context returns and which passes everything on to the
// context it wraps; the entry point ends the run's trace task. The rest compares pointers: a participant remembers
// the observed run whose labels and region its goroutine carries
// (Worker.obsNow), and each task it takes from a queue (execute) compares
// the task's run with it, switching only when they differ. Forks that
// their owner joins never reach execute. So a run nobody observes costs one
// look at its start and a comparison per task taken; an observed one, one
// SetGoroutineLabels (and, while tracing, one region) per switch.
//
// Whose labels. Go has no way to read a goroutine's labels, only to set
// them from a context. The goroutines of a pool's workers and compensators
// are the pool's: they start with none (internal/poolcore's workerLoop, compensator),
// carry a run's while they run its work, and none at their top level
// between tasks (settleTop), before they search or park. A caller's
// goroutine (Run's, a Wait's, Close's drain) is the user's, and its labels
// are known only if its run's context carries labels: they are taken to be
// those (they are under pprof.Do, which sets the goroutine's labels from
// the context it hands on), and a task of another run that the caller
// runs while it waits switches to that run's labels and back. A caller
// whose run carries no labels never changes its goroutine's labels: it
// could not put back what it does not know. docs/observability.md says
// which entry points carry labels and how a user gets the others to.
//
// Regions nest as tasks do: a region opened for a task that a waiting
// participant runs ends when that task does. At the top level of a worker
// or compensator the region stays open across its consecutive tasks of
// one run, and ends when it takes another run's task or goes back to its
// top level.

import (
	"context"
	"runtime/pprof"
	"runtime/trace"
)

// observed is the context of an observed run, or of observed spawned
// tasks: the run's context, with what its work shows in profiles and
// traces (see the file comment).
type observed struct {
	// Context is the run's context, with the run's trace task when it has
	// one: what Worker.Context returns.
	context.Context
	labels *labelSet // the labels the run's work carries; nil for none
	name   string    // the entry point, the regions' name
	traced bool      // regions are recorded: a trace was on when the run began
}

// labelSet holds a context whose pprof labels a run's work carries. One
// is shared by every observed context that carries the same labels, so
// that a participant compares labels by the pointer.
type labelSet struct{ ctx context.Context }

// observe returns the context of a run, or of a spawned task, that the
// entry point name begins with ctx (nil for none): a new *observed if ctx
// carries pprof labels or a trace is being recorded, ctx itself
// otherwise. With withTask set and a trace on, the observed context
// carries a new trace task of the run, which observe returns for the
// caller to end when the run is over.
func observe(ctx context.Context, name string, withTask bool) (context.Context, *trace.Task) {
	traced := trace.IsEnabled()
	var ls *labelSet
	if ctx != nil {
		ls = labelsOf(ctx)
	}
	if ls == nil && !traced {
		return ctx, nil
	}
	o := &observed{Context: ctx, labels: ls, name: name, traced: traced}
	if o.Context == nil {
		o.Context = context.Background()
	}
	var task *trace.Task
	if traced && withTask {
		o.Context, task = trace.NewTask(o.Context, name)
	}
	return o, task
}

// observeIn returns ctx as the context of tasks spawned with it inside a
// run or scope whose context is parent: observed with ctx's labels, or
// parent's if ctx carries none, and with parent's regions; ctx itself if
// neither is observed.
func observeIn(ctx, parent context.Context) context.Context {
	if _, ok := ctx.(*observed); ok {
		return ctx
	}
	po, _ := parent.(*observed)
	ls := labelsOf(ctx)
	if ls == nil && po == nil {
		return ctx
	}
	o := &observed{Context: ctx, labels: ls}
	if po != nil {
		if ls == nil {
			o.labels = po.labels
		}
		o.name, o.traced = po.name, po.traced
	}
	return o
}

// labelsOf returns the labels ctx carries, nil if none; an observed
// context's own labelSet.
func labelsOf(ctx context.Context) *labelSet {
	if o, ok := ctx.(*observed); ok {
		return o.labels
	}
	found := false
	pprof.ForLabels(ctx, func(string, string) bool {
		found = true
		return false
	})
	if !found {
		return nil
	}
	return &labelSet{ctx}
}

// observedOf returns the observed context of the run r, nil if r is nil
// or not observed.
func observedOf(r *runState) *observed {
	if r == nil {
		return nil
	}
	o, _ := r.ctx.(*observed)
	return o
}

// startRegion opens the region of a caller's share of the run, if o is
// traced; nil otherwise.
func (o *observed) startRegion() *trace.Region {
	if !o.traced {
		return nil
	}
	return trace.StartRegion(o, o.name)
}

// endRegion ends r, a region startRegion opened, if not nil.
func endRegion(r *trace.Region) {
	if r != nil {
		r.End()
	}
}

// switchObs makes the goroutine carry the labels and region of o, the
// observed run (or nil) of the task that execute is about to run; end is
// that task's, whose end (restoreObs) switches back if the participant
// was inside another task. At the top level, the labels and region stay
// until the next switch or settleTop.
func (w *Worker) switchObs(o *observed, end *taskEnd) {
	top := end.saved == nil
	if top {
		w.endRegion()
	} else {
		end.obs, end.switched = w.obsNow, true
	}
	w.obsNow = o
	w.setLabels(o)
	if o != nil && o.traced {
		r := trace.StartRegion(o, o.name)
		if top {
			w.region = r
		} else {
			end.region = r
		}
	}
}

// restoreObs ends the region switchObs opened for a task inside another,
// and puts back the labels of the run it interrupted.
func (w *Worker) restoreObs(end *taskEnd) {
	if end.region != nil {
		end.region.End()
	}
	w.obsNow = end.obs
	w.setLabels(end.obs)
}

// leaveObs is the top level's: it ends the region of the run whose tasks
// the participant ran and drops its labels.
func (w *Worker) leaveObs() {
	w.endRegion()
	w.obsNow = nil
	w.setLabels(nil)
}

// endRegion ends the region open at the top level, if any.
func (w *Worker) endRegion() {
	if w.region != nil {
		w.region.End()
		w.region = nil
	}
}

// setLabels sets the goroutine's labels to o's (none for nil), if the
// participant may set them (ownLabels) and they differ from those it set
// last.
func (w *Worker) setLabels(o *observed) {
	var ls *labelSet
	if o != nil {
		ls = o.labels
	}
	if ls == w.labelsNow || !w.ownLabels {
		return
	}
	w.labelsNow = ls
	if ls == nil {
		pprof.SetGoroutineLabels(context.Background())
	} else {
		pprof.SetGoroutineLabels(ls.ctx)
	}
}

// startOwned readies the observation state of a participant whose
// goroutine is the pool's (a pool worker's on its first entry, a
// compensator's), carrying no labels.
func (w *Worker) startOwned() {
	w.obsNow, w.labelsNow, w.region, w.ownLabels = nil, nil, nil, true
}

// startCaller readies the observation state of a caller's participant
// whose run's context is home (nil if it is not observed): it carries
// home's labels and region, and may change its goroutine's labels only if
// home has labels.
func (w *Worker) startCaller(home *observed) {
	w.obsNow, w.labelsNow, w.region, w.ownLabels = home, nil, nil, false
	if home != nil && home.labels != nil {
		w.labelsNow, w.ownLabels = home.labels, true
	}
}

// dropObs forgets the observation state of a participant whose goroutine
// is done with it (a caller's Worker given back, a worker's goroutine
// ended by Goexit), without touching the goroutine.
func (w *Worker) dropObs() {
	w.obsNow, w.labelsNow, w.region = nil, nil, nil
}

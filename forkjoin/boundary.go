package forkjoin

// The task boundary: every task a participant takes from a deque, a queue,
// a slot or the injector runs through execute, which switches the worker
// to the task's run, recovers a panic (recording it in the run, which
// cancels the run), and tells the task's joiner or handle how it ended.
//
// A panic or a runtime.Goexit unwinds the frames that forked, and their
// forks are left on the private stack. Before the worker can run anything
// else there, abandon takes back every published one of them: from the
// deque, or, once a thief has it, by waiting for the thief to finish,
// because the fork's slot will be reused. A fork is in the deque or with a
// thief, never both (internal/deque), so abandon finds each published fork in
// one of the two places.

import (
	"runtime"
	"runtime/trace"
)

// unwinding is the panic value the core uses to unwind a canceled run's
// frames up to the nearest task boundary. It is never seen by users unless
// their own recover catches it; re-panic anything you do not recognise.
type unwinding struct{}

// execute runs a task taken from a deque or the injector: a task boundary.
// It switches the worker to the task's run, recovers a panic (recording it
// in the run and canceling it), cleans up the forks the panic abandoned,
// and marks the task finished for its joiner.
func (w *Worker) execute(t *task) {
	if w.holdsSlack() {
		w.settleFor(t)
	}
	if w.tasksRun++; w.tasksRun >= statsBatch {
		w.publishTasks()
	}
	// What execute needs of t once t's function has started is read now:
	// from then on an intrusive Task may be pushed again (Task.Init), by
	// its function or by whoever it signalled, and its header rewritten.
	end := taskEnd{owner: t.owner, after: t.after, saved: w.run, savedPub: w.published}
	run := t.run
	w.run = run
	w.setFam(run)
	if o := observedOf(run); o != w.obsNow {
		w.switchObs(o, &end) // observe.go
	}
	mark := w.forkTop
	// The private forks below mark belong to the frames this task
	// interrupts (a Wait, say), possibly of another run: the requests
	// the task answers publish only its own forks.
	w.published = mark
	if end.owner != nil { // a fork's slot: its joiner may help its thief
		t.thief.Store(w)
	}
	ok := w.runTask(t, run, mark, &end)
	if !end.over {
		w.endTask(t, &end, ok)
	}
	if w.beat.Load() != 0 {
		w.beat.Store(0) // a task is over: the pool moves on (compensate.go)
	}
}

// taskEnd is what execute restores and signals once its task is over: the
// task's owner and after callback, read before it ran, and the worker's run
// and publication mark it interrupted. over is set once endTask has run.
type taskEnd struct {
	owner    *Worker
	after    func(w *Worker, t *task)
	saved    *runState
	savedPub int
	over     bool
	// switched: execute switched the goroutine's labels and region for
	// the task (observe.go), from obs's, and opened region, if not nil.
	switched bool
	obs      *observed
	region   *trace.Region
}

// endTask ends t for execute: the worker goes back to the interrupted run,
// a fork's joiner learns how it ended, a spawned task reports.
func (w *Worker) endTask(t *task, e *taskEnd, ok bool) {
	e.over = true
	w.run = e.saved
	if e.switched {
		w.restoreObs(e)
	}
	w.published = e.savedPub
	if e.saved != nil && e.saved.canceled.Load() {
		w.ask() // let the frames below notice at their next fork
	}
	if e.owner != nil { // a fork's slot: tell the joiner
		if ok {
			t.finish(taskDone)
		} else {
			t.finish(taskFailed)
		}
	}
	if e.after != nil {
		e.after(w, t)
	}
}

// setFam publishes the family of the run r (nil: none) as the one w runs
// now (Worker.famNow), if it changed. It is a hint for the helpers that
// choose whom to steal from (stealPriority), who check what they take, so
// it is set when a task starts and left when it ends: a participant's
// queue mostly holds the family of what it ran last, and a store per task
// end would cost every spawned task a locked instruction.
func (w *Worker) setFam(r *runState) {
	var f *family
	if r != nil {
		f = r.fam
	}
	if f != w.curFam {
		w.curFam = f
		w.famNow.Store(f)
	}
}

// runTask runs t, of run r, at a task boundary; mark is the fork stack's
// height below t's forks. It reports whether t returned normally.
//
// A task that calls runtime.Goexit (t.FailNow in a test, say) neither
// returns nor panics: recover finds nothing, and once the deferred calls
// have run, the goroutine ends, whatever it was (a pool worker, or a
// goroutine that helped while it waited). Goexit cannot be stopped, so the
// deferred call ends the task itself, failed with a *PanicError of
// ErrGoexit, before the goroutine goes: its joiner, its handle, its scope
// learn it, rather than waiting for ever. It runs no other task meanwhile
// (abandonExiting). The frames below then meet the same Goexit: serve and
// runRoot clean up for the goroutine.
func (w *Worker) runTask(t *task, r *runState, mark int, end *taskEnd) (ok bool) {
	if t.owner != nil && r != nil && r.canceled.Load() {
		return false // a canceled fork is not started; its joiner unwinds
	}
	defer func() {
		if ok {
			return
		}
		v := recover()
		if v == nil { // runtime.Goexit
			if r != nil {
				r.cancel(goexitError())
			}
			w.abandonExiting(mark)
			w.endTask(t, end, false)
			return
		}
		if r != nil {
			r.recovered(v) // record and cancel first: abandon may wait for thieves
		}
		w.abandon(mark)
	}()
	t.exec(w, t)
	if w.forkTop != mark {
		panic(errUnjoined) // abandon waits for the forks' thieves
	}
	return true
}

// errUnjoined is the panic of a task that returned with forks of its own
// still on the stack: a Future it never joined, or the fork of a Join or a
// Future whose frames a panic unwound before the task recovered it.
const errUnjoined = "forkjoin: a task returned with a fork not joined: a Future never joined, or a Fork.Join or Future left by a panic that the task recovered (join every Future before the task returns, and do not recover a panic that unwinds a fork inside the task)"

// abandon cleans up the private stack after a panic unwound the frames
// that pushed forks[mark:forkTop]: published forks are taken back from the deque
// or, if a thief has them, waited for, because their slots will be reused.
// The slots stay allocated on their slabs (the frames that would have
// popped them are gone) until the worker is back at its top level, where
// resetSlabs frees every slot at once.
func (w *Worker) abandon(mark int) { w.abandonFrames(mark, false) }

// abandonExiting is abandon on a goroutine that a runtime.Goexit is ending
// (see runTask): it runs no task while it cleans up. A task it ran there
// could call Goexit too, and a Goexit inside a deferred call that Goexit
// runs cuts that call short: the cleanup would stop half-way and the task
// being ended would never end. So a stolen fork is waited for without
// helping (waitQuiet), and the Tasks pushed above a published fork are
// set aside and pushed back (before any wait: the fork's thief may wait
// for what they signal), for a thief or the worker's replacement.
func (w *Worker) abandonExiting(mark int) { w.abandonFrames(mark, true) }

func (w *Worker) abandonFrames(mark int, exiting bool) {
	var aside []*task // pushed Tasks popped on the way, newest first
	for w.forkTop > mark {
		// Pop the entry first, as a join does: while this waits for a
		// thief, the tasks it helps with fork above forkTop, and the answer to
		// a request must not publish the abandoned entries again.
		w.forkTop--
		i := w.forkTop
		h := w.forks[i].hdr // a word fork's slot only if it was published
		w.forks[i] = forkEntry{}
		if i < w.published {
			w.published = i
			taken := false
			for !taken {
				t := w.deque.Pop()
				switch {
				case t == h:
					taken = true
				case t == nil && exiting:
					// Back in the deque before the wait: the fork's
					// thief may be waiting for what they signal.
					aside = w.pushBack(aside)
					w.waitQuiet(h)
					taken = true
				case t == nil:
					w.helpUntil(h.over, h, nil)
					taken = true
				case exiting:
					aside = append(aside, t)
				default:
					w.execute(t) // an intrusive task pushed above it
				}
			}
		}
	}
	w.pushBack(aside)
	w.dirty = true
	if w.published > mark {
		w.published = mark
	}
}

// pushBack returns the Tasks abandonExiting set aside (newest first) to
// the deque in their order, wakes a thief if one may be needed, and
// returns aside emptied.
func (w *Worker) pushBack(aside []*task) []*task {
	if len(aside) == 0 {
		return aside
	}
	for i := len(aside) - 1; i >= 0; i-- {
		w.deque.Push(aside[i])
	}
	w.sched.wakeCheckQuiet()
	return aside[:0]
}

// waitQuiet waits until the stolen task h has finished, running nothing
// meanwhile (see abandonExiting): it spins a little, then parks (park,
// with no look for work), and h's finisher wakes it (task.finish: w is
// h's owner).
func (w *Worker) waitQuiet(h *task) {
	for i := 0; !h.over(); i++ {
		if i < stealSpins {
			runtime.Gosched()
			continue
		}
		w.park(h.over, false, nil)
	}
}

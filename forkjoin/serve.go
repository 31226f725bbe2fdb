package forkjoin

// A pool worker's life inside the scheduler (the pinned Job, scheduler.go):
// it searches for a task (search: the scan at the top level, paced by
// keepLooking), runs it and whatever the scan finds after it, settles its
// per-task state at its top level, and searches again; when a search comes
// back empty it leaves the scheduler through scheduler.leave, whose last
// look keeps the wake-up throttle safe (see scheduler.go).

import (
	"runtime"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/goroutine"
)

// serve is a pool worker's life inside the scheduler: search, run, repeat;
// leave when there is nothing to do.
func (w *Worker) serve() {
	w.claim()
	if w.goid.Load() == 0 {
		w.goid.Store(goroutine.ID()) // once per goroutine (leaveOnGoexit clears it)
	}
	s := w.sched
	if !s.enter() {
		return
	}
	left := false
	defer func() {
		if !left { // a task's runtime.Goexit is ending the goroutine
			w.leaveOnGoexit()
		}
	}()
	for {
		t := w.search()
		if t == nil {
			if testHookIdle != nil {
				testHookIdle(w)
			}
			w.dropStale() // about to idle: keep nothing of the work done
			if t, left = s.leave(w); left {
				return
			}
		}
		s.stopSearching()
		w.execute(t)
		for t := w.scan(lookTop, nil, famAny); t != nil; t = w.scan(lookTop, nil, famAny) {
			w.execute(t)
		}
		w.settleTop() // about to search
		if !s.startSearching() {
			// Enough others look: leave without a look of its own, so
			// that a pool of many workers never has them all reading
			// every queue at once.
			w.dropStale()
			left = true
			return
		}
	}
}

// publishTasks adds the tasks w ran since it last did to its counter. The
// count is kept in a plain field and published in batches (at most
// statsBatch apart, and whenever w stops running tasks: a pool worker
// before it searches, a caller when its Run ends), because an atomic add
// is a locked instruction, a visible part of the cost of an empty spawned
// task. Stats.Tasks may therefore lag while tasks run, and is exact once
// the pool is idle.
func (w *Worker) publishTasks() {
	if w.tasksRun != 0 {
		w.counters.tasks.Add(w.tasksRun)
		w.tasksRun = 0
	}
}

// leaveOnGoexit is serve's end for a pool worker whose goroutine a task's
// runtime.Goexit is ending (runTask has ended that task): it gives back
// its slack and what it kept of the work, and leaves the scheduler as the
// active worker it was (it was running a task, so not searching). The pool
// starts a goroutine in its place (pool.Pool.replaceWorker), which takes
// over this Worker and the tasks still queued on it; until then the others
// may steal them, and the wake-up below looks for someone to.
func (w *Worker) leaveOnGoexit() {
	w.flushSlot() // lifo.go
	if w.holdsSlack() {
		w.flushSlack()
	}
	w.publishTasks()
	if w.dirty || w.forkTop != 0 {
		w.resetSlabs()
	}
	w.clearAsked()
	w.standing, w.armed = false, false
	w.dropStale()
	w.dropObs()     // the replacement goroutine starts with no labels
	w.goid.Store(0) // the replacement goroutine sets its own
	w.sched.state.Add(^uint64(activeOne - 1))
	w.sched.wakeCheckQuiet()
}

// search looks for a task for a while before giving up: at least
// stealSpins rounds and at least searchFor (keepLooking). A parked worker
// is woken by a futex wake-up and a reschedule, some 0.1 ms on a virtual
// machine, longer than the gap between the runs of a program that starts
// one run after another; searching a little longer keeps the worker there
// for the next one.
func (w *Worker) search() *task {
	var since time.Time
	for idle := 1; ; idle++ {
		if t := w.scan(lookTop, nil, famAny); t != nil {
			return t
		}
		if !keepLooking(idle, &since) {
			return nil
		}
	}
}

// keepLooking paces a look for work that has come back empty idle times in
// a row, for search and for a waiter (helpUntil), and reports false, time
// to give up, once the look has lasted at least stealSpins rounds and at
// least searchFor. since is the caller's: the zero time at the start of
// the look, then when its stealSpins-th round came (the clock is read
// every 8th round only: a read costs tens of nanoseconds on a virtual
// machine).
//
// Every 8th round it yields the processor, so a spinning participant keeps
// no goroutine of its own processor's queue waiting. (A goroutine readied
// meanwhile onto another, busy processor's queue does wait for the look to
// end: Go's scheduler takes work from another processor only when it has
// none of its own, and the yielding searcher always is some.
// docs/tuning.md says what that costs a program that runs other work
// beside a pool.)
//
// Every 64th round it yields the thread too (osYield), for the operating
// system's placement of threads: the Go runtime runs a woken worker on
// whichever thread it wakes, and Linux may queue that thread on the
// processor of the thread that woke it, the one running the owner of the
// work, while another processor stays idle (often, on a small virtual
// machine, after a pause of a few milliseconds). The two threads then
// share one processor, and a thief that spins there takes it from the
// owner it waits for. A sched_yield lets the owner's thread run instead;
// where the threads are placed well, it costs a system call every 64
// empty rounds.
func keepLooking(idle int, since *time.Time) bool {
	if idle%8 != 0 {
		return true
	}
	if idle >= stealSpins {
		if since.IsZero() {
			*since = time.Now()
		} else if time.Since(*since) >= searchFor {
			return false
		}
	}
	runtime.Gosched()
	if idle%64 == 0 {
		osYield()
	}
	return true
}

// searchFor is the least time a look for work lasts before it gives up
// (keepLooking).
const searchFor = 100 * time.Microsecond

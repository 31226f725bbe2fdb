package forkjoin

// Waiting without blocking: a participant that waits (for the stolen half
// of a join, or in a Wait for a Completion) runs other tasks on its own
// stack meanwhile (helpUntil), and parks on the scheduler's joinWake only
// when it has looked for work as long as a searcher would and found none
// (park).
//
// What a waiter may run is decided by the scan (scan.go, lookHelp): never
// a fork of its own deque, which the frames below it join, and of the
// spawned tasks only those of its own family (family.go: a Scope's,
// Group's, Handle's or Graph's Wait runs its own tasks and what they
// spawn; a join's helper runs none; Close's drain runs any). The one
// exception is helpUntil's own look at the bottom of its deque: the
// intrusive Tasks there are what the waiting frame Pushed and now waits
// for, and at parallelism 1 nobody else would run them.
//
// park is where a lost wake-up would hide; its comment gives the ordering
// argument.

import (
	"runtime"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/core"
)

// waitTask helps with other work until the stolen task h has finished.
// Panics with the unwinding sentinel if h failed (its run is canceled and
// the failure recorded there).
func (w *Worker) waitTask(h *task) {
	w.helpUntil(h.over, h, nil)
	if h.state.Load() == taskFailed {
		panic(unwinding{})
	}
}

// over reports whether the stolen task h has finished (done or failed).
func (h *task) over() bool { return h.state.Load() != taskPending }

// wait is core.Wait: it helps with other work until c is complete,
// running no spawned task (a walk's or a DAG fold's wait: its run's forks
// and pushed Tasks are what it waits for).
func (w *Worker) wait(c *core.Completion) { w.waitFam(c, nil) }

// waitFam is wait that may also run the spawned tasks of the family fam
// (family.go): the Wait of a Scope, Group, Handle or Graph, which waits for
// exactly those.
func (w *Worker) waitFam(c *core.Completion, fam *family) {
	w.checkActive()
	if c == nil {
		panic("forkjoin: Wait for a nil *Completion")
	}
	if c.Done() {
		return
	}
	c.AddWaiter(&w.sched.joinWake) // before park's token: see park
	w.helpUntil(c.Done, nil, fam)
}

// helpUntil runs tasks until done() holds: first the intrusive Tasks at
// the bottom of its own deque (a Wait also looks under published forks,
// see underForks), then what the scan finds for a helper waiting for the
// stolen fork h (nil for a Wait), with fam the family whose spawned tasks
// it may run (family.go; nil for none, famAny for Close's drain). When a look
// has come back empty for as long as a searcher's would (keepLooking:
// a waiter in the middle of a run is usually woken for the next piece its
// thief deals out, and a wake-up costs more than the look), it parks until
// a finisher, a completer or new work wakes it.
func (w *Worker) helpUntil(done func() bool, h *task, fam *family) {
	idle := 0
	var since time.Time // see keepLooking
	dig := h == nil     // a Wait: see underForks
	// brief: a Wait woke from park and found nothing. New work anywhere
	// wakes every parked helper, and a Wait may run only its own family's
	// tasks: it looks a few rounds, not a searcher's while, before it
	// parks again (a join's helper, woken for the next piece its thief
	// deals out, looks longer).
	brief := false
	for !done() {
		t := w.deque.Pop()
		if t != nil && t.owner != nil {
			// A published fork of a frame below: it stays for its joiner
			// or a thief, in the same place.
			if dig {
				t = w.underForks(t)
				dig = t != nil
			} else {
				w.deque.Push(t)
				t = nil
			}
		}
		if t == nil {
			t = w.scan(lookHelp, h, fam)
		}
		if t != nil {
			w.execute(t)
			idle, since, brief = 0, time.Time{}, false
			continue
		}
		if w.holdsSlack() {
			w.flushSlack() // about to go idle (slack.go)
			continue       // which may have made done() true
		}
		idle++
		if brief {
			if idle < briefRounds {
				runtime.Gosched()
				continue
			}
		} else if keepLooking(idle, &since) {
			continue
		}
		if testHookIdle != nil {
			testHookIdle(w)
		}
		if t = w.park(done, true, fam); t != nil {
			w.execute(t)
			idle, brief = 0, false
			continue
		}
		if h == nil {
			idle, brief = 0, true
		} else {
			idle, since = stealSpins/2, time.Time{}
		}
	}
	w.flushSlot() // back to the caller's code (lifo.go)
	if w.holdsSlack() {
		w.flushSlack() // back to the caller's code (slack.go)
	}
}

// briefRounds is how many empty looks a Wait makes after a wake-up that
// brought it nothing, before it parks again (helpUntil).
const briefRounds = 4

// park sleeps on the scheduler's joinWake until it is notified, unless
// done() holds or, if look is set, the last look for work (lookLast, for
// the family fam) finds a task: then it returns at once, with
// that task (not started) or nil.
//
// No wake-up is lost. park sets parked and counts itself in joinParked,
// then takes its token (Prepare), then checks done() and looks for work.
// Whoever can end the wait makes its change visible first and reads those
// flags after: the finisher of a stolen fork stores its state, then reads
// its owner's parked (task.finish); a Completion's completer stores done,
// then reads the waiter registered before the token (core.Completion); a
// producer of work publishes it, then reads joinParked (wakeCheck, and
// pendingOver for Close's drain). sync/atomic is sequentially consistent,
// so either the reader sees the flag or the flag was set after the read,
// and then park's check, later still, sees the change. A reader that sees
// the flag notifies: after the token, that ends the Wait at once; before
// it, the notification followed the change, and park's check, after the
// token, sees the change.
func (w *Worker) park(done func() bool, look bool, fam *family) *task {
	s := w.sched
	w.parked.Store(true)
	s.joinParked.Add(1)
	tok := s.joinWake.Prepare()
	var t *task
	if !done() {
		if look {
			t = w.scan(lookLast, nil, fam)
		}
		if t == nil {
			s.joinWake.Wait(tok)
		}
	}
	s.joinParked.Add(-1)
	w.parked.Store(false)
	return t
}

// underForks is Wait's look past the published forks at the bottom of its
// own deque, f the first of them (popped): a frame may Push a Task, fork
// (a thief's request publishes the fork, above the Task), then Wait for
// what the Task signals. The Task is the frame's to run (at parallelism 1
// nobody else would), so underForks pops the forks off it and pushes them
// back in the same order. It returns the first Task under them, or nil
// (then Wait stops looking: Tasks pushed later sit above the forks). A
// thief that looks while the forks are off sees fewer tasks for a moment.
func (w *Worker) underForks(f *task) *task {
	forks := append(w.forkBuf[:0], f)
	var t *task
	for {
		t = w.deque.Pop()
		if t == nil || t.owner == nil {
			break
		}
		forks = append(forks, t)
	}
	for i := len(forks) - 1; i >= 0; i-- {
		w.deque.Push(forks[i])
	}
	clear(forks)
	w.forkBuf = forks[:0]
	return t
}

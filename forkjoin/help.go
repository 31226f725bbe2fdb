package forkjoin

// Waiting without blocking: a participant that waits (for the stolen half
// of a join, or in a Wait for a Completion) runs other tasks on its own
// stack meanwhile (helpUntil), and parks on the scheduler's joinWake only
// when it has looked for work as long as a searcher would and found none
// (park).
//
// What a waiter may run is decided by the scan (scan.go, lookHelp): never
// a fork of its own deque, which the frames below it join, and a Group's
// task only in that Group's Wait or in Close's drain (grouplane.go). The
// one exception is helpUntil's own look at the bottom of its deque: the
// intrusive Tasks there are what the waiting frame Pushed and now waits
// for, and at parallelism 1 nobody else would run them.
//
// park is where a lost wake-up would hide; its comment gives the ordering
// argument.

import (
	"time"

	"github.com/forkjoin-go/forkjoin/internal/core"
)

// waitTask helps with other work until the stolen task h has finished.
// Panics with the unwinding sentinel if h failed (its run is cancelled and
// the failure recorded there).
func (w *Worker) waitTask(h *task) {
	w.helpUntil(h.over, h, nil)
	if h.state.Load() == taskFailed {
		panic(unwinding{})
	}
}

// over reports whether the stolen task h has finished (done or failed).
func (h *task) over() bool { return h.state.Load() != taskPending }

// wait is core.Wait: it helps with other work until c is complete.
func (w *Worker) wait(c *core.Completion) { w.waitLane(c, nil) }

// waitLane is wait that may also run the tasks lane (a Group's Spawner)
// has in the group lane (grouplane.go).
func (w *Worker) waitLane(c *core.Completion, lane *Spawner) {
	w.checkActive()
	if c == nil {
		panic("forkjoin: Wait for a nil *Completion")
	}
	if c.Done() {
		return
	}
	c.AddWaiter(&w.sched.joinWake) // before park's token: see park
	w.helpUntil(c.Done, nil, lane)
}

// helpUntil runs tasks until done() holds: first the intrusive Tasks at
// the bottom of its own deque (a Wait also looks under published forks,
// see underForks), then what the scan finds for a helper waiting for the
// stolen fork h (nil for a Wait), with lane the group lane's queue it may
// take from (a Group's Spawner, laneAny, or nil for none). When a look
// has come back empty for as long as a searcher's would (keepLooking:
// a waiter in the middle of a run is usually woken for the next piece its
// thief deals out, and a wake-up costs more than the look), it parks until
// a finisher, a completer or new work wakes it.
func (w *Worker) helpUntil(done func() bool, h *task, lane *Spawner) {
	idle := 0
	var since time.Time // see keepLooking
	dig := h == nil     // a Wait: see underForks
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
			t = w.scan(lookHelp, h, lane)
		}
		if t != nil {
			w.execute(t)
			idle, since = 0, time.Time{}
			continue
		}
		if w.holdsSlack() {
			w.flushSlack() // about to go idle (slack.go)
			continue       // which may have made done() true
		}
		idle++
		if keepLooking(idle, &since) {
			continue
		}
		if testHookIdle != nil {
			testHookIdle(w)
		}
		if t = w.park(done, true, lane); t != nil {
			w.execute(t)
			idle = 0
			continue
		}
		idle, since = stealSpins/2, time.Time{}
	}
	w.flushSlot() // back to the caller's code (lifo.go)
	if w.holdsSlack() {
		w.flushSlack() // back to the caller's code (slack.go)
	}
}

// park sleeps on the scheduler's joinWake until it is notified, unless
// done() holds or, if look is set, the last look for work (lookLast, with
// the group lane's queue lane) finds a task: then it returns at once, with
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
func (w *Worker) park(done func() bool, look bool, lane *Spawner) *task {
	s := w.sched
	w.parked.Store(true)
	s.joinParked.Add(1)
	tok := s.joinWake.Prepare()
	var t *task
	if !done() {
		if look {
			t = w.scan(lookLast, nil, lane)
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

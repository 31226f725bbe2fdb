package forkjoin

// The owner's side of lazy publication (scheduler.go): a fork goes on the
// participant's private stack (pushFork), where nobody else looks. When
// another participant has asked for work (the poll flag, Worker.limit, is
// 0), the owner's next fork takes the slow path (answerRequest), which
// publishes the oldest private fork into the owner's deque. A join whose
// fork was published takes it back from the deque or, if a thief has it,
// helps until it is over (reclaim).
//
// Why each fork runs once: the index published splits the private stack.
// Entries below it were pushed into the deque, whose pop and steal give
// each pushed task to exactly one taker (internal/deque); entries at or above it
// were never shown to anyone, and their joins run them directly. Only the
// owner moves published: publishOldest raises it past the entry it pushes
// into the deque, and the join of a published fork lowers it to that
// fork's index as it takes the entry off the stack (reclaim), so no entry
// is pushed twice.

import "sync/atomic"

// pushFork records a new private fork whose argument is in the slot of h.
// Owner only; no shared memory.
func (w *Worker) pushFork(h *task) {
	w.growForks()
	w.forks[w.forkTop] = forkEntry{hdr: h}
	w.forkTop++
}

// growForks makes room for one more entry on the private stack.
func (w *Worker) growForks() {
	if w.forkTop == len(w.forks) {
		old := uintptr(len(w.forks))
		w.forks = append(w.forks, forkEntry{})
		w.forks = w.forks[:cap(w.forks)]
		// The limit follows the capacity, unless a request came (0): that
		// one stays, and the slow path that answers it sets the new
		// capacity (clearAsked).
		atomic.CompareAndSwapUintptr(&w.limit, old, uintptr(len(w.forks)))
	}
}

// answerRequest is the slow path of a fork, taken when the owner was asked
// (its poll flag, limit = 0, is set): it answers the request. It checks
// that the handle is valid and the run still wanted, then publishes the
// oldest private fork for the thief that asked.
func (w *Worker) answerRequest() {
	w.checkActive() // before taking the request: a stale handle keeps failing here
	w.clearAsked()
	w.armed = false
	if w.run.canceled.Load() {
		panic(unwinding{})
	}
	w.flushSlot() // a thief asked: let it see the slot's task (lifo.go)
	w.publishOldest()
}

// publishOldest moves the oldest private fork into the deque.
func (w *Worker) publishOldest() {
	i := w.published
	if i >= w.forkTop {
		return
	}
	e := &w.forks[i]
	h := e.hdr
	if wf := e.wf; wf != nil {
		h = wf.publish(w, e) // its argument moves into a slot now
	}
	h.run = w.run
	h.state.Store(taskPending)
	h.thief.Store(nil)
	w.published = i + 1
	w.deque.Push(h)
	w.standing = false // a standing request is answered
	w.sched.wakeCheck()
}

// reclaim is the slow path of a join whose fork (private index i, at the
// top of the stack) was published: take it back from the deque and report
// true, or, if a thief has it, help until it finishes and report false.
// Entries above it in the deque are intrusive tasks pushed meanwhile; they
// are run here.
func (w *Worker) reclaim(h *task, i int) (mine bool) {
	w.published = i
	for {
		t := w.deque.Pop()
		if t == h {
			return true
		}
		if t == nil {
			w.waitTask(h)
			return false
		}
		w.execute(t)
	}
}

package forkjoin

// The task header: what the queues hold and thieves see of every task.

import "sync/atomic"

// task is the header of everything that can sit in a deque: a typed fork's
// slot (header first, then argument and result), a Join's slot, a spawned
// task (spawn.go) or a user's intrusive Task. Thieves see only *task; exec
// knows the rest.
type task struct {
	// exec runs the task on a worker that is not its owner (or on any
	// worker, for tasks that are not forks). Set when the task is pushed.
	exec func(w *Worker, t *task)
	// owner is the participant whose private stack the slot belongs to,
	// nil for tasks that are not forks. Set once when the slot is created.
	owner *Worker
	// run is the run the task belongs to; set when the task is published.
	run *runState
	// state is taskPending until the task has finished on a thief: then
	// taskDone, or taskFailed if it panicked or was abandoned because its
	// run was canceled. The joiner reads the result only after it loads
	// taskDone (the store is sequentially consistent, so it happens after
	// the thief's write of the result).
	state atomic.Uint32
	// thief is the worker that took the task, so that a joiner waiting for
	// it helps that worker first.
	thief atomic.Pointer[Worker]
	// after, if set, is called by the worker that ran the task once it is
	// over, whether it returned, panicked or was skipped (spawned tasks
	// report to their handle, scope or graph here).
	after func(w *Worker, t *task)
}

const (
	taskPending uint32 = iota
	taskDone
	taskFailed
)

// finish marks a stolen task done and wakes its owner if the owner parked
// while waiting for it. After the store of state, the task's memory may be
// reused by the owner at once, so everything needed is read before it.
func (t *task) finish(s uint32) {
	owner := t.owner
	t.state.Store(s)
	if owner != nil && owner.parked.Load() {
		owner.sched.joinWake.NotifyAll()
	}
}

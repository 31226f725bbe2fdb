package forkjoin

// The group lane: where a Group's tasks wait to run.
//
// A Group's task may block, as an errgroup task does: on the group's
// context until a sibling fails, on a channel, on I/O. A participant that
// waits (for the stolen half of a Join, or in a Scope's or Group's Wait)
// helps by running tasks on its own stack, and cannot go on until the task
// it picked returns. If that task blocks until the waiter goes on — a task
// waiting for its group's context, run underneath the sibling whose failure
// would cancel it — neither ever does.
//
// So a Group's tasks are never queued where helpers look (the
// participants' queues, LIFO slots and the injector), but in this lane, and
// only two kinds of participant take them:
//
//   - a pool worker at its top level (serve's next, and its last look
//     before it parks), with no frame of its own below the task, so that
//     nothing waits underneath whatever the task waits for;
//   - the Group's own Wait, for that group's tasks only: the waiting frame
//     waits for exactly those tasks, so running one of them under it
//     delays nothing the task could be waiting for. (Close's drain also
//     takes any group's tasks: it waits at its top level.)
//
// A task of the group that runs a Join or a Wait of its own helps as any
// waiter does, never with a Group's task.
//
// The lane is a list of groups with queued tasks, each group's tasks in
// the order Go spawned them, under one mutex: a Group's tasks are coarse
// (an errgroup task is a goroutine), and a lock per Go and per take is
// small beside them. The count n is read without the lock, so that a look
// at an empty lane costs one load.

import (
	"slices"
	"sync"
	"sync/atomic"
)

type groupLane struct {
	// n is the number of tasks in the lane. It is incremented after a task
	// is queued and decremented after one is taken, so a lookup that sees
	// n == 0 may miss a task being queued; the producer's wake-up, which
	// follows its increment, covers that (see scheduler's wakeCheck).
	n      atomic.Int64
	mu     sync.Mutex
	groups []*Spawner // groups with tasks queued, oldest first (under mu)
}

// laneQueue is a group's own queue in the lane (a field of its Spawner),
// under groupLane.mu.
type laneQueue struct {
	tasks []*task // tasks[head:] are queued, oldest first
	head  int
}

// laneAny, as the lane a waiter may take from (helpUntil), lets it take
// any group's tasks: for Close's drain, which waits at its top level.
var laneAny = new(Spawner)

// push queues t, a task of the group sp, at the end of sp's queue.
func (l *groupLane) push(sp *Spawner, t *task) {
	l.mu.Lock()
	q := &sp.lane
	if len(q.tasks) == q.head {
		l.groups = append(l.groups, sp) // sp had nothing queued
	}
	q.tasks = append(q.tasks, t)
	l.mu.Unlock()
	l.n.Add(1)
}

// take takes the oldest queued task of the group sp, or of the group that
// has waited longest if sp is laneAny; nil if there is none (or the lane
// looks empty).
func (l *groupLane) take(sp *Spawner) *task {
	if sp == nil || l.n.Load() == 0 {
		return nil
	}
	l.mu.Lock()
	if sp == laneAny {
		if len(l.groups) == 0 {
			l.mu.Unlock()
			return nil
		}
		sp = l.groups[0]
	}
	q := &sp.lane
	if len(q.tasks) == q.head {
		l.mu.Unlock()
		return nil
	}
	t := q.tasks[q.head]
	q.tasks[q.head] = nil
	q.head++
	if q.head == len(q.tasks) {
		// The group has nothing queued now: out of the list, and its
		// queue's array reused from the start.
		q.tasks, q.head = q.tasks[:0], 0
		i := slices.Index(l.groups, sp)
		l.groups = slices.Delete(l.groups, i, i+1)
	}
	l.mu.Unlock()
	l.n.Add(-1)
	return t
}

package forkjoin

// The group lane: where a Group's tasks wait to run.
//
// A Group's task may block, as an errgroup task does: on the group's
// context until a sibling fails, on a channel, on I/O. So it must never run
// underneath a participant that waits for something else (family.go), and
// its tasks are queued apart from the participants' queues: each group has
// its own queue here, in the order Go spawned its tasks, and the lane
// lists the groups with tasks queued, oldest first. Two kinds of
// participant take them:
//
//   - a participant at its top level (a pool worker, a compensating
//     goroutine, Close's drain), any group's;
//   - a Group's Wait, the tasks of its group and of the groups made inside
//     its tasks (its family): what it waits for.
//
// Go is called from any goroutine, inside the pool's work or not, so a
// group's task cannot come from a participant's free list as a Scope's
// does (scopetask.go): the lane keeps a list of free scope tasks of its
// own, refilled a batch at a time from the participants' stores of spare
// tasks (where the tasks it hands out end up once over) or, when those are
// empty, with new ones.
//
// One mutex guards the lists: a Group's tasks are coarse (an errgroup task
// is a goroutine), and a lock per Go and per take is small beside them. The
// count n is read without the lock, so that a look at an empty lane costs
// one load. The lane also answers the seal of Close's drain (drain.go):
// sealed is written under both the injector's lock and this one, and Go
// reads it under this one.

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
	groups []*Spawner   // groups with tasks queued, oldest first
	free   []*scopeTask // free scope tasks for Go
	// scanFrom is where refill starts looking at the participants' stores,
	// moving on from one refill to the next.
	scanFrom int
	sealed   bool // Close's drain is over: no new task (drain.go)
}

// laneQueue is a group's own queue in the lane (a field of its Spawner),
// under groupLane.mu.
type laneQueue struct {
	tasks []*task // tasks[head:] are queued, oldest first
	head  int
}

// spawn queues a new task of the group sp that runs fn, and reports true,
// unless the lane is sealed: then it reports false. The caller has counted
// the task in.
func (l *groupLane) spawn(s *scheduler, sp *Spawner, fn func(w *Worker)) bool {
	l.mu.Lock()
	if l.sealed {
		l.mu.Unlock()
		return false
	}
	if len(l.free) == 0 {
		l.refill(s)
	}
	n := len(l.free)
	t := l.free[n-1]
	l.free[n-1] = nil
	l.free = l.free[:n-1]
	t.fn = fn
	t.st.prio, t.st.ctxDone = Normal, false // a Group's tasks always start (group.go)
	t.st.rs.ctx, t.st.rs.fam = sp.ctx, &sp.fam
	l.pushLocked(sp, &t.st.hdr)
	l.mu.Unlock()
	l.n.Add(1)
	return true
}

// pushLocked queues t at the end of the group sp's queue. Under l.mu; the
// caller adds it to n after unlocking.
func (l *groupLane) pushLocked(sp *Spawner, t *task) {
	q := &sp.lane
	if len(q.tasks) == q.head {
		l.groups = append(l.groups, sp) // sp had nothing queued
	}
	q.tasks = append(q.tasks, t)
}

// refill fills the free list with a batch: from a participant's store of
// spare tasks (of refillScan of them, from where the last refill left
// off), else new. Under l.mu.
func (l *groupLane) refill(s *scheduler) {
	parts := *s.participants.Load()
	for i := range min(len(parts), refillScan) {
		o := parts[(l.scanFrom+i)%len(parts)]
		if l.free = o.spareTasks.take(l.free, false); len(l.free) > 0 {
			l.scanFrom += i
			return
		}
	}
	l.scanFrom += refillScan
	for range spawnBatch / scopeTaskChunk {
		chunk := new([scopeTaskChunk]scopeTask)
		for i := range chunk {
			chunk[i].makeFor(s)
			l.free = append(l.free, &chunk[i])
		}
	}
}

// takeMany appends to out up to k queued tasks, oldest group first, and
// returns it: one lock for a burst of compensators (compensate.go).
func (l *groupLane) takeMany(k int, out []*task) []*task {
	if k <= 0 || l.n.Load() == 0 {
		return out
	}
	l.mu.Lock()
	n := 0
	for n < k && len(l.groups) > 0 {
		sp := l.groups[0]
		q := &sp.lane
		m := min(k-n, len(q.tasks)-q.head)
		out = append(out, q.tasks[q.head:q.head+m]...)
		clear(q.tasks[q.head : q.head+m])
		q.head += m
		n += m
		if q.head == len(q.tasks) {
			q.tasks, q.head = q.tasks[:0], 0
			l.groups = slices.Delete(l.groups, 0, 1)
		}
	}
	l.mu.Unlock()
	l.n.Add(int64(-n))
	return out
}

// take takes the oldest queued task of the first group in the lane within
// the family fam (famAny for any group; nil for none), or returns nil.
func (l *groupLane) take(fam *family) *task {
	if fam == nil || l.n.Load() == 0 {
		return nil
	}
	l.mu.Lock()
	var sp *Spawner
	for _, g := range l.groups {
		if g.fam.within(fam) {
			sp = g
			break
		}
	}
	if sp == nil {
		l.mu.Unlock()
		return nil
	}
	q := &sp.lane
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

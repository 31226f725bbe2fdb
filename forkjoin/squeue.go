package forkjoin

// spawnQueue is a participant's queue of spawned tasks of one priority: a
// Chase–Lev deque (see deque.go) whose thieves take up to half of it at
// once, so that a participant that runs out of work takes a share of a busy
// one's queue with one CAS instead of coming back for every task.
//
// Indices, ring and growth work as in deque (deque.go); the ring's slots
// are the same atomic pointers (dequeSlot). What differs:
//
//   - steal claims a range [t, t+k) of the oldest tasks with one CAS of top
//     from t to t+k, where k ≤ stealMax and k ≤ half of what it saw (at
//     least one).
//   - pop takes the newest task (index b, after storing bottom = b) without
//     a CAS only if b - t ≥ stealMax for the top t it loads after that
//     store; otherwise it takes the OLDEST task through the same CAS on top
//     a thief uses (so with fewer than stealMax+1 tasks the owner's order is
//     first-in first-out; spawned tasks promise no order within a
//     priority). That CAS is made without the store of bottom: the owner
//     takes index t exactly as a thief would, so one atomic operation per
//     task instead of three.
//
// Why no task is taken twice. Index b goes to the owner without a CAS only
// under b - t0 ≥ stealMax, t0 being the top it loaded after its store of
// bottom = b. Take a thief whose CAS of top from t to t+k succeeds. If the
// CAS came before the owner's load of top, t0 ≥ t+k, so b ≥ t+k lies above
// the thief's range. Otherwise the CAS came after that load, and top was
// still t at the CAS, so t ≥ t0. If the thief loaded bottom after the
// owner's store, it saw bottom ≤ b (or a later push, which put a new task
// at b after the owner's pop was over), so its range ends at or below b.
// If it loaded bottom before the owner's store, then its load of top came
// before the owner's load of top as well, so t ≤ t0, hence t = t0 (top
// never decreases), and its range [t0, t0+k) with k ≤ stealMax ≤ b - t0
// ends below b. Indices taken through the CAS of top go to exactly one
// taker, as in deque. All atomics are sequentially consistent, which is
// what "came before" refers to.
//
// Why a thief reads the right tasks. It reads the slots of [t, t+k) before
// its CAS; if the CAS succeeds top was t all along, and the owner writes
// only indices below t + ring size while top is t, so none of those slots
// was overwritten (after a growth a thief may read the old ring: it holds
// the same tasks at the same indices).
//
// Every shared word is accessed through sync/atomic, as in the runtime's
// sync/poolqueue.go: the slots are atomic pointers (dequeSlot), written by
// the owner before the store of bottom that publishes them and read by a
// thief (or the owner's CAS path) after an atomic load of bottom or top
// that follows that store. A slow thief may read a slot the owner is
// overwriting after the ring wrapped; its CAS of top then fails (above) and
// it drops what it read. The code is the same with and without -race, so
// the race detector checks the code that ships.

import (
	"math"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
)

// stealMax is the most tasks one steal takes from a spawnQueue.
const stealMax = 32

type spawnQueue struct {
	top    atomic.Int64 // CASed by thieves, and by the owner on the last tasks
	_      cacheline.Pad
	bottom atomic.Int64 // written only by the owner
	buf    atomic.Pointer[spawnRing]
	// count, if not nil, counts the tasks of this queue together with
	// those of the other queues that share it (every participant's High
	// queue: see Worker.next). It is raised before tasks are published
	// and lowered after they are taken, so it is never below the number
	// of tasks in those queues: zero means they are all empty. Set once,
	// before the queue is used.
	count *atomic.Int64
	stale staleRange // owner only: where taken tasks may be left (dropTaken)
	_     cacheline.Pad
}

// spawnRing is a spawnQueue's ring: index i is at slots[i&mask].
type spawnRing struct {
	mask  int64
	slots []dequeSlot
}

func newSpawnRing(size int64) *spawnRing {
	return &spawnRing{mask: size - 1, slots: make([]dequeSlot, size)}
}

func newSpawnQueue() *spawnQueue {
	q := &spawnQueue{}
	q.stale.hold = math.MaxInt64 // every slot is empty (see staleRange)
	q.buf.Store(newSpawnRing(dequeInitialSize))
	return q
}

// size is a snapshot of the number of tasks (may be stale at once).
func (q *spawnQueue) size() int {
	n := q.bottom.Load() - q.top.Load()
	if n < 0 {
		return 0
	}
	return int(n)
}

// dropTaken clears the slots of tasks that were taken, as
// ringQueue.dropTaken does. Owner only, between pushes.
func (q *spawnQueue) dropTaken() {
	t, b := q.top.Load(), q.bottom.Load()
	if q.stale.none(t, b) {
		return
	}
	r := q.buf.Load()
	dropStaleSlots(&q.stale, r.slots, r.mask, t, b)
}

// capacity is the ring's size.
func (q *spawnQueue) capacity() int64 { return q.buf.Load().mask + 1 }

// growTo replaces the ring by one of at least need slots (and at least
// twice the old size) holding the live tasks at the same indices. The old
// ring is never written again: a thief that still reads it finds the same
// tasks there.
func (q *spawnQueue) growTo(old *spawnRing, top, bottom, need int64) *spawnRing {
	size := 2 * (old.mask + 1)
	for size < need {
		size *= 2
	}
	r := newSpawnRing(size)
	for i := top; i < bottom; i++ {
		r.slots[i&r.mask].store(old.slots[i&old.mask].load())
	}
	q.buf.Store(r)
	return r
}

// push adds t at the bottom. Owner only. pooled says that t is a Scope's
// task, whose slot dropTaken may leave as it is (see staleRange).
func (q *spawnQueue) push(t *task, pooled bool) {
	b := q.bottom.Load()
	r := q.buf.Load()
	if top := q.top.Load(); b-top > r.mask {
		r = q.growTo(r, top, b, b-top+1)
	}
	if q.count != nil {
		q.count.Add(1)
	}
	r.slots[b&r.mask].store(t)
	q.bottom.Store(b + 1) // publishes the slot
	if pooled {
		q.stale.pushedPooled(b + 1)
	} else {
		q.stale.pushed(b, b+1)
	}
}

// pushMany adds ts at the bottom in order (ts[0] first) with one
// publication. Owner only.
func (q *spawnQueue) pushMany(ts []*task) {
	if len(ts) == 0 {
		return
	}
	b := q.bottom.Load()
	r := q.buf.Load()
	n := int64(len(ts))
	if top := q.top.Load(); b+n-1-top > r.mask {
		r = q.growTo(r, top, b, b+n-top)
	}
	if q.count != nil {
		q.count.Add(n)
	}
	for i, t := range ts {
		r.slots[(b+int64(i))&r.mask].store(t)
	}
	q.bottom.Store(b + n) // publishes the slots
	q.stale.pushed(b, b+n)
}

// pop removes a task: the newest while more than stealMax are queued,
// else the oldest; nil if the queue is empty. Owner only.
func (q *spawnQueue) pop() *task {
	b := q.bottom.Load() - 1
	t := q.top.Load()
	if t > b {
		return nil // empty: only the owner adds tasks
	}
	r := q.buf.Load()
	if b-t >= stealMax {
		q.bottom.Store(b) // claim slot b before looking at top (the fence)
		if t = q.top.Load(); b-t >= stealMax {
			x := r.slots[b&r.mask].load() // out of every thief's reach
			q.taken(1)
			return x
		}
		q.bottom.Store(b + 1) // give slot b back; take from the top instead
	}
	// The oldest, through the CAS a thief uses. bottom is not touched:
	// like a thief, the owner takes index t only by moving top past it.
	for ; t <= b; t = q.top.Load() {
		x := r.slots[t&r.mask].load()
		if q.top.CompareAndSwap(t, t+1) {
			q.taken(1)
			return x
		}
	}
	return nil
}

// taken lowers count by the k tasks just taken.
func (q *spawnQueue) taken(k int64) {
	if q.count != nil {
		q.count.Add(-k)
	}
}

// steal takes up to half of the queue (at most stealMax, at least one
// task), oldest first, appending them to out. Any goroutine.
func (q *spawnQueue) steal(out []*task) ([]*task, stealResult) {
	t := q.top.Load()
	b := q.bottom.Load()
	n := b - t
	if n <= 0 {
		return out, empty
	}
	k := min((n+1)/2, stealMax)
	r := q.buf.Load()
	start := len(out)
	for i := int64(0); i < k; i++ {
		out = append(out, r.slots[(t+i)&r.mask].load())
	}
	if !q.top.CompareAndSwap(t, t+k) {
		clear(out[start:])
		return out[:start], contended
	}
	q.taken(k)
	return out, stolen
}

package forkjoin

// deque is the Chase–Lev work-stealing deque ("Dynamic Circular
// Work-Stealing deque", Chase and Lev, SPAA 2005) over *task, growable.
//
// One goroutine, the owner, pushes and pops at the bottom; any goroutine
// may steal from the top. Indices are int64 and only grow: top counts the
// tasks ever taken from the top, bottom the slots ever pushed at the
// bottom; the live tasks are those at indices top ≤ i < bottom, stored at
// buf[i & mask]. A full buffer is replaced by one twice as large holding
// the same live indices; a thief that still reads the old buffer finds the
// same task at the same index there (the owner never writes an old buffer
// again), and the garbage collector frees it once no thief holds it.
//
// Memory ordering. Go's atomics are sequentially consistent, which gives
// the algorithm the one store→load fence it needs (in pop, between the
// store of bottom and the load of top) without an explicit fence:
//
//   - push writes the slot, then publishes it by storing bottom+1. A thief
//     that loads the new bottom therefore sees the slot's content.
//   - pop first claims the bottom slot by storing bottom-1, then loads top.
//     A thief first loads top, then bottom, then CASes top. If pop's load of
//     top still shows the slot is not the last one (t < b), every thief that
//     could take index b must have loaded bottom after pop's store and sees
//     the deque as ending before b, so no thief takes it. When it is the
//     last one (t == b), owner and thieves race through the same CAS on top
//     and exactly one wins.
//   - steal takes index t only by CASing top from t to t+1, so each index
//     is taken by at most one thief and never also by the owner.
//
// Slots are atomic pointers because a slow thief may read a slot that the
// owner is overwriting after the buffer wrapped; the thief's CAS then fails
// and it drops what it read, but the read itself must not be a data race.

import (
	"math"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
)

const dequeInitialSize = 64

type ring struct {
	mask  int64
	slots []dequeSlot
}

// dequeSlot is a slot of a deque's ring: an atomic pointer (see the file
// comment), shared with spawnQueue (squeue.go), with the accessors
// dropStaleSlots uses.
type dequeSlot struct{ atomic.Pointer[task] }

func (s *dequeSlot) load() *task   { return s.Load() }
func (s *dequeSlot) store(t *task) { s.Store(t) }

func newRing(size int64) *ring {
	return &ring{mask: size - 1, slots: make([]dequeSlot, size)}
}

// ringQueue is what deque and spawnQueue (squeue.go) share: the indices,
// the ring, the owner's push and the growth. The zero value is not usable;
// see newRingQueue.
type ringQueue struct {
	top    atomic.Int64 // CASed by thieves, and by the owner on the last tasks
	_      cacheline.Pad
	bottom atomic.Int64 // written only by the owner
	buf    atomic.Pointer[ring]
	stale  staleRange // owner only: where taken tasks may be left (dropTaken)
	_      cacheline.Pad
}

func (q *ringQueue) init() { q.buf.Store(newRing(dequeInitialSize)) }

// push adds t at the bottom. Owner only.
func (q *ringQueue) push(t *task) {
	b := q.bottom.Load()
	top := q.top.Load()
	r := q.buf.Load()
	if b-top > r.mask {
		r = q.growTo(r, top, b, b-top+1)
	}
	r.slots[b&r.mask].Store(t)
	q.bottom.Store(b + 1) // publish the slot
	q.stale.pushed(b, b+1)
}

// growTo replaces the ring by one of at least need slots (and at least
// twice the old size) holding the live tasks at the same indices.
func (q *ringQueue) growTo(old *ring, top, bottom, need int64) *ring {
	size := 2 * (old.mask + 1)
	for size < need {
		size *= 2
	}
	r := newRing(size)
	for i := top; i < bottom; i++ {
		r.slots[i&r.mask].Store(old.slots[i&old.mask].Load())
	}
	q.buf.Store(r)
	return r
}

// dropTaken clears the slots of tasks that were taken. Taking a task
// leaves its pointer in its slot until the ring comes round to it again,
// and until then the slot keeps the task alive, and through it the user
// data it holds (an intrusive Task is embedded in the user's own struct).
// Owner only, between pushes; see dropStaleSlots for which slots.
func (q *ringQueue) dropTaken() {
	t, b := q.top.Load(), q.bottom.Load()
	if q.stale.none(t, b) {
		return
	}
	r := q.buf.Load()
	dropStaleSlots(&q.stale, r.slots, r.mask, t, b)
}

// staleRange bounds the indices of a queue's ring whose slots may still
// point to taken tasks that hold memory of the user's: [lo, hw), where lo
// is top at the last clearing and hw the highest bottom since, and, within
// it, nothing below hold. The owner raises hw at each push; thieves never
// write it.
//
// A slot left pointing to a pooled task (a Scope's task: the pool's own
// struct, which its end empties, scopeTask.over) keeps nothing of the
// user's alive, so it need not be cleared. Clearing a slot the thieves read
// is a write to a line the other core holds: clearing the 2,000 slots of a
// Scope of 2,000 small tasks would take ~5 µs between the Scope's end and
// its Run's, more than the Scope's own end. The invariant,
// kept by the owner between pushes:
//
//   - a slot whose last write was for an index outside [lo, hw) is empty
//     or points to a pooled task;
//   - so is a slot whose last write was for an index in [lo, hold).
//
// A push of tasks that are not pooled lowers hold to its first index; a
// clearing empties the taken slots at or above hold and then makes hold
// at least the new lo (a slot below hold was pooled; a live slot at or
// above it may not be), or the largest index if no live slot is at or
// above it. The zero value (hold = 0) assumes nothing pooled; an empty
// ring may start with hold at its largest (newSpawnQueue).
type staleRange struct{ lo, hw, hold int64 }

// pushed records that tasks not known to be pooled were pushed at indices
// [from, to).
func (s *staleRange) pushed(from, to int64) {
	if to > s.hw {
		s.hw = to
	}
	if from < s.hold {
		s.hold = from
	}
}

// pushedPooled records that pooled tasks were pushed up to index to.
func (s *staleRange) pushedPooled(to int64) {
	if to > s.hw {
		s.hw = to
	}
}

// none reports that nothing was pushed or taken since the last clearing,
// for a live range [t, b): no slot can be stale.
func (s *staleRange) none(t, b int64) bool { return t == s.lo && b == s.hw }

// slotOf is a pointer to a ring slot of type S (dequeSlot).
type slotOf[S any] interface {
	*S
	load() *task
	store(*task)
}

// dropStaleSlots clears the stale slots of a ring of mask+1 slots whose
// live range is [t, b), both loaded by the owner between pushes: [lo, t),
// taken from the top since the last clearing, and [b, hw), pushed and
// taken back at the bottom, each from hold up (see staleRange); every slot
// outside [t, b) if more than a ring's worth was pushed (unless every push
// since was pooled). The cost is what was pushed and taken since the
// last clearing, not the ring's size. Thieves may advance top meanwhile:
// what they take after t was loaded is cleared next time. A slow thief may
// still read a slot being cleared; that is the read of a taken slot whose
// CAS of top fails (see the file comment), and it drops the nil it read.
func dropStaleSlots[S any, P slotOf[S]](s *staleRange, slots []S, mask, t, b int64) {
	switch {
	case s.hold >= s.hw:
		// Every slot outside the live range is empty or pooled already.
	case s.hw-s.lo > mask:
		clearSlots[S, P](slots, mask, b, t+mask+1)
	default:
		clearSlots[S, P](slots, mask, max(s.lo, s.hold), t)
		clearSlots[S, P](slots, mask, max(b, s.hold), s.hw)
	}
	s.lo, s.hw, s.hold = t, b, max(s.hold, t)
	if s.hold >= b {
		s.hold = math.MaxInt64 // no live slot may hold: nothing below b does
	}
}

// clearSlots empties the slots of indices [from, to).
func clearSlots[S any, P slotOf[S]](slots []S, mask, from, to int64) {
	for i := from; i < to; i++ {
		if sl := P(&slots[i&mask]); sl.load() != nil {
			sl.store(nil)
		}
	}
}

// size is a snapshot of the number of tasks (may be stale at once).
func (q *ringQueue) size() int {
	n := q.bottom.Load() - q.top.Load()
	if n < 0 {
		return 0
	}
	return int(n)
}

// deque is a growable work-stealing deque of tasks. The zero value is not
// usable; see newDeque.
type deque struct{ ringQueue }

func newDeque() *deque {
	d := &deque{}
	d.init()
	return d
}

// pop removes the task at the bottom, or returns nil if the deque is empty
// (or a thief took the last task). Owner only.
//
// An empty deque is recognised before the claim: only the owner adds
// tasks, so top ≥ bottom seen by the owner means empty at the moment top
// was loaded, and the claim's store and fence (an atomic exchange, several
// nanoseconds) are saved on the many pops of empty queues a search makes.
func (d *deque) pop() *task {
	b := d.bottom.Load() - 1
	if d.top.Load() > b {
		return nil
	}
	r := d.buf.Load()
	d.bottom.Store(b) // claim slot b before looking at top (the fence)
	t := d.top.Load()
	if t > b { // empty
		d.bottom.Store(b + 1)
		return nil
	}
	x := r.slots[b&r.mask].Load()
	if t < b { // more than one task: no thief can reach slot b
		return x
	}
	// The last task: race the thieves for it through top.
	won := d.top.CompareAndSwap(t, t+1)
	d.bottom.Store(b + 1)
	if !won {
		return nil
	}
	return x
}

// stealResult says why steal returned no task.
type stealResult uint8

const (
	stolen stealResult = iota
	empty
	contended // lost a race; the deque may still hold tasks
)

// steal takes the task at the top. Any goroutine.
func (d *deque) steal() (*task, stealResult) {
	t := d.top.Load()
	b := d.bottom.Load()
	if t >= b {
		return nil, empty
	}
	r := d.buf.Load()
	x := r.slots[t&r.mask].Load()
	if !d.top.CompareAndSwap(t, t+1) {
		return nil, contended
	}
	return x, stolen
}

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
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
)

const dequeInitialSize = 64

type ring struct {
	mask  int64
	slots []dequeSlot
}

// dequeSlot is a slot of a deque's ring: an atomic pointer (see the file
// comment), with the accessors dropTakenSlots shares with spawnSlot.
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
	pushed bool // owner only: a push since the last dropTaken
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
	q.pushed = true
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

// dropTaken clears the slots outside the live range [top, bottom). Taking
// a task leaves its pointer in its slot until the ring comes round to it
// again, and until then the slot keeps the task alive, and through it the
// user data it holds (an intrusive Task is embedded in the user's own
// struct). Owner only, between pushes. Thieves may advance top meanwhile:
// the range cleared, [bottom, top+size) for the top loaded here, lies
// outside the live range whatever they do. A slow thief may still read a
// slot being cleared; that is the read of a taken slot whose CAS of top
// fails (see the file comment), and it drops the nil it read.
func (q *ringQueue) dropTaken() {
	if !q.pushed {
		return // every slot was cleared already, or never written
	}
	q.pushed = false
	r := q.buf.Load()
	dropTakenSlots(r.slots, r.mask, q.top.Load(), q.bottom.Load())
}

// dropTakenSlots clears the slots of a ring of mask+1 slots that lie
// outside [t, b): indices b to t+mask.
func dropTakenSlots[S any, P interface {
	*S
	load() *task
	store(*task)
}](slots []S, mask, t, b int64) {
	for i := b; i < t+mask+1; i++ {
		if s := P(&slots[i&mask]); s.load() != nil {
			s.store(nil)
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

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
	slots []atomic.Pointer[task]
}

func newRing(size int64) *ring {
	return &ring{mask: size - 1, slots: make([]atomic.Pointer[task], size)}
}

// deque is a growable work-stealing deque of tasks. The zero value is not
// usable; see newDeque.
type deque struct {
	top    atomic.Int64 // CASed by thieves and by the owner on the last task
	_      cacheline.Pad
	bottom atomic.Int64 // written only by the owner
	buf    atomic.Pointer[ring]
	_      cacheline.Pad
}

func newDeque() *deque {
	d := &deque{}
	d.buf.Store(newRing(dequeInitialSize))
	return d
}

// push adds t at the bottom. Owner only.
func (d *deque) push(t *task) {
	b := d.bottom.Load()
	top := d.top.Load()
	r := d.buf.Load()
	if b-top > r.mask {
		r = d.grow(r, top, b)
	}
	r.slots[b&r.mask].Store(t)
	d.bottom.Store(b + 1) // publish the slot
}

func (d *deque) grow(old *ring, top, bottom int64) *ring {
	r := newRing(2 * (old.mask + 1))
	for i := top; i < bottom; i++ {
		r.slots[i&r.mask].Store(old.slots[i&old.mask].Load())
	}
	d.buf.Store(r)
	return r
}

// pop removes the task at the bottom, or returns nil if the deque is empty
// (or a thief took the last task). Owner only.
func (d *deque) pop() *task {
	b := d.bottom.Load() - 1
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

// size is a snapshot of the number of tasks (may be stale at once).
func (d *deque) size() int {
	n := d.bottom.Load() - d.top.Load()
	if n < 0 {
		return 0
	}
	return int(n)
}

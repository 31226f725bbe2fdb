package deque

// SpawnQueue is a work-stealing queue on the ring of ring.go whose thieves
// take up to half of it at once, so that a participant that runs out of
// work takes a share of a busy one's queue with one CAS instead of coming
// back for every element. It differs from Deque in two places:
//
//   - Steal claims a range [t, t+k) of the oldest elements with one CAS of
//     top from t to t+k, where k ≤ StealMax and k ≤ half of what it saw
//     (at least one); StealUpTo bounds k further, which the argument
//     below allows (it needs only k ≤ StealMax and k ≤ half).
//   - Pop takes the newest element (index b, after storing bottom = b)
//     without a CAS only if b - t ≥ StealMax for the top t it loads after
//     that store. Otherwise it takes the OLDEST element through the CAS of
//     top a thief uses, without touching bottom: one atomic operation per
//     element instead of three. So with StealMax elements or fewer the
//     owner takes them first in, first out; forkjoin's spawned tasks
//     promise no order within a priority.
//
// Why no element is taken twice. Indices taken through the CAS of top go
// to exactly one taker (ring.go). Index b goes to the owner without a CAS
// only under b - t0 ≥ StealMax, t0 being the top it loaded after its store
// of bottom = b. Take a thief whose CAS of top from t to t+k succeeds.
//
//   - If the CAS came before the owner's load of top, t0 ≥ t+k, so b lies
//     above the thief's range.
//   - Otherwise top was still t at the CAS, after the owner's load of t0,
//     so t ≥ t0 (top never decreases). If the thief loaded bottom after the
//     owner's store, it saw bottom ≤ b (or the bottom of a later push, which
//     put a new element at b after the pop was over), so its range ends at
//     or below b. If it loaded bottom before the owner's store, its load of
//     top came before the owner's load of top as well, so t ≤ t0, hence
//     t = t0, and its range [t0, t0+k), with k ≤ StealMax ≤ b - t0, ends
//     below b.
//
// "Before" and "after" refer to the single order of Go's sequentially
// consistent atomics; the owner's store of bottom and its load of top are
// the store→load pair of Deque's pop.

import (
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
)

// StealMax is the most elements one Steal takes from a SpawnQueue.
const StealMax = 32

// SpawnQueue is a growable work-stealing queue of *T whose thieves take up
// to half of it (see the file comment). The zero value is not usable; see
// NewSpawnQueue.
type SpawnQueue[T any] struct {
	ring[T]
	// count, if not nil, counts the elements of this queue together with
	// those of other queues that share it (forkjoin: every participant's
	// High queue). It is raised before elements are published and
	// lowered after they are taken, so it is never below the number of
	// elements in those queues: zero means they are all empty. Set once
	// (CountIn), before the queue is used.
	count *atomic.Int64
	_     cacheline.Pad
}

// NewSpawnQueue returns an empty SpawnQueue.
func NewSpawnQueue[T any]() *SpawnQueue[T] {
	q := &SpawnQueue[T]{}
	q.init()
	return q
}

// CountIn makes q count its elements in c as well (see the count field).
// Call it before q is used.
func (q *SpawnQueue[T]) CountIn(c *atomic.Int64) { q.count = c }

// add moves count by k.
func (q *SpawnQueue[T]) add(k int64) {
	if q.count != nil {
		q.count.Add(k)
	}
}

// Push adds x at the bottom. pooled says that x's slot may be left
// pointing to it once it is taken (see stale.go). Owner only.
func (q *SpawnQueue[T]) Push(x *T, pooled bool) { q.push(x, pooled, q.count) }

// PushMany adds xs at the bottom in order (xs[0] first) with one
// publication. Owner only.
func (q *SpawnQueue[T]) PushMany(xs []*T) {
	if len(xs) == 0 {
		return
	}
	n := int64(len(xs))
	q.add(n)
	b := q.bottom.Load()
	a := q.arr.Load()
	if t := q.top.Load(); b+n-t > a.mask+1 { // no room for n more
		a = q.grow(a, t, b, n)
	}
	for i, x := range xs {
		a.slots[(b+int64(i))&a.mask].Store(x)
	}
	q.bottom.Store(b + n) // publishes the slots (ring.go)
	q.stale.pushed(b, b+n, false)
}

// Pop removes an element: the newest while more than StealMax are queued,
// else the oldest; nil if the queue is empty. Owner only.
func (q *SpawnQueue[T]) Pop() *T {
	b := q.bottom.Load() - 1
	t := q.top.Load()
	if t > b {
		return nil // empty: only the owner adds elements
	}
	a := q.arr.Load()
	if b-t >= StealMax {
		q.bottom.Store(b) // claim index b, then look at top (the file comment)
		if t = q.top.Load(); b-t >= StealMax {
			q.add(-1)
			return a.slots[b&a.mask].Load() // out of every thief's reach
		}
		q.bottom.Store(b + 1) // give index b back; take from the top instead
	}
	return q.takeOldest(a, t, b)
}

// PopOldest removes the oldest element, or returns nil if the queue is
// empty. Owner only.
func (q *SpawnQueue[T]) PopOldest() *T {
	return q.takeOldest(q.arr.Load(), q.top.Load(), q.bottom.Load()-1)
}

// takeOldest takes the element at the top through the CAS a thief uses,
// starting from a top t loaded by the owner; a is the array and b the last
// live index, which stay so (only the owner changes them). Like a thief,
// the owner takes index t only by moving top past it. Owner only.
func (q *SpawnQueue[T]) takeOldest(a *array[T], t, b int64) *T {
	for ; t <= b; t = q.top.Load() {
		if x := a.slots[t&a.mask].Load(); q.top.CompareAndSwap(t, t+1) {
			q.add(-1)
			return x
		}
	}
	return nil
}

// Steal takes up to half of the queue (at most StealMax, at least one
// element), oldest first, appending them to out. Any goroutine.
func (q *SpawnQueue[T]) Steal(out []*T) ([]*T, Result) { return q.StealUpTo(out, StealMax) }

// StealUpTo is Steal taking at most most elements (1 ≤ most ≤ StealMax):
// for a thief that will run one and has no use for the rest. Any
// goroutine.
func (q *SpawnQueue[T]) StealUpTo(out []*T, most int64) ([]*T, Result) {
	t := q.top.Load()
	b := q.bottom.Load() // after top: see "no element is taken twice"
	n := b - t
	if n <= 0 {
		return out, Empty
	}
	k := min((n+1)/2, most, StealMax)
	a := q.arr.Load()
	start := len(out)
	for i := range k {
		out = append(out, a.slots[(t+i)&a.mask].Load()) // valid only if the CAS succeeds (ring.go)
	}
	if !q.top.CompareAndSwap(t, t+k) {
		clear(out[start:])
		return out[:start], Contended
	}
	q.add(-k)
	return out, Stolen
}

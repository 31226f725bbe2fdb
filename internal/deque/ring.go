package deque

// The ring that Deque and SpawnQueue share: the indices, the array of
// slots, the owner's push and the growth.
//
// Indices are int64 and only grow. top counts the elements ever taken from
// the top; bottom is the index the next push writes. The live elements are
// those at indices top ≤ i < bottom, each in slot i&mask of the current
// array. Only the owner writes bottom and the slots. top moves only
// forward and only by a compare-and-swap, made by a thief, or by the owner
// when it takes an element the thieves can reach too: so each index taken
// from the top goes to exactly one taker.
//
// Publication. A push writes the slot, then stores bottom. A thief loads
// top, then bottom, then reads slots below that bottom; since the atomics
// are sequentially consistent, a thief that loads the new bottom (or a
// later one) sees what was written to the slot before it.
//
// Growth. A push that would write the slot of a live element first copies
// the live elements into an array at least twice as large, at the same
// indices, and stores the new array. The owner never writes the old array
// again, so a thief that loaded it before the switch finds there the same
// element at every index it may take; the garbage collector frees the old
// array once no thief holds it.
//
// Why the slots are atomic pointers. A thief reads the slots it wants
// before the CAS of top that claims them. While top still equals the t it
// loaded, the owner writes only indices below t plus the array's size,
// so none of those slots is overwritten, and a successful CAS proves that
// what it read is what was pushed there. But if others took those indices
// meanwhile, the owner may have come round the ring and be writing the
// very slot the slow thief reads; that thief's CAS fails and it drops what
// it read, yet the read itself must not be a data race. The runtime's
// sync/poolqueue.go pays an atomic per slot for the same reason.

import (
	"math"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
)

// initialSize is the number of slots of a new queue's array: small, as a
// participant may never queue anything (a compensating goroutine, say);
// the array doubles as needed.
const initialSize = 16

// array holds the slots of a ring: index i is in slots[i&mask].
type array[T any] struct {
	mask  int64
	slots []atomic.Pointer[T]
}

func newArray[T any](size int64) *array[T] {
	return &array[T]{mask: size - 1, slots: make([]atomic.Pointer[T], size)}
}

// ring is the part of a queue that Deque and SpawnQueue share (see the file
// comment). Each of them ends with a cacheline.Pad of its own, so that what
// it adds stays on the owner's line. The zero value is not usable; see
// init.
type ring[T any] struct {
	top    atomic.Int64 // CASed forward by thieves, and by the owner on elements they can reach
	_      cacheline.Pad
	bottom atomic.Int64 // written only by the owner
	arr    atomic.Pointer[array[T]]
	stale  staleRange // owner only: where taken elements may be left (DropTaken)
}

func (r *ring[T]) init() {
	r.stale.hold = math.MaxInt64 // every slot is empty (see staleRange)
	r.arr.Store(newArray[T](initialSize))
}

// grow replaces the array by one large enough for the live elements
// [top, bottom) and n more, and at least twice the old size, holding the
// live elements at the same indices; it returns the new array. Owner
// only, when a push of n elements at bottom finds old too small.
func (r *ring[T]) grow(old *array[T], top, bottom, n int64) *array[T] {
	size := 2 * (old.mask + 1)
	for size < bottom+n-top {
		size *= 2
	}
	a := newArray[T](size)
	for i := top; i < bottom; i++ {
		a.slots[i&a.mask].Store(old.slots[i&old.mask].Load())
	}
	r.arr.Store(a) // thieves that load the old array still find the same elements there
	return a
}

// push adds x at the bottom. pooled says that x's slot may be left
// pointing to it once it is taken (see staleRange). count, if not nil, is
// raised before x is published (SpawnQueue's count). Owner only.
func (r *ring[T]) push(x *T, pooled bool, count *atomic.Int64) {
	if count != nil {
		count.Add(1)
	}
	b := r.bottom.Load()
	a := r.arr.Load()
	if t := r.top.Load(); b-t > a.mask { // full: slot b&mask holds index b-size, live
		a = r.grow(a, t, b, 1)
	}
	a.slots[b&a.mask].Store(x)
	r.bottom.Store(b + 1) // publishes the slot (see the file comment)
	r.stale.pushed(b, b+1, pooled)
}

// Len is the number of elements at the moment of its loads; thieves may
// change it at once. Exact for the owner only while nobody steals.
func (r *ring[T]) Len() int {
	n := r.bottom.Load() - r.top.Load()
	if n < 0 {
		return 0 // a pop lost the last element to a thief and has not yet put bottom back
	}
	return int(n)
}

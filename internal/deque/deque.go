package deque

// Deque is the Chase–Lev work-stealing deque ("Dynamic Circular
// Work-Stealing Deque", Chase and Lev, SPAA 2005) on the ring of ring.go.
//
// The owner pushes and pops at the bottom, newest first; a thief steals
// the oldest element, at the top, by a CAS of top from t to t+1. The
// owner's pop claims index b = bottom-1 by storing bottom = b, then loads
// top: if the element is not the last one, no thief can reach it and the
// pop takes it with no CAS; if it is the last, owner and thieves race for
// it through the same CAS of top.
//
// Why no element is taken twice. A steal takes index t only by moving top
// from t to t+1, so each index is stolen at most once, and never also by
// the owner's CAS on the last element. It remains that a pop without a CAS
// and a thief take the same index b. The pop stored bottom = b, then
// loaded a top t0 < b. The thief loaded top = b, so after the pop's load of
// t0 (top never decreases), and then loaded bottom: after the pop's store
// of bottom = b. So it saw bottom ≤ b and took nothing (t ≥ bottom), or the
// bottom of a later push, which put a new element at index b after the pop
// was over. This needs the pop's store of bottom to come before its load
// of top, the one store→load fence of the algorithm; Go's atomics are
// sequentially consistent, so it is implied.

import "github.com/forkjoin-go/forkjoin/internal/cacheline"

// Result says how a steal ended.
type Result uint8

const (
	Stolen    Result = iota // the thief took elements
	Empty                   // the queue held nothing when the thief looked
	Contended               // the thief lost a race; the queue may still hold elements
)

// Deque is a growable Chase–Lev work-stealing deque of *T (see the file
// comment). The zero value is not usable; see New.
type Deque[T any] struct {
	ring[T]
	_ cacheline.Pad
}

// New returns an empty Deque.
func New[T any]() *Deque[T] {
	d := &Deque[T]{}
	d.init()
	return d
}

// Push adds x at the bottom. Owner only.
func (d *Deque[T]) Push(x *T) { d.push(x, false, nil) }

// Pop removes and returns the element at the bottom, the newest, or
// returns nil if the deque is empty (or a thief took the last element).
// Owner only.
func (d *Deque[T]) Pop() *T {
	b := d.bottom.Load() - 1
	if d.top.Load() > b {
		// Empty: only the owner adds elements, so top ≥ bottom seen by the
		// owner means empty when top was loaded. This saves the claim's
		// store (an atomic exchange) on the many pops of empty deques that
		// a search for work makes.
		return nil
	}
	a := d.arr.Load()
	d.bottom.Store(b) // claim index b, then look at top: the fence (file comment)
	t := d.top.Load()
	if t > b { // thieves took everything since the first look
		d.bottom.Store(b + 1)
		return nil
	}
	x := a.slots[b&a.mask].Load()
	if t < b {
		return x // not the last element: no thief can reach index b
	}
	// The last element: race the thieves for it through top.
	won := d.top.CompareAndSwap(t, t+1)
	d.bottom.Store(b + 1) // empty either way: top and bottom both b+1
	if !won {
		return nil
	}
	return x
}

// Steal takes the element at the top, the oldest. Any goroutine.
func (d *Deque[T]) Steal() (*T, Result) {
	t := d.top.Load()
	b := d.bottom.Load() // after top: see "no element is taken twice"
	if t >= b {
		return nil, Empty
	}
	a := d.arr.Load()
	x := a.slots[t&a.mask].Load() // valid only if the CAS succeeds (ring.go)
	if !d.top.CompareAndSwap(t, t+1) {
		return nil, Contended
	}
	return x, Stolen
}

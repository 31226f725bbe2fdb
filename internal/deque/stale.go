package deque

// Clearing the slots of taken elements (DropTaken).
//
// Taking an element leaves its pointer in its slot until the ring comes
// round to that slot again, and until then the slot keeps the element
// alive, and through it whatever it points to: forkjoin's intrusive Task
// is embedded in the user's own struct. DropTaken, called by the owner
// between pushes (forkjoin calls it at a participant's top level), empties
// those slots.
//
// Some elements keep nothing of the user's alive: forkjoin's Scope tasks
// are the pool's own structs, emptied when their Scope ends. The owner
// pushes those as pooled, and their slots may stay as they are. That
// matters because clearing a slot the thieves read is a write to a line
// another core holds: clearing the 2,000 slots of a Scope of 2,000 small
// tasks would cost more, between the Scope's end and its Run's, than the
// Scope's own end.
//
// So the owner keeps a staleRange, [lo, hw) and hold, with the invariant
// (between pushes):
//
//   - a slot whose last write was for an index outside [lo, hw) is empty
//     or points to a pooled element;
//   - so is a slot whose last write was for an index in [lo, hold).
//
// lo is top at the last clearing and hw the highest bottom since. A push
// raises hw to its end and, unless it is pooled, lowers hold to its
// first index. A clearing empties the taken slots at or above hold, then
// sets lo and hw to the live range and raises hold to at least the new lo
// (a slot below hold was pooled; a live slot at or above it may not be),
// or past every index if no live slot is at or above it. A new ring's
// slots are all empty: it starts with hold past every index.
//
// Thieves never write the staleRange. They may move top on while
// DropTaken runs: what they take after its load of top is cleared the
// next time. A slow thief may read a slot being cleared; that is the read
// of a taken index whose CAS of top fails (ring.go), and it drops the nil
// it read.

import "math"

// staleRange bounds the slots that may still point to taken elements that
// are not pooled (see the file comment). Owner only.
type staleRange struct{ lo, hw, hold int64 }

// pushed records that elements were pushed at indices [from, to); pooled
// says that all of them were.
func (s *staleRange) pushed(from, to int64, pooled bool) {
	if to > s.hw {
		s.hw = to
	}
	if !pooled && from < s.hold {
		s.hold = from
	}
}

// DropTaken empties the slots that still point to taken elements, except
// those of pooled ones. Its cost is what was pushed and taken since the
// last call, not the ring's size. Owner only, between pushes.
func (r *ring[T]) DropTaken() {
	t, b := r.top.Load(), r.bottom.Load()
	s := &r.stale
	if t == s.lo && b == s.hw {
		return // nothing pushed or taken since the last clearing
	}
	a := r.arr.Load()
	switch {
	case s.hold >= s.hw:
		// Every slot outside the live range is empty or pooled already.
	case s.hw-s.lo > a.mask:
		// More than a ring's worth was pushed: any slot outside [t, b).
		a.clear(b, t+a.mask+1)
	default:
		a.clear(max(s.lo, s.hold), t) // taken from the top
		a.clear(max(b, s.hold), s.hw) // pushed, then taken back at the bottom
	}
	s.lo, s.hw, s.hold = t, b, max(s.hold, t)
	if s.hold >= b {
		s.hold = math.MaxInt64 // no live slot is at or above hold
	}
}

// clear empties the slots of indices [from, to); it writes only those that
// are not empty already.
func (a *array[T]) clear(from, to int64) {
	for i := from; i < to; i++ {
		if sl := &a.slots[i&a.mask]; sl.Load() != nil {
			sl.Store(nil)
		}
	}
}

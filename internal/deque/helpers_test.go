package deque

import "pgregory.net/rapid"

// item is an element with an identity, as the tests push them.
type item struct {
	id     int
	pooled bool // pushed as pooled (SpawnQueue.Push): its slot may stay
}

// capacity is the number of slots of r's array.
func (r *ring[T]) capacity() int64 { return r.arr.Load().mask + 1 }

// checkShape is the invariant of the model tests: the queue holds as many
// elements as the model and has room for them. It returns the capacity.
func checkShape(rt *rapid.T, r *ring[item], n int) int64 {
	if r.Len() != n {
		rt.Fatalf("Len %d, model holds %d", r.Len(), n)
	}
	c := r.capacity()
	if c < int64(n) {
		rt.Fatalf("capacity %d below Len %d", c, n)
	}
	return c
}

// checkDropped checks a ring just after DropTaken: the live range holds
// the model's elements in order (top first), and every other slot is
// empty or holds a pooled element (see stale.go), whatever was pushed,
// popped and stolen before.
func checkDropped(rt *rapid.T, r *ring[item], model []int) {
	t, b := r.top.Load(), r.bottom.Load()
	if b-t != int64(len(model)) {
		rt.Fatalf("live range [%d, %d), model holds %d", t, b, len(model))
	}
	a := r.arr.Load()
	for i := t; i < t+a.mask+1; i++ {
		got := a.slots[i&a.mask].Load()
		if i < b {
			if got == nil || got.id != model[i-t] {
				rt.Fatalf("after DropTaken, live slot %d does not hold element %d", i, model[i-t])
			}
		} else if got != nil && !got.pooled {
			rt.Fatalf("after DropTaken, slot %d (live range [%d, %d)) still holds element %d", i, t, b, got.id)
		}
	}
}

// xorshift is the stress tests' random sequence: the same every run.
func xorshift(x *uint64) uint64 {
	*x ^= *x << 13
	*x ^= *x >> 7
	*x ^= *x << 17
	return *x
}

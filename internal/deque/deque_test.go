package deque

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"
)

// TestDequeModel checks the deque against a slice, one goroutine playing
// owner and thief: Push and Pop at the bottom (the end of the slice),
// Steal at the top (its start), in random sequences long enough to grow
// the ring several times past its initial 64 slots and to shrink it back
// to empty; and DropTaken, after which only the live slots hold elements.
func TestDequeModel(t *testing.T) {
	maxCap := int64(0)
	rapid.Check(t, func(rt *rapid.T) {
		d := New[item]()
		var model []int // ids, top first
		next := 0
		push := func() {
			d.Push(&item{id: next})
			model = append(model, next)
			next++
		}
		pop := func(rt *rapid.T) {
			got := d.Pop()
			if len(model) == 0 {
				if got != nil {
					rt.Fatalf("Pop of an empty deque returned element %d", got.id)
				}
				return
			}
			want := model[len(model)-1]
			model = model[:len(model)-1]
			if got == nil {
				rt.Fatalf("Pop returned nil, want element %d", want)
			}
			if got.id != want {
				rt.Fatalf("Pop returned element %d, want %d", got.id, want)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"push": func(*rapid.T) { push() },
			"pushRun": func(rt *rapid.T) {
				for n := rapid.IntRange(1, 300).Draw(rt, "n"); n > 0; n-- {
					push()
				}
			},
			"pop": pop,
			"popRun": func(rt *rapid.T) {
				for n := rapid.IntRange(1, 300).Draw(rt, "n"); n > 0; n-- {
					pop(rt)
				}
			},
			"steal": func(rt *rapid.T) {
				got, r := d.Steal()
				if len(model) == 0 {
					if r != Empty || got != nil {
						rt.Fatalf("Steal from an empty deque: result %d, element %v", r, got)
					}
					return
				}
				want := model[0]
				model = model[1:]
				if r != Stolen {
					rt.Fatalf("Steal without contention: result %d, want Stolen", r)
				}
				if got.id != want {
					rt.Fatalf("Steal returned element %d, want %d", got.id, want)
				}
			},
			"dropTaken": func(rt *rapid.T) {
				d.DropTaken()
				checkDropped(rt, &d.ring, model)
			},
			"": func(rt *rapid.T) { maxCap = max(maxCap, checkShape(rt, &d.ring, len(model))) },
		})
		for len(model) > 0 {
			pop(rt)
		}
		if got := d.Pop(); got != nil {
			rt.Fatalf("Pop after draining returned element %d", got.id)
		}
	})
	if maxCap < 4*initialSize {
		t.Errorf("the ring never grew past %d slots: the sequences were too short", maxCap)
	}
}

// TestDequeManyThieves: the owner pushes every element once, popping some
// back and clearing taken slots (DropTaken) at random as it goes, while
// thieves steal; every element must be taken exactly once, by the owner or
// by one thief.
func TestDequeManyThieves(t *testing.T) {
	n := stressElements
	items := make([]item, n)
	for i := range items {
		items[i].id = i
	}
	counts := make([]atomic.Int32, n)
	var taken, steals, contentions, pops atomic.Int64
	take := func(x *item) {
		counts[x.id].Add(1)
		taken.Add(1)
	}

	d := New[item]()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range stressThieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				x, r := d.Steal()
				switch r {
				case Stolen:
					take(x)
					steals.Add(1)
				case Contended:
					contentions.Add(1)
				case Empty:
					runtime.Gosched()
				}
			}
		}()
	}

	rng := uint64(0x9E3779B97F4A7C15)
	for i := range items {
		d.Push(&items[i])
		r := xorshift(&rng)
		if r%4 == 0 { // pop a few back, as joins do
			for k := r / 4 % 4; k > 0; k-- {
				x := d.Pop()
				if x == nil {
					break
				}
				take(x)
				pops.Add(1)
			}
		}
		if r%64 == 1 { // clear taken slots while thieves steal
			d.DropTaken()
		}
	}
	for x := d.Pop(); x != nil; x = d.Pop() {
		take(x)
		pops.Add(1)
	}
	// The deque is empty now. A thief that stole an element counts it
	// before it looks at stop again, so once every thief has returned,
	// every element taken is counted.
	stop.Store(true)
	wg.Wait()

	if d.Len() != 0 {
		t.Errorf("deque not empty at the end: Len %d", d.Len())
	}
	for i := range counts {
		if c := counts[i].Load(); c != 1 {
			t.Fatalf("element %d taken %d times (%d of %d taken in all)", i, c, taken.Load(), n)
		}
	}
	t.Logf("%d elements: %d stolen, %d popped by the owner, %d lost races", n, steals.Load(), pops.Load(), contentions.Load())
	if steals.Load() == 0 {
		t.Errorf("no thief ever stole: the test did not test concurrency")
	}
}

// sinkHole keeps the delay loops of the stress tests from being optimised
// away.
var sinkHole atomic.Uint64

// TestDequeLastElement: the owner pushes one element at a time and pops
// it back at once, so that every pop races the thieves for the last
// element (Pop's CAS of top); each element must be taken exactly once.
func TestDequeLastElement(t *testing.T) {
	n := stressElements
	items := make([]item, n)
	for i := range items {
		items[i].id = i
	}
	counts := make([]atomic.Int32, n)
	var taken, steals atomic.Int64
	take := func(x *item) {
		counts[x.id].Add(1)
		taken.Add(1)
	}
	d := New[item]()
	var wg sync.WaitGroup
	for range stressThieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for taken.Load() < int64(n) {
				if x, r := d.Steal(); r == Stolen {
					take(x)
					steals.Add(1)
				}
			}
		}()
	}
	rng, sink := uint64(0x9E3779B97F4A7C15), uint64(0)
	for i := range items {
		d.Push(&items[i])
		// A varying delay before the pop, so that it meets a thief's steal
		// at every step of it.
		for k := xorshift(&rng) % 128; k > 0; k-- {
			sink += k
		}
		if x := d.Pop(); x != nil {
			take(x)
		}
	}
	sinkHole.Store(sink)
	wg.Wait() // the thieves stop once every element is taken: a lost one hangs the test
	for i := range counts {
		if c := counts[i].Load(); c != 1 {
			t.Fatalf("element %d taken %d times (%d of %d taken in all)", i, c, taken.Load(), n)
		}
	}
	t.Logf("%d elements: %d stolen", n, steals.Load())
	if steals.Load() == 0 {
		t.Errorf("no thief ever stole: the test did not test the race")
	}
}

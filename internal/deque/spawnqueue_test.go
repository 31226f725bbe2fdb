package deque

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"
)

// TestSpawnQueueModel checks the spawn queue against a slice, one
// goroutine playing owner and thief: Push and PushMany at the bottom (the
// end of the slice); Pop takes the newest while more than StealMax
// elements are queued and the oldest otherwise; PopOldest the oldest;
// Steal takes the oldest half (at most StealMax, at least one); after
// DropTaken only the live slots hold elements, apart from pooled ones
// (Push's flag). The count follows the model throughout. The sequences
// are long enough to grow the ring several times and to drain it.
func TestSpawnQueueModel(t *testing.T) {
	maxCap := int64(0)
	rapid.Check(t, func(rt *rapid.T) {
		q := NewSpawnQueue[item]()
		var count atomic.Int64
		q.CountIn(&count)
		var model []int // ids, top first
		next := 0
		newItem := func(pooled bool) *item {
			it := &item{id: next, pooled: pooled}
			model = append(model, next)
			next++
			return it
		}
		check := func(rt *rapid.T, what string, got *item, newest bool) {
			if len(model) == 0 {
				if got != nil {
					rt.Fatalf("%s of an empty queue returned element %d", what, got.id)
				}
				return
			}
			var want int
			if newest {
				want = model[len(model)-1]
				model = model[:len(model)-1]
			} else {
				want = model[0]
				model = model[1:]
			}
			if got == nil {
				rt.Fatalf("%s returned nil, want element %d", what, want)
			}
			if got.id != want {
				rt.Fatalf("%s returned element %d, want %d (Len %d)", what, got.id, want, len(model)+1)
			}
		}
		pop := func(rt *rapid.T) { check(rt, "Pop", q.Pop(), len(model)-1 >= StealMax) }
		rt.Repeat(map[string]func(*rapid.T){
			"push": func(rt *rapid.T) {
				pooled := rapid.Bool().Draw(rt, "pooled")
				q.Push(newItem(pooled), pooled)
			},
			"pushMany": func(rt *rapid.T) {
				n := rapid.IntRange(0, 300).Draw(rt, "n")
				xs := make([]*item, n)
				for i := range xs {
					xs[i] = newItem(false)
				}
				q.PushMany(xs)
			},
			"pop": pop,
			"popRun": func(rt *rapid.T) {
				for n := rapid.IntRange(1, 300).Draw(rt, "n"); n > 0; n-- {
					pop(rt)
				}
			},
			"popOldest": func(rt *rapid.T) { check(rt, "PopOldest", q.PopOldest(), false) },
			"steal": func(rt *rapid.T) {
				prefix := rapid.IntRange(0, 3).Draw(rt, "prefix") // what out already holds
				out := make([]*item, prefix, prefix+StealMax)
				most := rapid.IntRange(1, StealMax+1).Draw(rt, "most") // StealMax+1: Steal itself
				var got []*item
				var r Result
				if most > StealMax {
					most = StealMax
					got, r = q.Steal(out)
				} else {
					got, r = q.StealUpTo(out, int64(most))
				}
				if len(got) < prefix {
					rt.Fatalf("Steal dropped the %d entries already in out", prefix)
				}
				got = got[prefix:]
				if len(model) == 0 {
					if r != Empty || len(got) != 0 {
						rt.Fatalf("Steal from an empty queue: result %d, %d elements", r, len(got))
					}
					return
				}
				if r != Stolen {
					rt.Fatalf("Steal without contention: result %d, want Stolen", r)
				}
				k := min((len(model)+1)/2, StealMax, most)
				if len(got) != k {
					rt.Fatalf("Steal (at most %d) took %d of %d elements, want %d", most, len(got), len(model), k)
				}
				for i, x := range got {
					if x.id != model[i] {
						rt.Fatalf("Steal's element %d is %d, want %d", i, x.id, model[i])
					}
				}
				model = model[k:]
			},
			"dropTaken": func(rt *rapid.T) {
				q.DropTaken()
				checkDropped(rt, &q.ring, model)
			},
			"": func(rt *rapid.T) {
				maxCap = max(maxCap, checkShape(rt, &q.ring, len(model)))
				if c := count.Load(); c != int64(len(model)) {
					rt.Fatalf("count %d, model holds %d", c, len(model))
				}
			},
		})
		for len(model) > 0 {
			pop(rt)
		}
		if got := q.Pop(); got != nil {
			rt.Fatalf("Pop after draining returned element %d", got.id)
		}
	})
	if maxCap < 4*initialSize {
		t.Errorf("the ring never grew past %d slots: the sequences were too short", maxCap)
	}
}

// TestSpawnQueueLeavesPooledSlots: DropTaken leaves the slots of taken
// pooled elements alone (clearing them is what it saves, see stale.go),
// and clears those of elements that are not pooled, including one that was
// still queued at an earlier clearing.
func TestSpawnQueueLeavesPooledSlots(t *testing.T) {
	// Counts that keep every element in its own slot of the first array.
	const nPooled, nPlain = initialSize/2 - 1, initialSize / 4
	q := NewSpawnQueue[item]()
	items := make([]item, nPooled+nPlain+2)
	for i := range items {
		items[i].id = i
	}
	push := func(i int, pooled bool) {
		items[i].pooled = pooled
		q.Push(&items[i], pooled)
	}
	takeAll := func() {
		if _, r := q.Steal(nil); r != Stolen {
			t.Fatalf("Steal: result %d", r)
		}
		for q.Pop() != nil {
		}
	}
	slot := func(i int) *item { a := q.arr.Load(); return a.slots[int64(i)&a.mask].Load() }
	check := func(when string, pooled ...int) {
		t.Helper()
		a := q.arr.Load()
		n := 0
		for i := range a.slots {
			if a.slots[i].Load() != nil {
				n++
			}
		}
		for _, i := range pooled {
			if slot(i) != &items[i] {
				t.Fatalf("%s: the slot of pooled element %d was cleared", when, i)
			}
		}
		if n != len(pooled) {
			t.Fatalf("%s: %d slots hold an element, want the %d pooled ones", when, n, len(pooled))
		}
	}
	var pooled []int
	for i := range nPooled {
		push(i, true)
		pooled = append(pooled, i)
	}
	takeAll()
	q.DropTaken()
	check("the pooled elements taken", pooled...)

	for i := nPooled; i < nPooled+nPlain; i++ {
		push(i, false)
	}
	takeAll()
	q.DropTaken()
	check("more taken, not pooled", pooled...)

	a, b := nPooled+nPlain, nPooled+nPlain+1
	push(a, true)
	push(b, false)
	if got := q.Pop(); got != &items[a] {
		t.Fatalf("Pop took %v, want element %d", got, a)
	}
	q.DropTaken() // element b still queued
	if slot(b) != &items[b] {
		t.Fatalf("DropTaken cleared the slot of a queued element")
	}
	if got := q.Pop(); got != &items[b] {
		t.Fatalf("Pop took %v, want element %d", got, b)
	}
	q.DropTaken()
	check("an element queued across a clearing taken", append(pooled, a)...)
}

// TestSpawnQueueManyThieves: the owner pushes every element once (singly,
// pooled or not, and in batches), popping some back and clearing taken
// slots (DropTaken) at random as it goes, while thieves steal batches;
// every element must be taken exactly once, and the count never goes
// below zero. Thieves stop once every element is taken, so a lost element
// hangs the test (and the test binary's timeout fails it).
func TestSpawnQueueManyThieves(t *testing.T) {
	n := stressElements
	items := make([]item, n)
	for i := range items {
		items[i].id = i
	}
	counts := make([]atomic.Int32, n)
	var taken, steals, batched, contentions, pops atomic.Int64
	take := func(x *item) {
		counts[x.id].Add(1)
		taken.Add(1)
	}

	q := NewSpawnQueue[item]()
	var count atomic.Int64
	q.CountIn(&count)
	var wg sync.WaitGroup
	for th := range stressThieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]*item, 0, StealMax)
			for taken.Load() < int64(n) {
				var got []*item
				var r Result
				if th%2 == 0 {
					got, r = q.Steal(buf[:0])
				} else {
					got, r = q.StealUpTo(buf[:0], 1+int64(th)%3) // a compensator's steal
				}
				switch r {
				case Stolen:
					for _, x := range got {
						take(x)
					}
					steals.Add(1)
					if len(got) > 1 {
						batched.Add(1)
					}
				case Contended:
					contentions.Add(1)
				case Empty:
					runtime.Gosched()
				}
			}
		}()
	}

	rng := uint64(0x9E3779B97F4A7C15)
	for i := 0; i < n; {
		r := xorshift(&rng)
		if k := int(r % 8); k > 1 && i+k <= n { // a batch, as a thief re-queues
			xs := make([]*item, k)
			for j := range xs {
				xs[j] = &items[i+j]
			}
			q.PushMany(xs)
			i += k
		} else {
			q.Push(&items[i], r/1024%2 == 0) // pooled or not: see stale.go
			i++
		}
		if r/8%2 == 0 { // keep the queue short, where owner and thieves meet
			for k := r / 16 % 8; k > 0; k-- {
				var x *item
				if r/2048%4 == 0 {
					x = q.PopOldest() // as the LIFO slot's cap does
				} else {
					x = q.Pop()
				}
				if x == nil {
					break
				}
				take(x)
				pops.Add(1)
			}
		}
		if r/256%64 == 1 { // clear taken slots while thieves steal
			q.DropTaken()
		}
		if c := count.Load(); c < 0 {
			t.Fatalf("count %d below zero", c)
		}
	}
	for x := q.Pop(); x != nil; x = q.Pop() {
		take(x)
		pops.Add(1)
	}
	wg.Wait()

	if q.Len() != 0 {
		t.Errorf("queue not empty at the end: Len %d", q.Len())
	}
	if c := count.Load(); c != 0 {
		t.Errorf("count %d at the end, want 0", c)
	}
	for i := range counts {
		if c := counts[i].Load(); c != 1 {
			t.Fatalf("element %d taken %d times (%d of %d taken in all)", i, c, taken.Load(), n)
		}
	}
	t.Logf("%d elements: %d steals (%d of several elements), %d popped by the owner, %d lost races",
		n, steals.Load(), batched.Load(), pops.Load(), contentions.Load())
	if steals.Load() == 0 {
		t.Errorf("no thief ever stole: the test did not test concurrency")
	}
}

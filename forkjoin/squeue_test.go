package forkjoin

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"
)

// TestSpawnQueueModel checks the spawn queue against a slice, one goroutine
// playing owner and thief: push and pushMany at the bottom (the end of the
// slice); pop takes the newest while more than stealMax tasks are queued
// and the oldest otherwise; steal takes the oldest half (at most stealMax,
// at least one); after dropTaken only the live slots hold tasks, apart
// from pooled ones (push's flag; checkDropped). The sequences are long
// enough to grow the ring several times and to drain it.
func TestSpawnQueueModel(t *testing.T) {
	maxCap := int64(0)
	rapid.Check(t, func(rt *rapid.T) {
		q := newSpawnQueue()
		var count atomic.Int64 // as the High queues have (Worker.next)
		q.count = &count
		var model []int // ids, top first
		next := 0
		newItem := func(pooled bool) *task {
			it := &dqItem{id: next, pooled: pooled}
			model = append(model, next)
			next++
			return &it.hdr
		}
		pop := func(rt *rapid.T) {
			got := q.pop()
			if len(model) == 0 {
				if got != nil {
					rt.Fatalf("pop of an empty queue returned task %d", itemOf(got).id)
				}
				return
			}
			var want int
			if len(model)-1 >= stealMax {
				want = model[len(model)-1]
				model = model[:len(model)-1]
			} else {
				want = model[0]
				model = model[1:]
			}
			if got == nil {
				rt.Fatalf("pop returned nil, want task %d", want)
			}
			if id := itemOf(got).id; id != want {
				rt.Fatalf("pop returned task %d, want %d (size %d)", id, want, len(model)+1)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"push": func(rt *rapid.T) {
				pooled := rapid.Bool().Draw(rt, "pooled")
				q.push(newItem(pooled), pooled)
			},
			"pushMany": func(rt *rapid.T) {
				n := rapid.IntRange(0, 300).Draw(rt, "n")
				ts := make([]*task, n)
				for i := range ts {
					ts[i] = newItem(false)
				}
				q.pushMany(ts)
			},
			"pop": pop,
			"popMany": func(rt *rapid.T) {
				for n := rapid.IntRange(1, 300).Draw(rt, "n"); n > 0; n-- {
					pop(rt)
				}
			},
			"steal": func(rt *rapid.T) {
				prefix := rapid.IntRange(0, 3).Draw(rt, "prefix") // what out already holds
				out := make([]*task, prefix, prefix+stealMax)
				got, r := q.steal(out)
				if len(got) < prefix {
					rt.Fatalf("steal dropped the %d entries already in out", prefix)
				}
				got = got[prefix:]
				if len(model) == 0 {
					if r != empty || len(got) != 0 {
						rt.Fatalf("steal from an empty queue: result %d, %d tasks", r, len(got))
					}
					return
				}
				if r != stolen {
					rt.Fatalf("steal without contention: result %d, want stolen", r)
				}
				k := min((len(model)+1)/2, stealMax)
				if len(got) != k {
					rt.Fatalf("steal took %d of %d tasks, want %d", len(got), len(model), k)
				}
				for i, x := range got {
					if id := itemOf(x).id; id != model[i] {
						rt.Fatalf("steal's task %d is %d, want %d", i, id, model[i])
					}
				}
				model = model[k:]
			},
			"dropTaken": func(rt *rapid.T) {
				q.dropTaken()
				r := q.buf.Load()
				checkDropped(rt, r.slots, r.mask, q.top.Load(), q.bottom.Load(), model)
			},
			"": func(rt *rapid.T) {
				maxCap = max(maxCap, checkSpawnQueueShape(rt, q, len(model)))
				if c := count.Load(); c != int64(len(model)) {
					rt.Fatalf("count %d, model holds %d", c, len(model))
				}
			},
		})
		for len(model) > 0 {
			pop(rt)
		}
		if got := q.pop(); got != nil {
			rt.Fatalf("pop after draining returned task %d", itemOf(got).id)
		}
	})
	if maxCap < 4*dequeInitialSize {
		t.Errorf("the ring never grew past %d slots: the sequences were too short", maxCap)
	}
}

// TestSpawnQueueLeavesPooledSlots: dropTaken leaves the slots of taken
// pooled tasks alone (clearing them is what it saves, see staleRange), and
// clears those of tasks that are not pooled, including one that was still
// queued at an earlier clearing.
func TestSpawnQueueLeavesPooledSlots(t *testing.T) {
	q := newSpawnQueue()
	items := make([]dqItem, 41)
	for i := range items {
		items[i].id = i
	}
	push := func(i int, pooled bool) {
		items[i].pooled = pooled
		q.push(&items[i].hdr, pooled)
	}
	takeAll := func() {
		if _, r := q.steal(nil); r != stolen {
			t.Fatalf("steal: result %d", r)
		}
		for q.pop() != nil {
		}
	}
	slot := func(i int) *task { r := q.buf.Load(); return r.slots[int64(i)&r.mask].load() }
	check := func(when string, pooled ...int) {
		t.Helper()
		r := q.buf.Load()
		n := 0
		for i := range r.slots {
			if r.slots[i].load() != nil {
				n++
			}
		}
		for _, i := range pooled {
			if slot(i) != &items[i].hdr {
				t.Fatalf("%s: the slot of pooled task %d was cleared", when, i)
			}
		}
		if n != len(pooled) {
			t.Fatalf("%s: %d slots hold a task, want the %d pooled ones", when, n, len(pooled))
		}
	}
	var pooled []int
	for i := range 29 {
		push(i, true)
		pooled = append(pooled, i)
	}
	takeAll()
	q.dropTaken()
	check("29 pooled tasks taken", pooled...)

	for i := 29; i < 39; i++ {
		push(i, false)
	}
	takeAll()
	q.dropTaken()
	check("10 more taken, not pooled", pooled...)

	push(39, true)
	push(40, false)
	if got := q.pop(); got != &items[39].hdr {
		t.Fatalf("pop took %v, want task 39", got)
	}
	q.dropTaken() // task 40 still queued
	if slot(40) != &items[40].hdr {
		t.Fatalf("dropTaken cleared the slot of a queued task")
	}
	if got := q.pop(); got != &items[40].hdr {
		t.Fatalf("pop took %v, want task 40", got)
	}
	q.dropTaken()
	check("a task queued across a clearing taken", append(pooled, 39)...)
}

// TestSpawnQueueManyThieves: the owner pushes every task once (singly, as a
// pooled task or not, and in batches), popping some back and clearing
// taken slots (dropTaken) at random as it goes, while thieves steal batches; every task must be taken
// exactly once. Thieves stop once every task is taken, so a lost task hangs
// the test (and the test binary's timeout fails it).
func TestSpawnQueueManyThieves(t *testing.T) {
	n := dequeStressTasks
	items := make([]dqItem, n)
	for i := range items {
		items[i].id = i
	}
	counts := make([]atomic.Int32, n)
	var taken, steals, batched, contentions, pops atomic.Int64
	take := func(x *task) {
		counts[itemOf(x).id].Add(1)
		taken.Add(1)
	}

	q := newSpawnQueue()
	var count atomic.Int64 // never below the tasks queued: never negative
	q.count = &count
	var wg sync.WaitGroup
	for k := 0; k < dequeStressThieves; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]*task, 0, stealMax)
			for taken.Load() < int64(n) {
				got, r := q.steal(buf[:0])
				switch r {
				case stolen:
					for _, x := range got {
						take(x)
					}
					steals.Add(1)
					if len(got) > 1 {
						batched.Add(1)
					}
				case contended:
					contentions.Add(1)
				case empty:
					runtime.Gosched()
				}
			}
		}()
	}

	rng := uint64(0x9E3779B97F4A7C15)
	for i := 0; i < n; {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		if k := int(rng % 8); k > 1 && i+k <= n { // a batch, as a thief re-queues
			ts := make([]*task, k)
			for j := range ts {
				ts[j] = &items[i+j].hdr
			}
			q.pushMany(ts)
			i += k
		} else {
			q.push(&items[i].hdr, rng/1024%2 == 0) // pooled or not: see staleRange
			i++
		}
		if rng/8%2 == 0 { // keep the queue short, where owner and thieves meet
			for k := rng / 16 % 8; k > 0; k-- {
				x := q.pop()
				if x == nil {
					break
				}
				take(x)
				pops.Add(1)
			}
		}
		if rng/256%64 == 1 { // clear taken slots while thieves steal
			q.dropTaken()
		}
		if c := count.Load(); c < 0 {
			t.Fatalf("count %d below zero", c)
		}
	}
	for x := q.pop(); x != nil; x = q.pop() {
		take(x)
		pops.Add(1)
	}
	wg.Wait()

	if q.size() != 0 {
		t.Errorf("queue not empty at the end: size %d", q.size())
	}
	if c := count.Load(); c != 0 {
		t.Errorf("count %d at the end, want 0", c)
	}
	for i := range counts {
		if c := counts[i].Load(); c != 1 {
			t.Fatalf("task %d taken %d times (%d of %d taken in all)", i, c, taken.Load(), n)
		}
	}
	t.Logf("%d tasks: %d steals (%d of several tasks), %d popped by the owner, %d lost races",
		n, steals.Load(), batched.Load(), pops.Load(), contentions.Load())
	if steals.Load() == 0 {
		t.Errorf("no thief ever stole: the test did not test concurrency")
	}
}

// checkSpawnQueueShape checks q's size against the model's and returns its
// capacity.
func checkSpawnQueueShape(rt *rapid.T, q *spawnQueue, n int) int64 {
	if q.size() != n {
		rt.Fatalf("size %d, model holds %d", q.size(), n)
	}
	c := q.capacity()
	if c < int64(n) {
		rt.Fatalf("capacity %d below size %d", c, n)
	}
	return c
}

package forkjoin

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// dqItem is a task with an identity, as the deque tests push them.
type dqItem struct {
	hdr    task // first, so that a *task converts back
	id     int
	pooled bool // pushed as a pooled task (spawnQueue.push): its slot may stay
}

func itemOf(t *task) *dqItem { return (*dqItem)(taskPointer(t)) }

// TestDequeModel checks the deque against a slice, one goroutine playing
// owner and thief: push and pop at the bottom (the end of the slice),
// steal at the top (its start), in random sequences long enough to grow the
// ring several times past its initial 64 slots and to shrink it back to
// empty; and dropTaken, after which only the live slots hold tasks.
func TestDequeModel(t *testing.T) {
	maxCap := int64(0)
	rapid.Check(t, func(rt *rapid.T) {
		d := newDeque()
		var model []int // ids, top first
		next := 0
		push := func() {
			d.push(&(&dqItem{id: next}).hdr)
			model = append(model, next)
			next++
		}
		pop := func(rt *rapid.T) {
			got := d.pop()
			if len(model) == 0 {
				if got != nil {
					rt.Fatalf("pop of an empty deque returned task %d", itemOf(got).id)
				}
				return
			}
			want := model[len(model)-1]
			model = model[:len(model)-1]
			if got == nil {
				rt.Fatalf("pop returned nil, want task %d", want)
			}
			if id := itemOf(got).id; id != want {
				rt.Fatalf("pop returned task %d, want %d", id, want)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"push": func(*rapid.T) { push() },
			"pushMany": func(rt *rapid.T) {
				for n := rapid.IntRange(1, 300).Draw(rt, "n"); n > 0; n-- {
					push()
				}
			},
			"pop": pop,
			"popMany": func(rt *rapid.T) {
				for n := rapid.IntRange(1, 300).Draw(rt, "n"); n > 0; n-- {
					pop(rt)
				}
			},
			"steal": func(rt *rapid.T) {
				got, r := d.steal()
				if len(model) == 0 {
					if r != empty || got != nil {
						rt.Fatalf("steal from an empty deque: result %d, task %v", r, got)
					}
					return
				}
				want := model[0]
				model = model[1:]
				if r != stolen {
					rt.Fatalf("steal without contention: result %d, want stolen", r)
				}
				if id := itemOf(got).id; id != want {
					rt.Fatalf("steal returned task %d, want %d", id, want)
				}
			},
			"dropTaken": func(rt *rapid.T) {
				d.dropTaken()
				r := d.buf.Load()
				checkDropped(rt, r.slots, r.mask, d.top.Load(), d.bottom.Load(), model)
			},
			"": func(rt *rapid.T) { maxCap = max(maxCap, checkQueueShape(rt, &d.ringQueue, len(model))) },
		})
		// Drain from both ends and check what is left.
		for len(model) > 0 {
			pop(rt)
		}
		if got := d.pop(); got != nil {
			rt.Fatalf("pop after draining returned task %d", itemOf(got).id)
		}
	})
	if maxCap < 4*dequeInitialSize {
		t.Errorf("the ring never grew past %d slots: the sequences were too short", maxCap)
	}
}

// checkDropped checks a ring just after dropTaken: the live range [t, b)
// holds the model's tasks in order (top first), and every other slot is
// empty or holds a pooled task (see staleRange), whatever was pushed,
// popped and stolen before.
func checkDropped[S any, P interface {
	*S
	load() *task
}](rt *rapid.T, slots []S, mask, t, b int64, model []int) {
	if b-t != int64(len(model)) {
		rt.Fatalf("live range [%d, %d), model holds %d", t, b, len(model))
	}
	for i := t; i < t+mask+1; i++ {
		got := P(&slots[i&mask]).load()
		if i < b {
			if got == nil || itemOf(got).id != model[i-t] {
				rt.Fatalf("after dropTaken, live slot %d does not hold task %d", i, model[i-t])
			}
		} else if got != nil && !itemOf(got).pooled {
			rt.Fatalf("after dropTaken, slot %d (live range [%d, %d)) still holds task %d", i, t, b, itemOf(got).id)
		}
	}
}

// TestDequeManyThieves: the owner pushes every task once, popping some back
// and clearing taken slots (dropTaken) at random as it goes, while thieves
// steal; every task must be taken exactly once, by the owner or by one
// thief.
func TestDequeManyThieves(t *testing.T) {
	n := dequeStressTasks
	items := make([]dqItem, n)
	for i := range items {
		items[i].id = i
	}
	counts := make([]atomic.Int32, n)
	var taken, steals, contentions, pops atomic.Int64
	take := func(x *task) {
		counts[itemOf(x).id].Add(1)
		taken.Add(1)
	}

	d := newDeque()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for k := 0; k < dequeStressThieves; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				x, r := d.steal()
				switch r {
				case stolen:
					take(x)
					steals.Add(1)
				case contended:
					contentions.Add(1)
				case empty:
					runtime.Gosched()
				}
			}
		}()
	}

	rng := uint64(0x9E3779B97F4A7C15)
	for i := range items {
		d.push(&items[i].hdr)
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		if rng%4 == 0 { // pop a few back, as joins do
			for k := rng / 4 % 4; k > 0; k-- {
				x := d.pop()
				if x == nil {
					break
				}
				take(x)
				pops.Add(1)
			}
		}
		if rng%64 == 1 { // clear taken slots while thieves steal
			d.dropTaken()
		}
	}
	for x := d.pop(); x != nil; x = d.pop() {
		take(x)
		pops.Add(1)
	}
	deadline := time.Now().Add(time.Minute)
	for taken.Load() < int64(n) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()

	if d.size() != 0 {
		t.Errorf("deque not empty at the end: size %d", d.size())
	}
	for i := range counts {
		if c := counts[i].Load(); c != 1 {
			t.Fatalf("task %d taken %d times (%d of %d taken in all)", i, c, taken.Load(), n)
		}
	}
	t.Logf("%d tasks: %d stolen, %d popped by the owner, %d lost races", n, steals.Load(), pops.Load(), contentions.Load())
	if steals.Load() == 0 {
		t.Errorf("no thief ever stole: the test did not test concurrency")
	}
}

// checkQueueShape is the invariant of the model tests: the queue holds as
// many tasks as the model and has room for them. It returns the capacity.
func checkQueueShape(rt *rapid.T, q *ringQueue, n int) int64 {
	if q.size() != n {
		rt.Fatalf("size %d, model holds %d", q.size(), n)
	}
	c := q.buf.Load().mask + 1
	if c < int64(n) {
		rt.Fatalf("capacity %d below size %d", c, n)
	}
	return c
}

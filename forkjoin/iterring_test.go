package forkjoin

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"
)

// TestIterRingModel checks the ring of ForIter and ReduceIter (iterring.go)
// against a model, one operation at a time: the producer publishes a
// buffer when a slot is free, processors take the oldest waiting one,
// finish buffers in any order, and the producer retires the done ones in
// order. Each buffer is taken once, in order, retired once, in order, and
// only once done, and the counters keep retired ≤ taken ≤ produced ≤
// retired + nslot.
func TestIterRingModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := &iterCore{nslot: int64(rapid.IntRange(1, 6).Draw(rt, "slots"))}
		c.done = make([]atomic.Bool, c.nslot)
		var retiredOrder []int64
		c.retire = func(k int64) { retiredOrder = append(retiredOrder, k) }
		var (
			produced, retired int64
			waiting           []int64 // published, not taken, oldest first
			inHand            []int64 // taken, not done
			done              = map[int64]bool{}
		)
		rt.Repeat(map[string]func(*rapid.T){
			"publish": func(rt *rapid.T) {
				if produced-retired == c.nslot {
					rt.Skip("ring full")
				}
				c.produced.Add(1)
				waiting = append(waiting, produced)
				produced++
			},
			"take": func(rt *rapid.T) {
				k, ok := c.take()
				if len(waiting) == 0 {
					if ok {
						rt.Fatalf("took %d from an empty ring", k)
					}
					return
				}
				if !ok || k != waiting[0] {
					rt.Fatalf("took %d (%v), want %d", k, ok, waiting[0])
				}
				waiting = waiting[1:]
				inHand = append(inHand, k)
			},
			"finish": func(rt *rapid.T) {
				if len(inHand) == 0 {
					rt.Skip("nothing taken")
				}
				i := rapid.IntRange(0, len(inHand)-1).Draw(rt, "which")
				k := inHand[i]
				inHand = slices.Delete(inHand, i, i+1)
				c.done[c.slot(k)].Store(true)
				done[k] = true
			},
			"retire": func(rt *rapid.T) {
				c.retireDone()
				for done[retired] {
					delete(done, retired)
					retired++
				}
				if c.retired != retired {
					rt.Fatalf("retired %d, want %d", c.retired, retired)
				}
			},
			"": func(rt *rapid.T) {
				tk := c.taken.Load()
				if !(c.retired <= tk && tk <= c.produced.Load() && c.produced.Load() <= c.retired+c.nslot) {
					rt.Fatalf("retired %d, taken %d, produced %d, slots %d", c.retired, tk, c.produced.Load(), c.nslot)
				}
				for i, k := range retiredOrder {
					if k != int64(i) {
						rt.Fatalf("retired in the order %v", retiredOrder)
					}
				}
				for k := c.retired; k < tk; k++ {
					if c.done[c.slot(k)].Load() != done[k] {
						rt.Fatalf("buffer %d: done flag %v, model %v", k, c.done[c.slot(k)].Load(), done[k])
					}
				}
			},
		})
	})
}

// TestIterRingTakeRace has several goroutines take buffers from one ring
// while it is published to, and checks that every buffer is taken exactly
// once (run it with -race).
func TestIterRingTakeRace(t *testing.T) {
	const buffers = 20_000
	c := &iterCore{nslot: buffers}
	seen := make([]atomic.Int32, buffers)
	var wg sync.WaitGroup
	var over atomic.Bool
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if k, ok := c.take(); ok {
					seen[k].Add(1)
					continue
				}
				if over.Load() && c.taken.Load() == buffers {
					return
				}
			}
		}()
	}
	for range buffers {
		c.produced.Add(1)
	}
	over.Store(true)
	wg.Wait()
	for k := range seen {
		if n := seen[k].Load(); n != 1 {
			t.Fatalf("buffer %d taken %d times", k, n)
		}
	}
}

package poolcore

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// A reader that saw a park in progress up to its now, then a waker whose
// clock read came before that now: the total does not step back.
func TestParkClockNeverStepsBack(t *testing.T) {
	var c parkClock
	clock := func(now int64) func() int64 { return func() int64 { return now } }
	c.park(100)
	if d, parked := c.read(clock(150)); d != 50 || !parked {
		t.Fatalf("read during a park = %v, %v; want 50ns, parked", d, parked)
	}
	c.wake(120) // the waker read its clock at 120, before the reader's 150
	if d, parked := c.read(clock(200)); d != 50 || parked {
		t.Fatalf("read after the wake = %v, %v; want 50ns (never less than read before), not parked", d, parked)
	}
	c.park(300)
	c.wake(400)
	if d, _ := c.read(clock(500)); d != 120 {
		t.Fatalf("read after a second park = %v, want 120ns", d)
	}
}

// Against a model: any sequence of parks, wakes and reads on a clock that
// goes forward gives the parked total (the park in progress up to the
// read's now included), never less than an earlier read, and the parked
// state.
func TestParkClockModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var c parkClock
		now := int64(0)
		var total, start, high int64
		parked := false
		for range rapid.IntRange(1, 50).Draw(rt, "ops") {
			now += 2 * rapid.Int64Range(0, 1000).Draw(rt, "step") // clock values are even
			switch op := rapid.IntRange(0, 2).Draw(rt, "op"); {
			case op == 0 && !parked:
				c.park(now)
				start, parked = now, true
			case op == 1 && parked:
				c.wake(now)
				total += now - start
				parked = false
			default:
				want := total
				if parked {
					want += now - start
				}
				high = max(high, want)
				d, p := c.read(func() int64 { return now })
				if int64(d) != high || p != parked {
					rt.Fatalf("read = %v, %v; want %v, %v", d, p, time.Duration(high), parked)
				}
			}
		}
	})
}

// One worker parks and wakes on the real clock while readers read: every
// reader sees the total grow, never step back (run it under -race).
func TestParkClockConcurrentReads(t *testing.T) {
	p := New(2, Config{Spawn: func(run func()) error { go run(); return nil }})
	defer p.Close()
	var c parkClock
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last time.Duration
			for !stop.Load() {
				d, _ := c.read(p.clock)
				if d < last {
					t.Errorf("parked time stepped back: %v after %v", d, last)
					return
				}
				last = d
			}
		}()
	}
	for range 20000 {
		c.park(p.clock())
		c.wake(p.clock())
	}
	stop.Store(true)
	wg.Wait()
	if d, parked := c.read(p.clock); d < 0 || parked {
		t.Fatalf("after the parks: %v, parked %v", d, parked)
	}
}

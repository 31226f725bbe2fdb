package poolcore

// The time a worker has spent parked, readable at any moment.
//
// A parkClock is one word, so that a reader sees a consistent value with
// one load: acc holds the parked time of the parks that are over, minus
// the start of the park in progress if there is one. Times are
// nanoseconds since the pool's epoch, made even (clock), and a park in
// progress also adds 1, so acc is odd exactly while the worker is parked:
//
//	park at s:  acc += 1 - s   (total - s + 1: odd)
//	wake at e:  acc += e - 1   (total + e - s: even)
//
// A reader that loads acc and then reads the clock (now, later than the
// s it saw) gets total + (now - s) while parked. The clock a waker read
// before its add may be earlier than a reader's now taken just before that
// add, so two reads may see the total step back by that gap; high, the
// largest value read so far, keeps the value a reader reports from ever
// decreasing (a service's rate of a counter that goes back is a spike).

import (
	"sync/atomic"
	"time"
)

type parkClock struct {
	acc  atomic.Int64
	high atomic.Int64
}

// clock is now as the parked times count it: nanoseconds since the pool's
// epoch, even.
func (p *Pool) clock() int64 { return int64(time.Since(p.epoch)) &^ 1 }

// park records a park that starts at s (a clock value).
func (c *parkClock) park(s int64) { c.acc.Add(1 - s) }

// wake records the end at e of the park in progress.
func (c *parkClock) wake(e int64) { c.acc.Add(e - 1) }

// read returns the time parked up to now (clock's), the park in progress
// included, and whether a park is in progress. It loads acc before it
// reads the clock, so now is later than the start of a park it sees.
func (c *parkClock) read(clock func() int64) (time.Duration, bool) {
	a := c.acc.Load()
	parked := a&1 != 0
	if parked {
		a += clock() - 1
	}
	for {
		h := c.high.Load()
		if a <= h {
			return time.Duration(h), parked
		}
		if c.high.CompareAndSwap(h, a) {
			return time.Duration(a), parked
		}
	}
}

package core

import (
	"sync"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
)

// Completion is a one-shot event a worker can wait for while helping with
// other work (Wait): Complete sets it, Wait returns once it is set. The
// zero value is an incomplete Completion; Reset makes it reusable.
//
// A waiter registers the EventCount its pool's waiting participants park
// on (AddWaiter); Complete notifies it.
type Completion struct {
	done   atomic.Uint32
	waiter atomic.Pointer[dispatch.EventCount]
	// Waiters from other pools than waiter's (rare) are listed in others;
	// multi says the list is not empty.
	multi  atomic.Bool
	mu     sync.Mutex
	others []*dispatch.EventCount
}

// AddWaiter records that a participant parking on ec is about to wait for
// c, so that Complete notifies ec. The first waiter's is kept in waiter; a
// waiter of another pool is added to others. Ordering: a waiter registers
// before it takes its EventCount token and looks at done; Complete stores
// done before it reads waiter and multi. So either Complete sees the
// registration and notifies (after the token, or before it: then the
// waiter's look at done sees it set), or the registration came after
// Complete's reads, and the waiter's look at done, later still, sees it
// set.
func (c *Completion) AddWaiter(ec *dispatch.EventCount) {
	if c.waiter.CompareAndSwap(nil, ec) {
		return
	}
	first := c.waiter.Load()
	if first == nil || first == ec {
		c.waiter.Store(ec)
		return
	}
	c.mu.Lock()
	for _, o := range c.others {
		if o == ec {
			c.mu.Unlock()
			return
		}
	}
	c.others = append(c.others, ec)
	c.multi.Store(true)
	c.mu.Unlock()
}

// Complete sets c and wakes the participants parked in Wait(c).
func (c *Completion) Complete() {
	c.done.Store(1)
	if ec := c.waiter.Load(); ec != nil {
		ec.NotifyAll()
	}
	if c.multi.Load() {
		c.mu.Lock()
		for _, ec := range c.others {
			ec.NotifyAll()
		}
		c.mu.Unlock()
	}
}

// Done reports whether c is set.
func (c *Completion) Done() bool { return c.done.Load() != 0 }

// Reset clears c for reuse; nobody may be waiting on it.
func (c *Completion) Reset() {
	c.done.Store(0)
	c.waiter.Store(nil)
	if c.multi.Load() {
		c.mu.Lock()
		clear(c.others)
		c.others = c.others[:0]
		c.multi.Store(false)
		c.mu.Unlock()
	}
}

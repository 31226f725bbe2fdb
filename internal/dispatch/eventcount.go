package dispatch

import (
	"sync"
	"sync/atomic"
)

// EventCount lets goroutines sleep until "something happened" without ever
// missing the event, in two steps:
//
//	tok := ec.Prepare() // 1. take a token
//	if workAvailable() { ... } else {
//		ec.Wait(tok) // 2. sleep, unless a Notify came after Prepare
//	}
//
// A producer makes work available first and then calls NotifyOne or
// NotifyAll. Whatever the interleaving, a Wait whose token was taken before
// a Notify returns without sleeping, so the check between Prepare and Wait
// can never miss work: either it sees the work, or the Notify that follows
// the work comes after the token, and Wait returns at once.
//
// # Algorithm
//
// One 64-bit word holds the epoch (high 32 bits) and the number of waiters
// (low 32 bits: goroutines inside Wait). Prepare reads the epoch. Notify
// adds one to the epoch and, only if the same atomic add shows waiters,
// takes the mutex and signals the condition variable. Wait adds itself to
// the waiters, and sleeps on the condition variable only while the epoch
// still equals its token's, checking under the mutex.
//
// Why no wake-up is lost: let W wait with a token of epoch e, and N bump the
// epoch past e. The two atomic adds (W's waiter increment, N's epoch
// increment) are ordered. If N's comes first, W's add returns an epoch ≠ e
// and W does not sleep. If W's comes first, N sees a waiter and signals
// under the mutex; W checks the epoch under that same mutex and releases it
// only by going to sleep inside Cond.Wait, so N's signal either finds W
// asleep or W sees the new epoch first. Go's condition variable wakes
// waiters in the order they began to wait, and a waiter that began before a
// bump always precedes those that began after it, so the one goroutine
// NotifyOne wakes is one that the bump concerns.
//
// Waiting parks the goroutine (sync.Cond), which costs no OS thread; before
// parking, Wait re-reads the epoch a bounded number of times.
//
// The zero value is ready to use. An EventCount must not be copied after
// first use.
type EventCount struct {
	state atomic.Uint64 // epoch<<32 | waiters
	mu    sync.Mutex
	cond  sync.Cond // L is mu; set lazily under mu
}

// Token is what Prepare returns and Wait consumes: the epoch at Prepare.
// The epoch has 32 bits, so a token taken exactly 2^32 notifications
// before its Wait (a waiter held up for that long between the two) would
// pass for a current one: Wait would sleep until the next notification.
type Token struct{ epoch uint32 }

const (
	waiterOne  = 1
	waiterMask = 1<<32 - 1
	epochOne   = 1 << 32
	// waitSpins is how many times Wait re-reads the epoch before it parks.
	// A handful of loads costs a few nanoseconds and catches a Notify that
	// is already on its way; it never grows with load.
	waitSpins = 16
)

// Prepare takes a token: the current epoch. Pass it to Wait after checking
// whatever condition the caller waits for.
func (ec *EventCount) Prepare() Token {
	return Token{epoch: uint32(ec.state.Load() >> 32)}
}

// Wait sleeps until a NotifyOne or NotifyAll that came after tok's Prepare
// wakes it. If such a notify has already happened, Wait returns at once.
// Wait may also return early when a notify meant for someone else reaches
// it; callers re-check their condition in a loop, as with any condition
// variable.
func (ec *EventCount) Wait(tok Token) {
	for i := 0; i < waitSpins; i++ {
		if uint32(ec.state.Load()>>32) != tok.epoch {
			return
		}
	}
	s := ec.state.Add(waiterOne)
	if uint32(s>>32) != tok.epoch {
		ec.state.Add(^uint64(waiterOne - 1)) // waiters--
		return
	}
	ec.lock()
	for uint32(ec.state.Load()>>32) == tok.epoch {
		ec.cond.Wait()
	}
	ec.mu.Unlock()
	ec.state.Add(^uint64(waiterOne - 1)) // waiters--
}

// NotifyOne advances the epoch and wakes one sleeping waiter, if any. Every
// goroutine that took its token before this call and has not yet gone to
// sleep will not sleep.
func (ec *EventCount) NotifyOne() {
	if ec.state.Add(epochOne)&waiterMask != 0 {
		ec.wake(false)
	}
}

// NotifyAll advances the epoch and wakes every sleeping waiter.
func (ec *EventCount) NotifyAll() {
	if ec.state.Add(epochOne)&waiterMask != 0 {
		ec.wake(true)
	}
}

// wake signals one waiter, or all, under the mutex (see the type's comment:
// a waiter checks the epoch under it before it sleeps). Kept out of the
// Notify methods, so that a notification with no waiter, one atomic add,
// is inlined where it is made.
func (ec *EventCount) wake(all bool) {
	ec.lock()
	if all {
		ec.cond.Broadcast()
	} else {
		ec.cond.Signal()
	}
	ec.mu.Unlock()
}

// Waiters reports how many goroutines are inside Wait. It is a snapshot for
// statistics and heuristics, never for correctness.
func (ec *EventCount) Waiters() int {
	return int(ec.state.Load() & waiterMask)
}

// lock takes the mutex and, the first time, makes it the condition
// variable's (the zero EventCount is ready to use).
func (ec *EventCount) lock() {
	ec.mu.Lock()
	if ec.cond.L == nil {
		ec.cond.L = &ec.mu
	}
}

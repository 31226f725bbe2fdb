package dispatch_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
)

// ecWaiter is a goroutine that calls Wait with the tokens it is sent and
// reports each return.
type ecWaiter struct {
	id   int
	cmd  chan dispatch.Token
	done chan struct{} // one value per Wait that returned

	// The model's view, kept by the controller only.
	state   int // idle, prepared or waiting
	tok     dispatch.Token
	prepSeq int // notifies that had happened when the token was taken
}

const (
	idle = iota
	prepared
	waiting
)

// ecModel drives an EventCount from one controller goroutine: Prepare and
// Notify run on the controller, so their order is known exactly, while
// every Wait runs on a waiter goroutine of its own, concurrently with
// everything the controller does next. The model knows, for each waiter,
// how many notifies preceded its Prepare, and checks:
//
//   - a Wait whose token is stale (a notify followed its Prepare before
//     Wait was called) returns;
//   - after NotifyAll, every goroutine inside Wait returns;
//   - after k NotifyOne calls that found s goroutines inside Wait, at least
//     min(k, s) of them return (the debt below);
//   - no Wait returns unless a notify followed its Prepare;
//   - Waiters() never counts more goroutines than are inside Wait.
type ecModel struct {
	ec       dispatch.EventCount
	waiters  []*ecWaiter
	inWait   []*ecWaiter // state == waiting, in the order Wait was called
	notifies int
	debt     int // returns still owed by NotifyOne calls
	wg       sync.WaitGroup
}

func newECModel(n int) *ecModel {
	m := &ecModel{}
	for i := 0; i < n; i++ {
		w := &ecWaiter{id: i, cmd: make(chan dispatch.Token), done: make(chan struct{}, 1)}
		m.waiters = append(m.waiters, w)
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			for tok := range w.cmd {
				m.ec.Wait(tok)
				w.done <- struct{}{}
			}
		}()
	}
	return m
}

// returned records that w's Wait returned.
func (m *ecModel) returned(t *rapid.T, w *ecWaiter) {
	if w.prepSeq >= m.notifies {
		t.Fatalf("waiter %d: Wait returned although no notify followed its Prepare (notifies: %d)", w.id, m.notifies)
	}
	w.state = idle
	for i, x := range m.inWait {
		if x == w {
			m.inWait = append(m.inWait[:i], m.inWait[i+1:]...)
			break
		}
	}
	if m.debt > 0 {
		m.debt--
	}
}

// collect records, without blocking, every Wait that has returned.
func (m *ecModel) collect(t *rapid.T) {
	for _, w := range append([]*ecWaiter(nil), m.inWait...) {
		select {
		case <-w.done:
			m.returned(t, w)
		default:
		}
	}
}

// settle waits until cond holds, collecting returns; a waiter that has
// not returned by then is stuck.
func (m *ecModel) settle(t *rapid.T, what string, cond func() bool) {
	ok := pollUntil(func() bool {
		m.collect(t)
		return cond()
	})
	if !ok {
		ids := []int{}
		for _, w := range m.inWait {
			ids = append(ids, w.id)
		}
		t.Fatalf("%s: still asleep after %v: waiters %v (debt %d, Waiters() = %d)",
			what, stuckAfter, ids, m.debt, m.ec.Waiters())
	}
}

// shutdown releases every waiter and joins the goroutines. A waiter that
// even repeated NotifyAll calls cannot wake is left behind (the test has
// failed already, and the leak check will show its stack).
func (m *ecModel) shutdown() {
	joinable := true
	for _, w := range m.waiters {
		if w.state == waiting {
			ok := pollUntil(func() bool {
				m.ec.NotifyAll()
				select {
				case <-w.done:
					return true
				default:
					return false
				}
			})
			if !ok {
				joinable = false
				continue
			}
		}
		close(w.cmd)
	}
	if joinable {
		m.wg.Wait()
	}
}

// wait sends w's token to its goroutine, which calls Wait with it.
func (m *ecModel) wait(t *rapid.T, w *ecWaiter) {
	w.cmd <- w.tok
	if w.prepSeq < m.notifies {
		// Stale token: this Wait must return by itself, and
		// its return pays no NotifyOne's debt.
		ok := pollUntil(func() bool {
			select {
			case <-w.done:
				return true
			default:
				return false
			}
		})
		if !ok {
			t.Fatalf("waiter %d: Wait with a stale token (taken before notify %d of %d) still asleep after %v",
				w.id, w.prepSeq+1, m.notifies, stuckAfter)
		}
		w.state = idle
		return
	}
	w.state = waiting
	m.inWait = append(m.inWait, w)
}

func (m *ecModel) pick(t *rapid.T, state int) *ecWaiter {
	var c []*ecWaiter
	for _, w := range m.waiters {
		if w.state == state {
			c = append(c, w)
		}
	}
	if len(c) == 0 {
		t.Skip("no waiter in that state")
	}
	return rapid.SampledFrom(c).Draw(t, "waiter")
}

func TestEventCountModel(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(t *rapid.T) {
		m := newECModel(rapid.IntRange(1, 5).Draw(t, "goroutines"))
		defer m.shutdown()
		t.Repeat(map[string]func(*rapid.T){
			"prepare": func(t *rapid.T) {
				w := m.pick(t, idle)
				w.tok = m.ec.Prepare()
				w.prepSeq = m.notifies
				w.state = prepared
			},
			"wait": func(t *rapid.T) {
				m.wait(t, m.pick(t, prepared))
			},
			"prepareAndWait": func(t *rapid.T) {
				w := m.pick(t, idle)
				w.tok = m.ec.Prepare()
				w.prepSeq = m.notifies
				m.wait(t, w)
			},
			"asleep": func(t *rapid.T) {
				// Let every waiter reach Wait's slow path (or return), so
				// that the next notify finds sleepers and not spinners.
				m.settle(t, "waiters reaching Wait", func() bool {
					return m.ec.Waiters() == len(m.inWait)
				})
			},
			"notifyOne": func(t *rapid.T) {
				m.collect(t)
				m.notifies++
				m.ec.NotifyOne()
				if len(m.inWait) > m.debt {
					m.debt++
				}
			},
			"notifyAll": func(t *rapid.T) {
				m.collect(t)
				m.notifies++
				m.ec.NotifyAll()
				m.settle(t, "NotifyAll", func() bool { return len(m.inWait) == 0 })
				m.debt = 0
			},
			"settle": func(t *rapid.T) {
				m.settle(t, "NotifyOne", func() bool { return m.debt == 0 })
			},
			"": func(t *rapid.T) {
				m.collect(t)
				if n := m.ec.Waiters(); n > len(m.inWait) {
					t.Fatalf("Waiters() = %d, but only %d goroutines are inside Wait", n, len(m.inWait))
				}
			},
		})
		// Whatever was left owed must be paid.
		m.settle(t, "NotifyOne (at the end)", func() bool { return m.debt == 0 })
	})
}

func TestEventCountStaleTokenReturnsAtOnce(t *testing.T) {
	leakcheck.Check(t)
	var ec dispatch.EventCount
	for i, notify := range []func(){ec.NotifyOne, ec.NotifyAll} {
		tok := ec.Prepare()
		notify() // no goroutine is waiting: this only moves the epoch
		var returned atomic.Bool
		go func() {
			ec.Wait(tok) // nothing else will ever notify
			returned.Store(true)
		}()
		if !pollUntil(returned.Load) {
			ec.NotifyAll() // release it for the leak check
			t.Fatalf("notify %d: Wait with a token older than the notify did not return", i)
		}
		if n := ec.Waiters(); n != 0 {
			t.Fatalf("Waiters() = %d after a Wait that returned at once", n)
		}
	}
}

func TestEventCountWaiters(t *testing.T) {
	leakcheck.Check(t)
	var ec dispatch.EventCount
	if n := ec.Waiters(); n != 0 {
		t.Fatalf("zero EventCount: Waiters() = %d", n)
	}
	const k = 4
	var wg sync.WaitGroup
	var woke atomic.Int32
	tok := ec.Prepare()
	for i := 0; i < k; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ec.Wait(tok)
			woke.Add(1)
		}()
	}
	if !pollUntil(func() bool { return ec.Waiters() == k }) {
		t.Fatalf("Waiters() = %d, want %d goroutines asleep", ec.Waiters(), k)
	}
	if n := woke.Load(); n != 0 {
		t.Fatalf("%d waiters returned before any notify", n)
	}
	ec.NotifyOne()
	if !pollUntil(func() bool { return woke.Load() >= 1 && ec.Waiters() == k-int(woke.Load()) }) {
		t.Fatalf("after NotifyOne: %d woke, Waiters() = %d", woke.Load(), ec.Waiters())
	}
	ec.NotifyAll()
	wg.Wait()
	if n := ec.Waiters(); n != 0 {
		t.Fatalf("after NotifyAll: Waiters() = %d, want 0", n)
	}
}

// TestEventCountNoLostWakeup is the classic use, under stress: consumers
// check a counter between Prepare and Wait, producers bump it and notify.
// A lost wake-up leaves a consumer asleep while the counter is ahead of
// what it saw; the test then reports it instead of hanging.
func TestEventCountNoLostWakeup(t *testing.T) {
	leakcheck.Check(t)
	for _, all := range []bool{false, true} {
		t.Run(fmt.Sprintf("notifyAll=%v", all), func(t *testing.T) {
			var ec dispatch.EventCount
			var produced, stop atomic.Int64
			rounds := int64(20000)
			if raceEnabled {
				rounds = 2000
			}
			const consumers = 3
			seen := make([]atomic.Int64, consumers)
			var wg sync.WaitGroup
			for c := 0; c < consumers; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						tok := ec.Prepare()
						if v := produced.Load(); v > seen[c].Load() {
							seen[c].Store(v)
							continue
						}
						if stop.Load() != 0 {
							return
						}
						ec.Wait(tok)
					}
				}()
			}
			for i := int64(1); i <= rounds; i++ {
				produced.Store(i)
				if all {
					ec.NotifyAll()
				} else {
					// One notify per consumer: each must see the value.
					for c := 0; c < consumers; c++ {
						ec.NotifyOne()
					}
				}
				if i%64 == 0 {
					// Every so often, wait for all consumers to catch up,
					// so that they are found asleep by the next notify.
					ok := pollUntil(func() bool {
						for c := range seen {
							if seen[c].Load() < i {
								return false
							}
						}
						return true
					})
					if !ok {
						t.Fatalf("round %d: a consumer stayed asleep: seen %v", i, loads(seen))
					}
				}
			}
			stop.Store(1)
			ec.NotifyAll() // every consumer took its token before this
			var exited atomic.Int32
			go func() { wg.Wait(); exited.Store(1) }()
			if !pollUntil(func() bool { return exited.Load() == 1 }) {
				// Release them for the leak check, then fail.
				pollUntil(func() bool { ec.NotifyAll(); return exited.Load() == 1 })
				t.Fatalf("a consumer stayed asleep after the final NotifyAll")
			}
		})
	}
}

func loads(s []atomic.Int64) []int64 {
	out := make([]int64, len(s))
	for i := range s {
		out[i] = s[i].Load()
	}
	return out
}

// Shared assertions (internal/testcheck).
var (
	pollUntil     = testcheck.PollUntil
	mustPanic     = testcheck.MustPanic
	mustPanicWith = testcheck.MustPanicWith
)

const stuckAfter = testcheck.StuckAfter

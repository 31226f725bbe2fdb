package walk

import (
	"context"
	"runtime/debug"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// everyNth deals at every nth look and waits until another participant
// takes what was dealt. One participant waits at a time: the others deal
// and go on, so that two never wait for each other, and the one that
// waits is sure to be answered (a participant that goes on takes the
// dealt work from the waiter's deque once it runs out of its own, or
// while it helps). A wait that lasts testcheck.StuckAfter is a hang:
// stuck is set, and the test fails.
type everyNth struct {
	n, i    atomic.Int64
	moved   atomic.Int64
	waiting atomic.Bool
	stuck   atomic.Bool
}

func (s *everyNth) Deal() bool { return s.i.Add(1)%s.n.Load() == 0 }

func (s *everyNth) Dealt(taken func() bool) {
	if !s.waiting.CompareAndSwap(false, true) {
		return // another participant waits
	}
	defer s.waiting.Store(false)
	if !testcheck.PollUntil(taken) {
		s.stuck.Store(true)
		return
	}
	s.moved.Add(1)
}

// check fails t if a wait for a taker never ended.
func (s *everyNth) check(t *testing.T) {
	t.Helper()
	if s.stuck.Load() {
		t.Fatalf("dealt work was not taken in %v", testcheck.StuckAfter)
	}
}

// TestSparesHoldNothing: the arrays a walk state keeps for its next use
// (the res window's, the range pubs' results) are reused from run to run
// and hold no result once a run is over, so they keep nothing of a fold
// reachable. Results are pointers here; children are dealt in ranges
// (a wide node) and own results wait behind what thieves hold.
func TestSparesHoldNothing(t *testing.T) {
	leakcheck.Check(t)
	const width = 20_000
	p := pool.New(2)
	defer p.Close()
	s := &everyNth{}
	s.n.Store(97)
	ctx := WithSchedule(context.Background(), s)
	newOps := func() *Ops[int, *int64, *int64] {
		return &Ops[int, *int64, *int64]{
			Init:       func(n int) *int64 { v := int64(n); return &v },
			Accumulate: func(h **int64, c *int64) { **h += *c },
			Finalize:   func(h **int64) *int64 { return *h },
			Children: func(n int, yield func(int) bool) {
				if n != 0 {
					return
				}
				for c := 1; c <= width; c++ {
					if !yield(c) {
						return
					}
				}
			},
		}
	}
	const want = width * (width + 1) / 2
	kept := false
	for range 5 {
		err := forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
			if got := *Run(w, newOps(), 0); got != want {
				t.Errorf("sum %d, want %d", got, want)
			}
			for _, st := range stackOf[int, *int64, *int64](w).free {
				if cap(st.spareRes) > 0 || len(st.spareResults) > 0 {
					kept = true
				}
				for i, r := range st.spareRes[:cap(st.spareRes)] {
					if r != nil {
						t.Fatalf("spare res window holds a result at %d", i)
					}
				}
				for _, rs := range st.spareResults {
					for i, r := range rs[:cap(rs)] {
						if r != nil {
							t.Fatalf("spare results hold a result at %d", i)
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	s.check(t)
	if s.moved.Load() == 0 {
		t.Fatal("no dealt work was taken")
	}
	if !kept {
		t.Error("no spare array was kept for the next run")
	}
}

// TestReleaseGivesStatesToThePool: when a pool is closed, the states its
// participants kept go to the type's sync.Pool, where a later pool's
// participants find them (getState). Collections are off meanwhile. 64
// states are released: a sync.Pool keeps one value per P aside, where
// another P's Get does not look, and under the race detector its Put
// drops one value in four at random (to catch code that counts on
// getting back what it put); with two states, both were dropped in one
// run of 16.
func TestReleaseGivesStatesToThePool(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	sp := statePoolOf[int8, int16, int32]()
	for sp.Get() != nil {
	}
	released := map[any]bool{}
	ss := &stateStack[int8, int16, int32]{}
	for range 64 {
		st := new(state[int8, int16, int32])
		ss.free = append(ss.free, st)
		released[st] = true
	}
	ss.Release()
	if len(ss.free) != 0 {
		t.Fatalf("%d states left on the stack after Release", len(ss.free))
	}
	if got := sp.Get(); !released[got] {
		t.Fatalf("the pool gave %v, want one of the released states", got)
	}
}

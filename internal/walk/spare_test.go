package walk

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// everyNth deals at every nth node and waits (boundedly) for a taker.
type everyNth struct {
	n, i  atomic.Int64
	moved atomic.Int64
}

func (s *everyNth) Deal() bool { return s.i.Add(1)%s.n.Load() == 0 }

func (s *everyNth) Dealt(taken func() bool) {
	for deadline := time.Now().Add(5 * time.Millisecond); !taken() && time.Now().Before(deadline); {
		runtime.Gosched()
	}
	if taken() {
		s.moved.Add(1)
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
	if s.moved.Load() == 0 {
		t.Fatal("no dealt work was taken")
	}
	if !kept {
		t.Error("no spare array was kept for the next run")
	}
}

// TestReleaseGivesStatesToThePool: when a pool is closed, the states its
// participants kept go to the type's sync.Pool, where a later pool's
// participants find them (getState). Two states are released, so that
// one at least is where any goroutine's Get finds it (a sync.Pool keeps
// one value per P aside); collections are off meanwhile.
func TestReleaseGivesStatesToThePool(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	sp := statePoolOf[int8, int16, int32]()
	for sp.Get() != nil {
	}
	a, b := new(state[int8, int16, int32]), new(state[int8, int16, int32])
	ss := &stateStack[int8, int16, int32]{free: []*state[int8, int16, int32]{a, b}}
	ss.Release()
	if len(ss.free) != 0 {
		t.Fatalf("%d states left on the stack after Release", len(ss.free))
	}
	if got := sp.Get(); got != a && got != b {
		t.Fatalf("the pool gave %v, want one of the released states", got)
	}
}

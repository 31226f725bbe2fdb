package walk

import (
	"context"
	"runtime"
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
			// The states this goroutine's P can reach in the pool; those
			// another P holds are checked when a round runs there.
			var states []*state[int, *int64, *int64]
			for {
				st, _ := statePoolOf[int, *int64, *int64]().Get().(*state[int, *int64, *int64])
				if st == nil {
					break
				}
				states = append(states, st)
			}
			defer func() {
				for _, st := range states {
					statePoolOf[int, *int64, *int64]().Put(st)
				}
			}()
			for _, st := range states {
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

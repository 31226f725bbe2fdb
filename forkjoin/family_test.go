package forkjoin

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
	"pgregory.net/rapid"
)

// TestFamilyWithin checks within against the plain definition on random
// trees of families: f is within anc when anc is f or one of f's
// ancestors; every family is within famAny, none within nil, and a task of
// no family (nil) is within famAny only.
func TestFamilyWithin(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(rt, "n")
		fams := make([]*family, n)
		parent := make([]int, n) // -1: a root
		for i := range fams {
			fams[i] = new(family)
			parent[i] = -1
			if i > 0 && rapid.Bool().Draw(rt, "child") {
				parent[i] = rapid.IntRange(0, i-1).Draw(rt, "parent")
				fams[i].init(fams[parent[i]])
			} else {
				fams[i].init(nil)
			}
		}
		isAncestorOrSelf := func(a, f int) bool {
			for ; f >= 0; f = parent[f] {
				if f == a {
					return true
				}
			}
			return false
		}
		for f := range fams {
			for a := range fams {
				if got, want := fams[f].within(fams[a]), isAncestorOrSelf(a, f); got != want {
					rt.Fatalf("family %d within %d = %v, want %v (parents %v)", f, a, got, want, parent)
				}
			}
			if !fams[f].within(famAny) || fams[f].within(nil) {
				rt.Fatalf("family %d: within famAny must hold and within nil must not", f)
			}
		}
		var none *family
		if !none.within(famAny) || none.within(fams[0]) || none.within(nil) {
			rt.Fatalf("a nil family is within famAny only")
		}
	})
}

// TestJoinHelperRunsNoSpawnedTask: a participant that waits for the
// stolen half of a Join runs no spawned task (a Handle's, here), since the
// task may wait for what the code after the Join does: the task below
// blocks until the Run's root, after its Join, closes a channel. The half
// makes sure the task is queued, and waits until its Join's helper has
// looked for work, before it returns. Without the family rule the helper
// would run the task on top of the Join, and neither would end.
func TestJoinHelperRunsNoSpawnedTask(t *testing.T) {
	leakcheck.Check(t)
	for round := range 20 {
		p := pool.New(2)
		release := make(chan struct{})
		var stolen atomic.Bool
		done := make(chan struct{})
		var h *Handle[int]
		go func() {
			defer close(done)
			Run(p, func(w *Worker) {
				a := w
				Join(w, func(w *Worker) {
					for i := 0; i < 1e8 && !stolen.Load(); i++ {
						Join(w, func(*Worker) {}, func(*Worker) {})
					}
				}, func(w *Worker) {
					if w == a {
						return
					}
					h = Spawn(p, func(*Worker) (int, error) { <-release; return 1, nil })
					stolen.Store(true)
					// Let the root reach its wait for this half, with the
					// task queued.
					testcheck.PollUntil(func() bool { return a.parked.Load() })
				})
				close(release)
			})
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: the Join never returned: its helper ran the blocking task", round)
		}
		if !stolen.Load() {
			t.Fatalf("round %d: the half was never stolen", round)
		}
		if v, err := h.Join(); v != 1 || err != nil {
			t.Fatalf("round %d: the task ended with %v, %v", round, v, err)
		}
		p.Close()
	}
}

// TestIdleManyWorkers: a pool of a thousand workers (on however few
// processors) that unwound thousands of blocked tasks settles: no worker
// is left in the scheduler, no compensator alive, the monitor disarmed,
// and the park and wake-up counts stop changing. (Its CPU time and the
// time Close takes are benchmarks: BenchmarkManyParticipants.)
func TestIdleManyWorkers(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(1000)
	defer p.Close()
	if err := unwindBlocked(p, 4000); err == nil {
		t.Fatal("the group ended with no error, want the last task's")
	}
	s := schedulerOf(p)
	settled := func() bool {
		a := p.Stats()
		time.Sleep(20 * time.Millisecond)
		b := p.Stats()
		st := s.state.Load()
		return a.Parks == b.Parks && a.Wakeups == b.Wakeups && active(st) == 0 && searching(st) == 0 &&
			s.comp.alive.Load() == 0 && !s.comp.running.Load()
	}
	if !testcheck.PollUntil(settled) {
		st := s.state.Load()
		t.Fatalf("the pool did not settle: active %d, searching %d, compensators %d, monitor armed %v",
			active(st), searching(st), s.comp.alive.Load(), s.comp.running.Load())
	}
}

// unwindBlocked runs a Group of n tasks on p, all but the last waiting for
// the group's context, which the last one's error cancels.
func unwindBlocked(p *pool.Pool, n int) error {
	g, ctx := NewGroup(context.Background(), p)
	for range n - 1 {
		g.Go(func() error { <-ctx.Done(); return nil })
	}
	g.Go(func() error { return errors.New("the last task") })
	return g.Wait()
}

// BenchmarkManyParticipants: unwinding n tasks that wait for the last
// (unwind), on the default pool and on a pool of a thousand workers; and
// closing the pool of a thousand once it did (close, one pool per
// iteration).
func BenchmarkManyParticipants(b *testing.B) {
	for _, workers := range []int{0, 1000} {
		for _, n := range []int{1000, 4000} {
			b.Run(fmt.Sprintf("unwind/pool%d/tasks%d", workers, n), func(b *testing.B) {
				p := pool.New(workers)
				defer p.Close()
				for b.Loop() {
					unwindBlocked(p, n)
				}
			})
		}
	}
	b.Run("close/pool1000", func(b *testing.B) {
		var d time.Duration
		for b.Loop() {
			p := pool.New(1000)
			unwindBlocked(p, 4000)
			t := time.Now()
			p.Close()
			d += time.Since(t)
		}
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "close-ns/op")
	})
}

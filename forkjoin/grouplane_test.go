package forkjoin

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
	"pgregory.net/rapid"
)

// TestGroupTaskNotRunUnderJoin: a Group's task that blocks on the group's
// context is never run by a participant that waits for the stolen half of
// a Join. Task A forks until its second half is stolen; that half spawns
// task B, which blocks until the group fails, and then panics. If A's
// participant, waiting for the half, ran B, B would sit on top of A, whose
// panic (at its Join) is the failure B waits for: a deadlock, which the
// watchdog reports. The half waits until B is in the group lane (or has
// started), so the schedule is the same every time.
func TestGroupTaskNotRunUnderJoin(t *testing.T) {
	leakcheck.Check(t)
	for round := range 20 {
		func() {
			// Not pool.With: on a deadlock the test must fail, not wait
			// in Close for the stuck tasks.
			p := pool.New(2)
			s := schedulerOf(p)
			var stolen, bStarted atomic.Bool
			var cause atomic.Value // B's context's cause, if B started (it may be skipped)
			done := make(chan error, 1)
			go func() {
				done <- RunCtx(context.Background(), p, func(w *Worker) error {
					g, ctx := NewGroup(context.Background(), p)
					g.GoWorker(func(w *Worker) error {
						a := w
						Join(w, func(w *Worker) {
							for i := 0; i < 1e8 && !stolen.Load(); i++ {
								Join(w, func(*Worker) {}, func(*Worker) {})
							}
						}, func(w *Worker) {
							if w == a {
								return // not stolen: nothing to show
							}
							stolen.Store(true)
							g.Go(func() error {
								bStarted.Store(true)
								<-ctx.Done()
								cause.Store(context.Cause(ctx))
								return nil
							})
							for !bStarted.Load() && s.groups.n.Load() == 0 {
								runtime.Gosched()
							}
							panic("half boom")
						})
						return nil
					})
					return g.Wait()
				})
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("round %d: the group never ended: its blocking task ran underneath a waiting Join", round)
			}
			p.Close()
			if !stolen.Load() {
				t.Fatalf("round %d: the half was never stolen", round)
			}
			var pe *PanicError
			if !errors.As(err, &pe) || pe.Value != "half boom" {
				t.Fatalf("round %d: Wait returned %v, want the half's panic", round, err)
			}
			if c, ran := cause.Load().(error); ran && !errors.As(c, &pe) {
				t.Errorf("round %d: B's context ended with cause %v, want the panic", round, c)
			}
		}()
	}
}

// TestGroupLaneModel checks the lane against a model: per group, tasks
// come out in the order they went in; a take for a family takes from the
// group listed first (the one whose queue became non-empty first) among
// those within the family, famAny from any, nil from none; nothing is lost
// or taken twice; and an emptied group leaves the list (nothing of it is
// kept). Group 3 is nested in group 0.
func TestGroupLaneModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var l groupLane
		groups := []*Spawner{new(Spawner), new(Spawner), new(Spawner), new(Spawner)}
		for i, g := range groups {
			g.fam.init(nil)
			if i == 3 {
				g.fam.init(&groups[0].fam)
			}
			g.fam.scope = g
		}
		model := make(map[*Spawner][]*task)
		var order []*Spawner // groups with tasks, in the order they got their first
		ops := rapid.IntRange(1, 200).Draw(rt, "ops")
		for range ops {
			g := groups[rapid.IntRange(0, len(groups)-1).Draw(rt, "g")]
			var fam *family
			switch rapid.IntRange(0, 2).Draw(rt, "op") {
			case 0:
				tk := new(task)
				if len(model[g]) == 0 {
					order = append(order, g)
				}
				model[g] = append(model[g], tk)
				l.mu.Lock()
				l.pushLocked(g, tk)
				l.mu.Unlock()
				l.n.Add(1)
				goto check
			case 1:
				fam = &g.fam
			case 2:
				fam = famAny
			}
			{
				got := l.take(fam)
				var want *task
				for i, o := range order {
					if o.fam.within(fam) {
						want, model[o] = model[o][0], model[o][1:]
						if len(model[o]) == 0 {
							order = slices.Delete(order, i, i+1)
						}
						break
					}
				}
				if got != want {
					rt.Fatalf("take(%p) = %p, want %p", fam, got, want)
				}
			}
		check:
			if !slices.Equal(l.groups, order) {
				rt.Fatalf("groups listed %v, want %v", l.groups, order)
			}
			n := 0
			for _, q := range model {
				n += len(q)
			}
			if l.n.Load() != int64(n) {
				rt.Fatalf("n = %d, want %d", l.n.Load(), n)
			}
		}
		if l.take(nil) != nil {
			rt.Fatalf("take(nil) took a task")
		}
	})
}

package forkjoin

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// outerWorkerInSpawnedTask runs use(outer) in a task of a Scope that a
// pool worker runs while outer, the Worker of the Scope's caller, is
// parked waiting for the scope: the outer Worker captured in a nested
// task, used from another goroutine. It returns what the Scope failed
// with.
func outerWorkerInSpawnedTask(t *testing.T, use func(outer *Worker)) error {
	t.Helper()
	var err error
	pool.With(2, func(p *pool.Pool) {
		Run(p, func(outer *Worker) {
			var started atomic.Bool
			err = ScopeCtx(context.Background(), outer, func(s *Spawner) {
				s.Spawn(outer, func(inner *Worker) {
					started.Store(true)
					if inner == outer {
						t.Error("the task ran on the Scope's caller, not on the pool's worker")
						return
					}
					if !pollFor(outer.parked.Load) {
						t.Error("the Scope's caller never parked")
						return
					}
					use(outer)
				})
				// Keep the task from the caller until the pool's worker
				// has it.
				if !pollFor(started.Load) {
					t.Error("the pool's worker never started the task")
				}
			})
		})
	})
	return err
}

// pollFor polls cond until it holds, for at most a minute.
func pollFor(cond func() bool) bool {
	for end := time.Now().Add(time.Minute); !cond(); runtime.Gosched() {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}

func TestOuterWorkerInSpawnedTask(t *testing.T) {
	leakcheck.Check(t)
	noop := func(*Worker) {}
	uses := []struct {
		name string
		use  func(outer *Worker)
	}{
		{"Join", func(w *Worker) { Join(w, noop, noop) }},
		{"For", func(w *Worker) { For(w, 4, 1, func(*Worker, int, int) {}) }},
		{"Reduce", func(w *Worker) {
			Reduce(w, 4, 1, func(*Worker, int, int) int { return 0 }, func(a, b int) int { return a + b })
		}},
		{"Scope", func(w *Worker) { Scope(w, func(*Spawner) {}) }},
		{"Spawner.Spawn", func(w *Worker) {
			Scope(w, func(s *Spawner) { s.Spawn(w, noop) })
		}},
	}
	for _, u := range uses {
		err := outerWorkerInSpawnedTask(t, u.use)
		var pe *PanicError
		if !errors.As(err, &pe) || !strings.Contains(fmt.Sprint(pe.Value), "Worker used outside the task it was given to") {
			t.Errorf("%s with the outer Worker in a spawned task: Scope = %v, want a panic naming the misuse", u.name, err)
		}
	}
}

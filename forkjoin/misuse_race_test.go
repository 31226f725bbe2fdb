//go:build race

package forkjoin

import (
	"fmt"
	"strings"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// Under the race detector a Worker used from another goroutine is caught
// even while its owner is busy (here blocked on a channel in its task),
// which a normal build cannot tell from a use by the owner.
func TestWorkerOnAnotherGoroutineRace(t *testing.T) {
	leakcheck.Check(t)
	uses := []struct {
		name string
		use  func(w *Worker)
	}{
		{"Reduce", func(w *Worker) {
			Reduce(w, 4, 1, func(*Worker, int, int) int { return 0 }, func(a, b int) int { return a + b })
		}},
		{"For", func(w *Worker) { For(w, 4, 1, func(*Worker, int, int) {}) }},
		{"Scope", func(w *Worker) { Scope(w, func(*Spawner) {}) }},
	}
	pool.With(2, func(p *pool.Pool) {
		for _, u := range uses {
			Run(p, func(w *Worker) {
				got := make(chan any)
				go func() {
					defer func() { got <- recover() }()
					u.use(w)
				}()
				if v := <-got; !strings.Contains(fmt.Sprint(v), "Worker used outside the task it was given to") {
					t.Errorf("%s from another goroutine: panicked with %v, want a panic naming the misuse", u.name, v)
				}
			})
		}
	})
}

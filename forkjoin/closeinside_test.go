package forkjoin

import (
	"strings"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// closeWithin runs f on a goroutine of its own and fails the test if it
// has not returned within 10 s (a Close that waits for itself hangs).
func closeWithin(t *testing.T, what string, f func()) bool {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-time.After(10 * time.Second): // a deadlock's bound, not a timing
		t.Errorf("%s: hangs", what)
		return false
	}
}

// TestCloseFromInside: Close called from work running on the pool panics
// at once with a message saying what is wrong, wherever that work runs (a
// spawned task on a worker, a Run's root, a For body on any participant,
// a task that the goroutine of another Close runs), and leaves the pool
// open: it still runs work, and a Close from outside closes it.
func TestCloseFromInside(t *testing.T) {
	leakcheck.Check(t)
	const want = "Close called from"
	p := pool.New(2)
	ok := closeWithin(t, "Close from a spawned task", func() {
		h := Spawn(p, func(w *Worker) (int, error) {
			p.Close()
			return 0, nil
		})
		<-h.Done() // run by a worker: Done runs nothing
		if _, err := h.Join(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Close from a spawned task: Join's error = %v, want one containing %q", err, want)
		}
	})
	ok = ok && closeWithin(t, "Close from a Run's root", func() {
		mustPanic(t, "Close from a Run's root", want, func() {
			Run(p, func(w *Worker) { p.Close() })
		})
	})
	ok = ok && closeWithin(t, "Close from a For body", func() {
		mustPanic(t, "Close from a For body", want, func() {
			Run(p, func(w *Worker) {
				For(w, 1000, 1, func(w *Worker, lo, hi int) {
					time.Sleep(time.Microsecond) // spread the chunks over both participants
					if lo == 999 {
						p.Close()
					}
				})
			})
		})
	})
	if !ok {
		return // the pool is stuck: the leak check reports what is left
	}
	if got := checkSum(p, smallTree, smallSum); got != nil {
		t.Fatalf("the pool after the refused Closes: %v", got)
	}
	closeWithin(t, "Close from outside", p.Close)
	if !p.Closed() {
		t.Fatal("Close from outside left the pool open")
	}

	// A task that the closing goroutine runs itself (no worker can).
	q := pool.New(1)
	var h *Handle[int]
	h = Spawn(q, func(w *Worker) (int, error) {
		q.Close()
		return 0, nil
	})
	if closeWithin(t, "Close from a task that Close runs", q.Close) {
		if _, err := h.Join(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Close from a task that Close runs: Join's error = %v, want one containing %q", err, want)
		}
	}
}

package forkjoin

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestSpawnFailures: workers that cannot be started are tolerated — the
// runs complete with the participants there are, the caller alone if need
// be — and a spawn function that panics fails only the run that needed the
// worker.
func TestSpawnFailures(t *testing.T) {
	leakcheck.Check(t)
	var c int64
	root := buildTree(bigDepth, &c)
	want := seqSum(root)
	errNoWorker := errors.New("no worker for you")

	// Never starts a worker.
	p := pool.New(4, pool.WithSpawn(func(func()) error { return errNoWorker }))
	for i := 0; i < 5; i++ {
		if err := checkSum(p, root, want); err != nil {
			t.Fatalf("no workers: %v", err)
		}
	}
	if st := p.Stats(); st.WorkersStarted != 0 || st.SpawnFailures == 0 {
		t.Errorf("no workers: stats %+v", st)
	}
	p.Close()

	// Starts one worker, then fails.
	var started atomic.Int32
	p = pool.New(4, pool.WithSpawn(func(run func()) error {
		if started.Add(1) > 1 {
			return errNoWorker
		}
		go run()
		return nil
	}))
	for i := 0; i < 5; i++ {
		if err := checkSum(p, root, want); err != nil {
			t.Fatalf("one worker: %v", err)
		}
	}
	if st := p.Stats(); st.WorkersStarted != 1 {
		t.Errorf("one worker: %d started", st.WorkersStarted)
	}
	p.Close()

	// Panics the first time, works afterwards: the run that needed the
	// worker fails with the panic, the later ones use workers.
	var calls atomic.Int32
	p = pool.New(3, pool.WithSpawn(func(run func()) error {
		if calls.Add(1) == 1 {
			panic("spawn exploded")
		}
		go run()
		return nil
	}))
	v := runRecover(p, func(w *Worker) { sumFork.Call(w, root) })
	var pe *PanicError
	if err, ok := v.(error); !ok || !errors.As(err, &pe) || pe.Value != "spawn exploded" {
		t.Fatalf("the run whose fork met the panicking spawn re-panicked with %v", v)
	}
	for i := 0; i < 20; i++ {
		if err := checkSum(p, root, want); err != nil {
			t.Fatalf("after the spawn panic: %v", err)
		}
		if p.Stats().WorkersStarted > 0 && i >= 2 {
			break
		}
	}
	if st := p.Stats(); st.WorkersStarted == 0 {
		t.Errorf("no worker was ever started after the spawn panic: %+v", st)
	}
	p.Close()

	// Works once, then panics: the panic meets a pool worker that has
	// just taken a task and wants a second worker to help; the task must
	// not be lost (the run would hang).
	calls.Store(0)
	p = pool.New(3, pool.WithSpawn(func(run func()) error {
		if calls.Add(1) >= 2 {
			panic("spawn exploded")
		}
		go run()
		return nil
	}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 20; i++ {
			_ = runRecover(p, func(w *Worker) {
				if got := sumFork.Call(w, root); got != want {
					t.Errorf("sum %d, want %d", got, want)
				}
			})
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("runs hang after a spawn panic on a pool worker")
	}
	p.Close()
}

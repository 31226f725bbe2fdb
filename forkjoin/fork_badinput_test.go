package forkjoin

import (
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestForkBadInput: a Fork used through a nil pointer, a zero Fork value,
// or a nil *Worker, panics with a message that names the mistake, on every
// path a fork takes: a word argument (pointer or scalar) and a slab
// argument, in Fork.Join, Fork.Start and Future.Join. Each is checked
// where it is used, never left to a nil dereference inside the library.
func TestForkBadInput(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	type pair struct{ a, b int }
	var (
		nilPtr  *Fork[*int, int]
		nilInt  *Fork[int, int]
		nilPair *Fork[pair, int]
	)
	x := 1
	inRun := func(what, want string, f func(w *Worker)) {
		t.Helper()
		mustPanic(t, what, want, func() { Run(p, f) })
	}
	const nilFork, zeroFork = "nil *Fork", "zero Fork"
	inRun("Fork.Join on a nil *Fork, pointer argument", nilFork, func(w *Worker) { nilPtr.Join(w, &x, &x) })
	inRun("Fork.Join on a nil *Fork, scalar argument", nilFork, func(w *Worker) { nilInt.Join(w, 1, 2) })
	inRun("Fork.Join on a nil *Fork, slab argument", nilFork, func(w *Worker) { nilPair.Join(w, pair{}, pair{}) })
	inRun("Fork.Start on a nil *Fork, pointer argument", nilFork, func(w *Worker) { nilPtr.Start(w, &x).Join(w) })
	inRun("Fork.Start on a nil *Fork, scalar argument", nilFork, func(w *Worker) { nilInt.Start(w, 1).Join(w) })
	inRun("Fork.Start on a nil *Fork, slab argument", nilFork, func(w *Worker) { nilPair.Start(w, pair{}).Join(w) })
	inRun("Fork.Join on a zero Fork, scalar argument", "not made by NewFork", func(w *Worker) {
		new(Fork[int, int]).Join(w, 1, 2)
	})
	inRun("Fork.Join on a zero Fork, slab argument", "not made by NewFork", func(w *Worker) {
		new(Fork[pair, int]).Join(w, pair{}, pair{})
	})
	inRun("Fork.Start on a zero Fork, pointer argument", zeroFork, func(w *Worker) { new(Fork[*int, int]).Start(w, &x).Join(w) })
	inRun("Fork.Start on a zero Fork, scalar argument", zeroFork, func(w *Worker) { new(Fork[int, int]).Start(w, 1).Join(w) })
	inRun("Fork.Start on a zero Fork, slab argument", zeroFork, func(w *Worker) { new(Fork[pair, int]).Start(w, pair{}).Join(w) })
	ptrFork := NewFork(func(_ *Fork[*int, int], _ *Worker, v *int) int { return *v })
	intFork := NewFork(func(_ *Fork[int, int], _ *Worker, v int) int { return v })
	pairFork := NewFork(func(_ *Fork[pair, int], _ *Worker, v pair) int { return v.a + v.b })
	const nilWorker = "nil *Worker"
	inRun("Fork.Join with a nil *Worker, pointer argument", nilWorker, func(*Worker) { ptrFork.Join(nil, &x, &x) })
	inRun("Fork.Join with a nil *Worker, scalar argument", nilWorker, func(*Worker) { intFork.Join(nil, 1, 2) })
	inRun("Fork.Join with a nil *Worker, slab argument", nilWorker, func(*Worker) { pairFork.Join(nil, pair{}, pair{}) })
	inRun("Fork.Start with a nil *Worker, pointer argument", nilWorker, func(*Worker) { ptrFork.Start(nil, &x) })
	inRun("Fork.Start with a nil *Worker, scalar argument", nilWorker, func(*Worker) { intFork.Start(nil, 1) })
	inRun("Fork.Start with a nil *Worker, slab argument", nilWorker, func(*Worker) { pairFork.Start(nil, pair{}) })
	inRun("Future.Join with a nil *Worker, pointer argument", nilWorker, func(w *Worker) {
		fu := ptrFork.Start(w, &x)
		defer fu.Join(w) // the fork must not be left behind
		fu.Join(nil)
	})
	inRun("Future.Join with a nil *Worker, slab argument", nilWorker, func(w *Worker) {
		fu := pairFork.Start(w, pair{})
		defer fu.Join(w)
		fu.Join(nil)
	})
	// The same mistake inside a forked call.
	outer := NewFork(func(_ *Fork[int, int], w *Worker, i int) int {
		if i == 1 {
			return nilPtr.Start(w, &x).Join(w)
		}
		return 0
	})
	inRun("Fork.Start on a nil *Fork in a forked call", nilFork, func(w *Worker) { outer.Join(w, 0, 1) })
	// A nil pointer dereference of the caller's own is left as it is.
	inRun("a nil dereference in the forked function", "nil pointer dereference", func(w *Worker) {
		deref := NewFork(func(_ *Fork[*int, int], _ *Worker, v *int) int { return *v })
		deref.Start(w, nil).Join(w)
	})
}

package forkjoin

// Future forks: Fork.Start returns a Future, joined later with Future.Join.

import (
	"sync/atomic"
	"unsafe"
)

// Future is a forked call of a Fork, to be joined with Future.Join on the
// Worker that forked it. Futures of one worker must be joined in the
// reverse order of their forks (the last forked first), like nested calls,
// each exactly once, and before the task that forked them returns.
//
// Mistakes are caught by a panic that names them, some of them late:
//   - a Join out of order panics at once;
//   - a second Join panics at once, unless another fork has taken the
//     Future's place on the stack since (Join's fast path compares places
//     only): then it pops that fork instead, and returns a call of its own
//     Fork on its own argument or on that fork's; the other fork's Join
//     panics if that fork is a Future's (a Fork.Join, which does not check,
//     makes its second call itself, and nothing is reported);
//   - a Future never joined is reported when the task that forked it
//     returns: the task fails with a "not joined" panic. Until then its
//     fork stays pending, and another participant may run it.
//
// A Future forked inside the first call of a Fork.Join is the exception:
// if that call returns without joining it, Join drops it without a report
// (see Fork.Join). A pending fork keeps its Fork and argument reachable
// whatever becomes of the Future, so none of these mistakes reads freed
// memory.
//
// With a Future the forked function's own recursion calls itself directly
// and Future.Join inlines into it: for a pointer argument (a tree node,
// say) this is the cheapest fork forkjoin has.
//
//	func sum(f *forkjoin.Fork[*Node, int64], w *forkjoin.Worker, n *Node) int64 {
//		if n == nil {
//			return 0
//		}
//		right := f.Start(w, n.Right) // another worker may take it
//		left := sum(f, w, n.Left)
//		return n.Value + left + right.Join(w)
//	}
type Future[A, R any] struct {
	f *Fork[A, R]
	// top is forkTop just after the fork pushed its entry (index top-1), or,
	// for a slab fork, ^index: negative, so never equal to forkTop, so such a
	// Future always takes the slow join.
	top int
	arg A // a word fork's argument (zero for a slab fork, whose slot has it)
}

// Start makes fn(w, a) available to other participants and returns at once;
// join the result with Future.Join on the same worker. Allocates nothing.
//
// Start on a nil *Fork, on a zero Fork value or with a nil *Worker panics
// with a message that says which.
//
// The fast path is a pointer-shaped A (fastMask) with room on the fork
// stack and no request to answer: the entry's wf and ptr stored as one
// composite literal (forkHeadOf; the argument is a pointer, typed, see
// forkEntry). One load and one compare test for everything unusual (no
// room, a request, a non-pointer A; see Worker.limit and Fork.fastMask);
// everything else, the checks of f and w included, is startSlow's.
//
// Start is not inlined into the caller: the tests of f and w take it over
// Go's inlining budget (docs/BENCHMARKS.md gives what the call costs).
func (f *Fork[A, R]) Start(w *Worker, a A) Future[A, R] {
	if f != nil && w != nil {
		i := w.forkTop
		if uintptr(i) < atomic.LoadUintptr(&w.limit)&f.fastMask {
			*(*forkHeadOf[A])(unsafe.Pointer(&w.forks[i])) = forkHeadOf[A]{&f.word, a}
			w.forkTop = i + 1
			return Future[A, R]{f, i + 1, a}
		}
	}
	return f.startSlow(w, a)
}

// startSlow is Start off its fast path: a nil *Fork or *Worker, a zero
// Fork, a full fork stack, a request to serve, a scalar word fork (no fast
// path: ptr could not hold it), or a slab fork.
func (f *Fork[A, R]) startSlow(w *Worker, a A) Future[A, R] {
	if f == nil {
		panic(errNilForkStart)
	}
	if w == nil {
		panic(errNilWorkerStart)
	}
	if f.fn == nil {
		panic(errZeroFork)
	}
	if w.asked() {
		// Before anything is pushed: a released handle is asked for ever,
		// and a fork it pushed could line up with a kept Future's top.
		w.checkActive()
	}
	if f.wordShape == 0 {
		f.pushSlot(w, a)
		return Future[A, R]{f: f, top: ^(w.forkTop - 1)}
	}
	w.growForks()
	i := w.forkTop
	f.pushWord(&w.forks[i], a)
	w.forkTop = i + 1
	if w.asked() {
		w.answerRequest() // may publish this very fork
	}
	return Future[A, R]{f, i + 1, a}
}

// Join returns the forked call's result, running it here if no other
// participant took it, or helping until the one that did has finished.
func (fu Future[A, R]) Join(w *Worker) R {
	if fu.f == nil || w == nil {
		panic(errFutureJoinMisuse)
	}
	return joinFuture(fu.f.joinSlowFn, fu.f, w, fu.top, fu.arg)
}

// errFutureJoinMisuse is Join's message for a zero Future or a nil Worker:
// one message for both, as a second test would take Join over Go's
// inlining budget.
const errFutureJoinMisuse = "forkjoin: Future.Join of a zero Future (one that no Fork.Start returned) or with a nil *Worker"

// joinFuture is Join's fast path: the fork is the newest entry and was
// not published, so it is popped and run here. It fits Go's inlining
// budget, so that Join inlines into the user's function, by taking its
// slow path as a parameter (the inliner charges a call through a
// parameter less than one through a field) and making one call, to
// whichever function the test picked. The slow path finds the Future's
// top in w.joinTop. `go build -gcflags=-m=2 ./forkjoin` reports the
// costs; TestFutureForkInlines checks that Join stays inlinable.
func joinFuture[A, R any](fn func(f *Fork[A, R], w *Worker, a A) R, f *Fork[A, R], w *Worker, top int, a A) R {
	if top == w.forkTop && top > w.published {
		w.forkTop = top - 1
		fn = f.fn
	} else {
		w.joinTop = top
	}
	return fn(f, w, a)
}

// joinFutureSlow is Join when the fork was published, or was a slab fork,
// or the Future is not the newest fork (a Join out of order or a second
// one).
func (f *Fork[A, R]) joinFutureSlow(w *Worker, a A) R {
	top := w.joinTop
	if top < 0 {
		return f.joinSlabFuture(w, ^top)
	}
	i := top - 1
	if top != w.forkTop || i < 0 || !f.holds(&w.forks[i], a) {
		w.checkActive() // a stale handle is the likelier mistake
		panic(futureMisuse(top < w.forkTop))
	}
	w.forkTop = i
	if i >= w.published {
		return f.fn(f, w, a) // not published after all
	}
	return f.joinPublishedWord(w, i)
}

const (
	errFutureOrder = "forkjoin: Future.Join out of order: a Future forked after this one is not joined yet (join futures in the reverse order of their forks)"
	errFutureTwice = "forkjoin: Future.Join of a fork already joined: this Future was joined twice, or a Future joined twice took its place (join each Future exactly once, on the worker that forked it)"
)

// futureMisuse is the message for a Future whose entry is not the newest
// fork: if newer forks are pending the Join is out of order; otherwise its
// entry was popped already, by its own Join or by a second Join of the
// Future forked before it in the same place (a pointer Future's fast path
// compares places only), so some Future was joined twice.
func futureMisuse(newerPending bool) string {
	if newerPending {
		return errFutureOrder
	}
	return errFutureTwice
}

// holds reports whether e is the entry of a word fork of f with argument a.
func (f *Fork[A, R]) holds(e *forkEntry, a A) bool {
	if e.wf != &f.word {
		return false
	}
	if f.wordShape == wordPointer {
		// a is one pointer word: rule (1), as forkHeadOf.
		return e.ptr == *(*unsafe.Pointer)(unsafe.Pointer(&a))
	}
	return e.arg == scalarBits(a)
}

// joinSlabFuture joins a slab fork's Future, whose entry is at index i.
func (f *Fork[A, R]) joinSlabFuture(w *Worker, i int) R {
	if i != w.forkTop-1 || w.forks[i].wf != nil || w.forks[i].hdr == nil ||
		(*forkSlot[A, R])(taskPointer(w.forks[i].hdr)).fork != f {
		w.checkActive()
		panic(futureMisuse(i < w.forkTop-1))
	}
	h := w.forks[i].hdr
	slot := (*forkSlot[A, R])(taskPointer(h))
	w.forkTop = i
	w.forks[i] = forkEntry{}
	var r R
	if i >= w.published {
		if w.asked() {
			w.answerRequest()
		}
		r = f.fn(f, w, slot.arg)
	} else if w.reclaim(h, i) {
		r = f.fn(f, w, slot.arg)
	} else {
		r = slot.res
	}
	slabOf[A, R](w, f.slabID).pop()
	return r
}

// Messages for a Fork.Start given a nil *Fork or a nil *Worker.
const (
	errNilForkStart   = "forkjoin: Fork.Start on a nil *Fork (make a Fork with NewFork)"
	errNilWorkerStart = "forkjoin: Fork.Start with a nil *Worker (pass the Worker of the task that forks)"
)

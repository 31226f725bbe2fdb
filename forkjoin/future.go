package forkjoin

// Future forks: Fork.Start returns a Future, joined later with Future.Join.

import (
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Future is a forked call of a Fork, to be joined with Future.Join. Futures
// of one worker must be joined in the reverse order of their forks (the
// last forked first), like nested calls, and each exactly once. Every
// Future must be joined before the task that forked it returns; one that
// is not fails the run with a panic saying so. A Join out of order, or a
// second Join, panics too, at the latest when the forks it mixed up are
// joined. Until the task returns, a Future's Fork must stay reachable
// (docs/guarantees.md, section 8): a Fork kept in a variable, as usual, is;
// one made for a single call inside the task and whose Future is dropped
// may not be.
//
// With a Future the forked function's own recursion can call itself
// directly, and for a pointer argument (a tree node, say) Start and Join
// are small enough for the compiler to inline into it: this is the
// cheapest fork forkjoin has.
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
// Start on a nil *Fork, or on a zero Fork value, panics (see forkFault).
func (f *Fork[A, R]) Start(w *Worker, a A) Future[A, R] {
	return startFuture(f.startSlowFn, f, w, a)
}

// startFuture is Start's fast path, for a pointer-shaped A (fastMask):
// the entry's word and ptr stored, as one composite literal. It is written
// to fit Go's inlining budget, so that Start inlines into the user's
// function: the slow path is a parameter (the inliner charges a call
// through a parameter less than one through a field), and one load and
// one compare test for everything unusual (no room, a request, a
// non-pointer A; see Worker.limit and Fork.fastMask). The argument goes
// into ptr, typed (see forkEntry), through forkHeadOf[A], so that a is
// stored as it is: reading its word through a pointer to a would make
// the compiler keep a copy of a in memory. `go build -gcflags=-m=2
// ./forkjoin` reports the costs; TestFutureForkInlines checks that Start
// and Join stay inlinable.
func startFuture[A, R any](slow func(w *Worker, a A) Future[A, R], f *Fork[A, R], w *Worker, a A) Future[A, R] {
	i := w.forkTop
	if uintptr(i) >= atomic.LoadUintptr(&w.limit)&f.fastMask {
		return slow(w, a)
	}
	// A is pointer-shaped here (fastMask is 0 otherwise): forkHeadOf[A]
	// is the entry's word and ptr.
	*(*forkHeadOf[A])(unsafe.Pointer(&w.forks[i])) = forkHeadOf[A]{f.refBits, a}
	i++
	w.forkTop = i
	return Future[A, R]{f, i, a}
}

// startSlow is Start when startFuture's test fails: a full fork stack, a
// request to serve, a scalar word fork (no fast path: ptr could not hold
// it), or a slab fork.
func (f *Fork[A, R]) startSlow(w *Worker, a A) Future[A, R] {
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
	if f.wordShape == wordPointer {
		*(*forkHeadOf[A])(unsafe.Pointer(&w.forks[i])) = forkHeadOf[A]{f.refBits, a}
	} else {
		e := &w.forks[i]
		e.word, e.arg = wordPtr(&f.word), wordBits(a)
	}
	w.forkTop = i + 1
	if w.asked() {
		w.answerRequest() // may publish this very fork
	}
	return Future[A, R]{f, i + 1, a}
}

// forkHeadOf[A] is the first two fields of a forkEntry, word and ptr,
// with ptr typed as A: for a pointer-shaped A (a pointer, map, channel,
// function or unsafe.Pointer; see wordShapeOf) it has forkEntry's layout
// there, and a store of A into ptr is a store of a pointer into a pointer
// field, with the write barrier the collector needs. Only Future forks of
// such an A use it.
type forkHeadOf[A any] struct {
	word uintptr
	ptr  A
}

// forkHeadOf's ptr lies where forkEntry's does: a negative array length
// does not compile, so the two differences below are both 0.
var (
	_ [unsafe.Offsetof(forkEntry{}.ptr) - unsafe.Offsetof(forkHeadOf[*byte]{}.ptr)]struct{}
	_ [unsafe.Offsetof(forkHeadOf[*byte]{}.ptr) - unsafe.Offsetof(forkEntry{}.ptr)]struct{}
)

// Join returns the forked call's result, running it here if no other
// participant took it, or helping until the one that did has finished.
func (fu Future[A, R]) Join(w *Worker) R {
	if fu.f == nil {
		panic("forkjoin: Join of a zero Future (one that no Fork.Start returned)")
	}
	return joinFuture(fu.f.joinSlowFn, fu.f, w, fu.top, fu.arg)
}

// joinFuture is Join's fast path: the fork is the newest entry and was
// not published, so it is popped and run here. Like startFuture it fits
// the inlining budget by taking its slow path as a parameter and making
// one call, to whichever function the test picked. The slow path finds
// the Future's top in w.joinTop.
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
	if f.wordShape == wordPointer {
		return e.word == f.refBits && e.ptr == *(*unsafe.Pointer)(unsafe.Pointer(&a))
	}
	return e.word == wordPtr(&f.word) && e.arg == wordBits(a)
}

// joinSlabFuture joins a slab fork's Future, whose entry is at index i.
func (f *Fork[A, R]) joinSlabFuture(w *Worker, i int) R {
	if i != w.forkTop-1 || w.forks[i].word != 0 || w.forks[i].hdr == nil ||
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

// Messages for a Fork.Start that faulted in its fast path (forkFault).
const (
	errNilForkStart = "forkjoin: Fork.Start on a nil *Fork (make a Fork with NewFork)"
	errForkFastPath = "forkjoin: Fork.Start on a zero Fork value (one not made by NewFork) or with a nil *Worker"
)

// forkjoinPkg is this package's path, as function names in a stack begin.
var forkjoinPkg = reflect.TypeFor[Worker]().PkgPath()

// forkFault returns the message for a nil pointer fault that Fork.Start
// took on a nil *Fork, a zero Fork or a nil *Worker, and any other value
// as it is. It is called where a task boundary recovered v, while the
// frames that panicked are still on the stack (newPanicError).
//
// Fork.Start tests none of these: it is inlined into the caller's
// recursion, and a test would take it over the inliner's budget, so the
// fault itself is the test, and costs the fast path nothing. Fork.Start's
// own frame touches nothing but f (f.startSlowFn), and the runtime reports
// inlined frames as frames of their own: a fault in Fork.Start's frame is
// a nil *Fork; one in startFuture's a nil *Worker (w.forkTop) or a zero Fork
// (whose slow path, nil, is called).
func forkFault(v any) any {
	re, ok := v.(runtime.Error)
	if !ok || !strings.Contains(re.Error(), "nil pointer dereference") {
		return v
	}
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	for more := true; more; {
		var fr runtime.Frame
		fr, more = frames.Next()
		if fr.Function != "runtime.sigpanic" {
			continue
		}
		at, _ := frames.Next() // the function that faulted
		switch fn, _ := strings.CutPrefix(at.Function, forkjoinPkg+"."); {
		case strings.HasPrefix(fn, "(*Fork[") && strings.HasSuffix(fn, ").Start"):
			return errNilForkStart
		case strings.HasPrefix(fn, "startFuture["):
			return errForkFastPath
		}
		return v
	}
	return v
}

package forkjoin

// The typed fork.
//
// A Fork[A, R] wraps a function func(*Worker, A) R. Forking it costs no
// allocation and no atomic operation: the argument is written into a slot
// of a per-worker slab (forkslab.go), or, if it is one machine word, into
// the fork's entry on the worker's private stack (forkword.go); the join
// pops it back and calls the function directly — unless the fork was
// published meanwhile because a thief asked (see scheduler.go), in which
// case the join takes it back from the deque or, if a thief has it, helps
// until the thief has written the result into the slot. Future forks
// (Fork.Start and Future.Join) are in future.go.

import (
	"sync/atomic"
	"unsafe"
)

// Fork is a function of the shape func(f *Fork[A, R], w *Worker, arg A) R
// prepared for forking: Join runs two calls of it in parallel, Start and
// Future.Join any number, and neither allocates in steady state.
//
// The function receives its own Fork as f, so a recursion forks through
// its parameter and refers to no variable: a Fork can be a package-level
// variable initialised in its declaration (no init function, no
// initialisation cycle), or be made where a run starts. Use one Fork from
// any number of goroutines and runs:
//
//	var sum = forkjoin.NewFork(func(f *forkjoin.Fork[*Node, int64], w *forkjoin.Worker, n *Node) int64 {
//		if n == nil {
//			return 0
//		}
//		l, r := f.Join(w, n.Left, n.Right)
//		return n.Value + l + r
//	})
//
// NewFork allocates and looks up its (A, R) pair: made once per run it
// is invisible next to the run, made per call of a small function it is
// not.
//
// A Fork must not be copied: its functions and the forks in flight refer
// to the Fork that NewFork made, not to the copy (go vet's copylocks check
// reports copies).
type Fork[A, R any] struct {
	_    noCopy
	word wordFork // what a word fork's entry points to (forkEntry.wf)
	fn   func(f *Fork[A, R], w *Worker, arg A) R
	// Future forks (Fork.Start, Future.Join): Join's slow path, passed as
	// an argument to joinFuture (see there), and the mask of Start's test.
	joinSlowFn func(f *Fork[A, R], w *Worker, a A) R
	fastMask   uintptr // ^0 if A is pointer-shaped (Fork.Start has a fast path), else 0

	slabID    int // the (A, R) pair's slab on every worker (slabIDFor)
	exec      func(w *Worker, h *task)
	wordShape uint8 // wordPointer or wordScalar for a word fork, else 0
}

// forkEntry is one pending fork on a worker's private stack. A word fork
// keeps its argument in the entry itself, with wf set: a pointer-shaped
// argument in ptr, a scalar one (a number, no pointer) as its bits in
// arg; hdr is set only once a thief's request published it. Any other
// fork keeps its argument in a slab slot from the start: hdr is the
// slot's header and wf is nil.
//
// Every pointer of an entry is a pointer field, so the collector sees
// what a pending fork refers to, whatever happened to the frames that
// forked it: a Future dropped without Join, or a Join or a Future's
// frames unwound by a panic that the task recovered, leave an entry that
// a thief's request may publish after every other reference to its Fork
// and argument is gone (the mistake is reported only at the next join or
// at the end of the task). The entry keeps them alive until then.
//
// Entries above forkTop are stale and ignored. A stale entry keeps its
// Fork and argument alive until the entry is reused, or until the
// worker's top level clears it (dropStale).
//
// A word fork writes only wf and the field of its argument; the other
// fields keep what an earlier fork left in the entry, and nothing reads
// them: ptr is read only in the entry of a pointer-shaped A, arg only in
// a scalar one's, and hdr only in an entry that was published (its
// publication wrote hdr) or that a slab fork pushed (pushFork writes the
// whole entry).
type forkEntry struct {
	wf  *wordFork      // the Fork of a word fork (&Fork.word), or nil
	ptr unsafe.Pointer // a word fork's pointer-shaped argument
	arg uintptr        // a word fork's scalar argument, as bits: never a pointer
	hdr *task          // 32 bytes in all: an index is a shift
}

// noCopy makes go vet report a copied Fork.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// NewFork prepares fn for forking: every call the Fork makes is
// fn(f, w, arg), with f the Fork itself. fn must not be nil.
func NewFork[A, R any](fn func(f *Fork[A, R], w *Worker, arg A) R) *Fork[A, R] {
	if fn == nil {
		panic("forkjoin: NewFork with a nil function")
	}
	f := &Fork[A, R]{fn: fn, slabID: slabIDFor[A, R](), wordShape: wordShapeOf[A]()}
	f.exec = func(w *Worker, h *task) {
		slot := (*forkSlot[A, R])(taskPointer(h))
		slot.res = f.fn(f, w, slot.arg)
	}
	switch f.wordShape {
	case wordPointer:
		f.word.publish = func(w *Worker, e *forkEntry) *task {
			return f.publishWord(w, e, pointerArg[A](e))
		}
		f.fastMask = ^uintptr(0)
	case wordScalar:
		f.word.publish = func(w *Worker, e *forkEntry) *task {
			return f.publishWord(w, e, scalarArg[A](e))
		}
	}
	f.joinSlowFn = (*Fork[A, R]).joinFutureSlow
	return f
}

// Call runs the function inline: f.Call(w, a) is fn(f, w, a).
func (f *Fork[A, R]) Call(w *Worker, a A) R {
	if f == nil || f.fn == nil {
		panic(errZeroFork)
	}
	return f.fn(f, w, a)
}

// Join runs fn(w, a) and fn(w, b), possibly in parallel, and returns both
// results: fn(w, a) runs on the calling goroutine at once, while fn(w, b)
// waits where another participant can take it; if nobody did by the time
// fn(w, a) returns, it runs here too.
//
// A panic in either call cancels the run and leaves Join: a panic in
// fn(w, a) at once, even while another participant runs fn(w, b) (the
// run's boundary, not Join, waits for that one, so Run returns only once
// it is over).
//
// A Future forked by fn(w, a) must be joined before fn(w, a) returns. Join
// does not check it (the check would cost its fast path): it drops such a
// Future without a report, and the Future's call is made only if another
// participant took it meanwhile, its result lost. Anywhere else an
// unjoined Future is reported when the task returns (see Future).
//
// Join on a nil *Fork, on a zero Fork or with a nil *Worker panics with a
// message that says which.
func (f *Fork[A, R]) Join(w *Worker, a, b A) (R, R) {
	// The fast path of a word fork, written out by hand: it runs once per
	// fork and every instruction shows. One guard for everything unusual
	// (a full fork stack, a thief's request to serve: see Worker.limit),
	// two stores, the call, the pop. Everything else lives in functions
	// of their own, so that this frame stays as small as the fast path
	// needs. A nil f or w takes joinSlab's path, which reports it.
	if f == nil || w == nil || f.wordShape == 0 {
		return f.joinSlab(w, a, b)
	}
	forks := w.forks
	i := w.forkTop
	if uint(i) >= uint(len(forks)) || w.asked() {
		return f.joinSlow(w, a, b)
	}
	f.pushWord(&forks[i], b)
	w.forkTop = i + 1
	ra := f.fn(f, w, a)
	w.forkTop = i
	if i >= w.published {
		return ra, f.fn(f, w, b)
	}
	return ra, f.joinPublishedWord(w, i)
}

// joinSlab is Join for a fork whose argument is not one word: it goes into
// a slot of the worker's slab for (A, R) at once.
//
//go:noinline
func (f *Fork[A, R]) joinSlab(w *Worker, a, b A) (R, R) {
	if f == nil {
		panic(errNilForkJoin)
	}
	if w == nil {
		panic(errNilWorkerJoin)
	}
	var slab *forkSlab[A, R]
	if f.slabID < len(w.slabs) {
		slab = (*forkSlab[A, R])(w.slabs[f.slabID])
	}
	i := w.forkTop
	if slab == nil || slab.used >= len(slab.cur) || uintptr(i) >= atomic.LoadUintptr(&w.limit) {
		return f.joinSlow(w, a, b)
	}
	used := slab.used
	slot := &slab.cur[used]
	slab.used = used + 1
	if slot.fork != f { // slots are shared by the Forks of one (A, R)
		slot.fork = f
		slot.hdr.exec = f.exec
	}
	slot.arg = b
	e := &w.forks[i]
	e.hdr, e.wf = &slot.hdr, nil
	w.forkTop = i + 1
	ra := f.fn(f, w, a)
	w.forkTop = i
	if i >= w.published {
		// Not published: the slot is ours again. It was pushed at used <
		// len(cur) without a chunk change, and everything pushed since
		// was popped, so popping is one decrement (forkSlab.pop moves
		// back a chunk only when used reaches 0 with curIndex > 0, which
		// a push at used = 0 implies cannot happen: curIndex > 0 keeps
		// used >= 1).
		slab.used = used
		return ra, f.fn(f, w, b)
	}
	return ra, f.joinPublished(w, slab, slot, i)
}

// joinSlow is Join when the fast path's guard fails.
//
//go:noinline
func (f *Fork[A, R]) joinSlow(w *Worker, a, b A) (R, R) {
	if f.fn == nil {
		panic(errZeroFork)
	}
	if f.wordShape != 0 {
		w.growForks()
		i := w.forkTop
		f.pushWord(&w.forks[i], b)
		w.forkTop = i + 1
		if w.asked() {
			w.answerRequest() // may publish this very fork
		}
		ra := f.fn(f, w, a)
		w.forkTop = i
		if i >= w.published {
			return ra, f.fn(f, w, b)
		}
		return ra, f.joinPublishedWord(w, i)
	}
	slab, slot := f.pushSlot(w, b)
	ra := f.fn(f, w, a)
	w.forkTop--
	i := w.forkTop
	if i >= w.published {
		slab.pop()
		return ra, f.fn(f, w, b)
	}
	return ra, f.joinPublished(w, slab, slot, i)
}

// pushSlot forks fn(w, a) through a slot of the worker's slab: a takes
// the next slot, which goes on the private stack, and a thief's request
// standing now publishes it.
func (f *Fork[A, R]) pushSlot(w *Worker, a A) (*forkSlab[A, R], *forkSlot[A, R]) {
	slab := slabOf[A, R](w, f.slabID)
	slot := slab.push()
	if slot.fork != f { // slots are shared by the Forks of one (A, R)
		slot.fork = f
		slot.hdr.exec = f.exec
	}
	slot.arg = a
	w.pushFork(&slot.hdr)
	if w.asked() {
		w.answerRequest()
	}
	return slab, slot
}

// joinPublishedWord joins a word fork (entry i, just popped) that was
// published: like joinPublished, then the slot goes back to the free list.
//
//go:noinline
func (f *Fork[A, R]) joinPublishedWord(w *Worker, i int) R {
	h := w.forks[i].hdr
	slot := (*forkSlot[A, R])(taskPointer(h))
	var rb R
	if w.reclaim(h, i) {
		rb = f.fn(f, w, slot.arg)
	} else {
		rb = slot.res
	}
	slabOf[A, R](w, f.slabID).giveFree(slot)
	return rb
}

// joinPublished joins a fork whose slot was published: it takes it back
// from the deque and runs it, or waits for the thief that has it.
//
//go:noinline
func (f *Fork[A, R]) joinPublished(w *Worker, slab *forkSlab[A, R], slot *forkSlot[A, R], i int) R {
	var rb R
	if w.reclaim(&slot.hdr, i) {
		rb = f.fn(f, w, slot.arg)
	} else {
		rb = slot.res
	}
	// The slot keeps its argument until it is reused: like a stack frame,
	// it retains at most one value per level of nesting.
	slab.pop()
	return rb
}

const (
	errZeroFork      = "forkjoin: use of a Fork not made by NewFork (a nil *Fork or a zero Fork value)"
	errNilForkJoin   = "forkjoin: Fork.Join on a nil *Fork (make a Fork with NewFork)"
	errNilWorkerJoin = "forkjoin: Fork.Join with a nil *Worker (pass the Worker of the task that forks)"
)

// Join runs a and b, possibly in parallel, and returns when both are done.
// a runs on the calling goroutine; b may be taken by another participant.
// A panic in either is re-raised by Join and cancels the run.
//
// Join is the convenient form, for coarse work: each call passes two
// closures, which Go allocates on the heap when they capture variables.
// Forking at every node of a tree-sum, it costs tens of times the
// sequential recursion and allocates per fork (BenchmarkTreeSum's join-p1
// beside seq: go test -bench 'TreeSum/depth20/(seq|join-p1)$' -benchmem
// ./forkjoin). For fine-grained recursion use a Fork (Fork.Join, or Fork.Start and
// Future.Join), which allocates nothing and costs a few ns per fork.
func Join(w *Worker, a, b func(w *Worker)) {
	if a == nil || b == nil || w == nil {
		joinMisuse(w)
	}
	w.checkActive()
	joinFork.Join(w, a, b)
}

// joinMisuse panics for a Join given a nil function or a nil Worker.
func joinMisuse(w *Worker) {
	if w == nil {
		panic("forkjoin: Join with a nil *Worker (pass the Worker of the task that calls Join)")
	}
	panic("forkjoin: Join with a nil function")
}

var joinFork = NewFork(func(_ *Fork[func(w *Worker), struct{}], w *Worker, fn func(w *Worker)) struct{} {
	fn(w)
	return struct{}{}
})

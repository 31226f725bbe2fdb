package forkjoin

// The typed fork.
//
// A Fork[A, R] wraps a function func(*Worker, A) R. Forking it costs no
// allocation and no atomic operation: the argument is written into a slot
// of a per-worker slab, a pointer to the slot's header is pushed on the
// worker's private stack, and the join pops it back and calls the function
// directly — unless the slot was published meanwhile because a thief asked
// (see scheduler.go), in which case the join takes it back from the deque
// or, if a thief has it, helps until the thief has written the result into
// the slot.
//
// Word forks. When A is one machine word (a pointer, a map, a channel, a
// function, or a number of at most 8 bytes), the argument does not even go
// into a slot: the fork writes it into its entry on the private stack,
// beside a pointer to the Fork's wordFork, and takes a slot (from the
// slab's free list) only if a heartbeat publishes the entry. That is two
// stores per fork where a slot costs a slab lookup, a bump and a store
// more; tree-sum and fib fork on pointers and ints.
//
// Slabs. Each worker keeps one slab per (A, R) pair: a LIFO stack of
// slot{header, arg, result} stored in chunks that are never moved or freed,
// so a pointer to a slot stays valid for thieves. Slots are reused in LIFO
// order, so steady state allocates nothing. The (A, R) pair gets a small
// integer id when the first Fork of that pair is created; a worker finds
// its slab with one index into a slice, without a type assertion.

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

const slabChunk = 128

type slot[A, R any] struct {
	hdr  task        // first: *task converts back to *slot
	fork *Fork[A, R] // the Fork whose exec is in hdr.exec
	arg  A
	res  R
}

type slab[A, R any] struct {
	cur    []slot[A, R] // chunks[ci]
	off    int          // slots in use in cur
	ci     int
	chunks [][]slot[A, R]
	owner  *Worker
	// free holds the slots of published word forks, which are taken and
	// given back in publication and join order, not LIFO.
	free []*slot[A, R]
}

// takeFree returns a slot for a word fork being published.
func (s *slab[A, R]) takeFree() *slot[A, R] {
	if n := len(s.free); n > 0 {
		sl := s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
		return sl
	}
	sl := new(slot[A, R])
	sl.hdr.owner = s.owner
	return sl
}

// giveFree takes back a published word fork's slot once its join is over.
func (s *slab[A, R]) giveFree(sl *slot[A, R]) {
	var zero slot[A, R]
	sl.arg, sl.res = zero.arg, zero.res
	s.free = append(s.free, sl)
}

func (s *slab[A, R]) push() *slot[A, R] {
	if s.off == len(s.cur) {
		s.nextChunk()
	}
	sl := &s.cur[s.off]
	s.off++
	return sl
}

func (s *slab[A, R]) pop() {
	s.off--
	if s.off == 0 && s.ci > 0 {
		s.ci--
		s.cur = s.chunks[s.ci]
		s.off = len(s.cur)
	}
}

func (s *slab[A, R]) nextChunk() {
	if s.cur != nil {
		s.ci++
	}
	if s.ci == len(s.chunks) {
		c := make([]slot[A, R], slabChunk)
		for i := range c {
			c[i].hdr.owner = s.owner
		}
		s.chunks = append(s.chunks, c)
	}
	s.cur = s.chunks[s.ci]
	s.off = 0
}

// reset frees every slot and clears the arguments and results they hold.
func (s *slab[A, R]) reset() {
	var zero slot[A, R]
	for _, c := range s.chunks {
		for i := range c {
			c[i].arg, c[i].res, c[i].fork = zero.arg, zero.res, nil
			c[i].hdr.exec = nil
		}
	}
	s.ci, s.off, s.cur = 0, 0, nil
	clear(s.free) // slots of abandoned publications are simply dropped
	s.free = s.free[:0]
}

// dropUsed clears the slots used since the last dropUsed or reset: their
// arguments and results, and their Fork, which marks a slot as used. Slots
// are taken in order from the first, so the used ones are a prefix of the
// chunks, and the first slot without a Fork ends it. Called only where no
// frame holds a slot (see Worker.dropStale).
func (s *slab[A, R]) dropUsed() {
	var zero slot[A, R]
	for _, c := range s.chunks {
		for i := range c {
			if c[i].fork == nil {
				return
			}
			c[i].arg, c[i].res, c[i].fork = zero.arg, zero.res, nil
			c[i].hdr.exec, c[i].hdr.run = nil, nil
		}
	}
}

// slabResetter is what a worker needs of its slabs of every (A, R): reset
// after a panic, dropUsed after a run.
type slabResetter interface {
	reset()
	dropUsed()
}

// slab ids: one per (A, R) pair, bounded by the number of pairs a program
// uses, so creating Forks freely does not grow the workers' slab tables.
var (
	slabIDs   sync.Map // reflect.Type of slot[A, R] -> int
	slabIDsMu sync.Mutex
	slabCount = 1 // 0 is no slab's: a zero Fork's sid finds none
)

func slabIDFor[A, R any]() int {
	key := reflect.TypeFor[slot[A, R]]()
	if id, ok := slabIDs.Load(key); ok {
		return id.(int)
	}
	slabIDsMu.Lock()
	defer slabIDsMu.Unlock()
	if id, ok := slabIDs.Load(key); ok {
		return id.(int)
	}
	id := slabCount
	slabCount++
	slabIDs.Store(key, id)
	return id
}

// slabOf returns w's slab for (A, R), given its id.
func slabOf[A, R any](w *Worker, id int) *slab[A, R] {
	if id < len(w.slabs) {
		if p := w.slabs[id]; p != nil {
			return (*slab[A, R])(p)
		}
	}
	return newSlab[A, R](w, id)
}

func newSlab[A, R any](w *Worker, id int) *slab[A, R] {
	for len(w.slabs) <= id {
		w.slabs = append(w.slabs, nil)
	}
	s := &slab[A, R]{owner: w}
	w.slabs[id] = unsafe.Pointer(s)
	w.resetters = append(w.resetters, s)
	return s
}

// dropStale drops what the worker's private structures still hold of work
// that is over, so that data a run used becomes garbage when the run
// returns, not when the same memory happens to be used again: the fork
// entries above the stack's top (a Future fork's entry keeps its pointer
// argument, typed), the slots its slabs used, and the taken slots of its
// queues. Entries are written in order from the first, so the stale ones
// are a prefix, ended by the first empty entry. The cost is the depth of
// the forks, the slots used, and the size of the rings of the queues
// pushed to since their last clearing. Called by the owner at its
// top level (sp == 0, no frame holding a slot): at the end of a caller's
// Run, and when a pool worker leaves the scheduler.
func (w *Worker) dropStale() {
	for i := range w.forks {
		e := &w.forks[i]
		if e.word == 0 && e.hdr == nil && e.p == nil {
			break
		}
		*e = forkEntry{}
	}
	for _, s := range w.resetters {
		s.dropUsed()
	}
	w.dq.dropTaken()
	for _, q := range w.pq {
		q.dropTaken()
	}
}

// resetSlabs frees every slot of every slab: called only where no frame of
// this worker holds a slot (its top level), after a panic left some behind.
func (w *Worker) resetSlabs() {
	for _, s := range w.resetters {
		s.reset()
	}
	clear(w.forks[:w.sp])
	w.sp, w.published, w.dirty = 0, 0, false
}

// Fork is a function of the shape func(f *Fork[A, R], w *Worker, arg A) R
// prepared for forking: Join runs two calls of it in parallel, Fork and
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
// NewFork allocates and looks up its (A, R) pair (about a microsecond):
// made once per run it is invisible next to the run, made per call of a
// small function it is not.
//
// A Fork must not be copied: forks in flight point into it (go vet's
// copylocks check reports copies).
type Fork[A, R any] struct {
	_  noCopy
	fn func(f *Fork[A, R], w *Worker, arg A) R
	// Future forks (Fork.Fork, Future.Join): the slow paths, passed as
	// arguments to forkFuture and joinFuture (see there), and the two
	// words the fast path needs.
	forkSlowFn func(w *Worker, a A) Future[A, R]
	joinSlowFn func(f *Fork[A, R], w *Worker, a A) R
	fastMask   uintptr // ^0 if A is pointer-shaped (Fork.Fork has a fast path), else 0
	refBits    uintptr // &ref's bits: the word of a Future fork's entry

	sid  int
	exec func(w *Worker, h *task)
	kind uint8    // wordPointer or wordScalar for a word fork, else 0
	word wordFork // publishes an entry whose argument is in arg, as bits
	ref  wordFork // publishes an entry whose argument is in p, typed
}

// forkEntry is one pending fork on a worker's private stack. A word fork
// keeps its argument in the entry itself, with word set: as bits in arg
// (Join, and Future forks of a scalar), or as a typed pointer in p
// (Future forks of a pointer); hdr is set only once a heartbeat published
// it. Any other fork keeps its argument in a slab slot from the start: hdr
// is the slot's header and word is 0. Entries above sp are stale and
// ignored; a stale p keeps its object alive until the entry is reused or
// the worker's top level clears it (dropStale).
//
// Join stores its argument as bits even when A is a pointer (a pointer,
// map, channel, function or unsafe.Pointer), so that a fork stores it
// without a write barrier. That hides no pointer from the collector: a
// Join's entry is read only while that Join runs (i < sp), and the Join
// keeps its argument b live in its own frame until it returns (it still
// needs it to run fn(w, b)); and b points to the heap, never to a stack
// that could move, because Join passes it to a function value, which
// makes it escape. publish turns the bits back into an A and stores that
// in a slot, a typed field, before anything else may hold it.
//
// A Future fork cannot rely on a frame in this way: a Future dropped
// without Join (a bug the core reports, but only at the next join or at
// the end of the task) leaves an entry that a heartbeat may publish after
// the only other reference to its argument is gone. So a Future fork of a
// pointer stores it in p, typed, where the collector sees it.
type forkEntry struct {
	word uintptr        // a *wordFork, or 0; see wordOf
	p    unsafe.Pointer // a Future fork's pointer argument
	arg  uintptr        // a Join's or a scalar Future fork's argument, as bits
	hdr  *task          // 32 bytes in all: an index is a shift
}

// wordOf returns the wordFork of a word fork's entry, nil for a slab fork.
//
// word holds the pointer's bits, for the same reason as arg: a fork then
// stores no pointer, and no store of its fast path checks for the write
// barrier. The collector loses nothing: the entry is read only while the
// Join that pushed it runs, and that Join keeps its Fork f live (it calls
// f.fn after the forked call) and on the heap (NewFork returns it from a
// function that is never inlined), so &f.word neither dies nor moves.
func (e *forkEntry) wordOf() *wordFork {
	return *(**wordFork)(unsafe.Pointer(&e.word))
}

// noCopy makes go vet report a copied Fork: a copy on the stack would
// leave the entries of its forks pointing at memory that moves.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// wordPtr returns the bits a word fork of f stores in its entry.
func wordPtr(wf *wordFork) uintptr { return uintptr(unsafe.Pointer(wf)) }

// wordFork is how a word fork's entry is published: publish moves the
// argument into a slot, records the slot in the entry and returns it.
type wordFork struct {
	publish func(w *Worker, e *forkEntry) *task
}

const (
	wordPointer = 1 + iota
	wordScalar
)

// wordKind tells whether A fits in one machine word, and how.
func wordKind[A any]() uint8 {
	t := reflect.TypeFor[A]()
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return wordPointer
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64:
		if t.Size() <= unsafe.Sizeof(uintptr(0)) {
			return wordScalar
		}
	}
	return 0
}

// wordBits returns the bits of a word fork's argument: A is at most one
// word (wordKind checked its shape), so it fits in u.
func wordBits[A any](b A) uintptr {
	var u uintptr
	*(*A)(unsafe.Pointer(&u)) = b
	return u
}

// wordArg reads back the argument a fork wrote into e.arg.
func wordArg[A any](e *forkEntry) A {
	return *(*A)(unsafe.Pointer(&e.arg))
}

// NewFork prepares fn for forking: every call the Fork makes is
// fn(f, w, arg), with f the Fork itself. fn must not be nil.
//
// It is never inlined, so the Fork it returns is always on the heap; a
// fork's entry relies on that (see forkEntry.wordOf).
//
//go:noinline
func NewFork[A, R any](fn func(f *Fork[A, R], w *Worker, arg A) R) *Fork[A, R] {
	if fn == nil {
		panic("forkjoin: NewFork with a nil function")
	}
	f := &Fork[A, R]{fn: fn, sid: slabIDFor[A, R](), kind: wordKind[A]()}
	f.exec = func(w *Worker, h *task) {
		sl := (*slot[A, R])(taskPointer(h))
		sl.res = f.fn(f, w, sl.arg)
	}
	f.word.publish = func(w *Worker, e *forkEntry) *task {
		return f.publishWord(w, e, wordArg[A](e))
	}
	f.ref.publish = func(w *Worker, e *forkEntry) *task {
		return f.publishWord(w, e, *(*A)(unsafe.Pointer(&e.p)))
	}
	f.forkSlowFn = f.forkSlow
	f.joinSlowFn = (*Fork[A, R]).joinFutureSlow
	if f.kind == wordPointer {
		f.fastMask = ^uintptr(0)
	}
	f.refBits = wordPtr(&f.ref)
	return f
}

// publishWord moves a word fork's argument a into a slot, for a thief:
// the entry e records the slot.
func (f *Fork[A, R]) publishWord(w *Worker, e *forkEntry, a A) *task {
	sl := slabOf[A, R](w, f.sid).takeFree()
	sl.fork = f
	sl.hdr.exec = f.exec
	sl.arg = a
	e.hdr = &sl.hdr
	return &sl.hdr
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
// A Future forked by fn(w, a) must be joined before fn(w, a) returns: Join
// does not check it (the check would cost its fast path), and a Future
// left unjoined there is dropped, its call never made.
func (f *Fork[A, R]) Join(w *Worker, a, b A) (R, R) {
	// The fast path of a word fork, written out by hand: it runs once per
	// fork and every instruction shows. One guard for everything unusual
	// (a full fork stack, a heartbeat due: see Worker.limit), two stores,
	// the call, the pop.
	// Everything else lives in functions of their own, so that this frame
	// stays as small as the fast path needs.
	if f.kind == 0 {
		return f.joinSlab(w, a, b)
	}
	forks := w.forks
	i := w.sp
	if uint(i) >= uint(len(forks)) || w.asked() {
		return f.joinSlow(w, a, b)
	}
	e := &forks[i]
	e.word = wordPtr(&f.word)
	e.arg = wordBits(b)
	w.sp = i + 1
	ra := f.fn(f, w, a)
	w.sp = i
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
	var s *slab[A, R]
	if f.sid < len(w.slabs) {
		s = (*slab[A, R])(w.slabs[f.sid])
	}
	i := w.sp
	if s == nil || s.off >= len(s.cur) || uintptr(i) >= atomic.LoadUintptr(&w.limit) {
		return f.joinSlow(w, a, b)
	}
	off := s.off
	sl := &s.cur[off]
	s.off = off + 1
	if sl.fork != f { // slots are shared by the Forks of one (A, R)
		sl.fork = f
		sl.hdr.exec = f.exec
	}
	sl.arg = b
	e := &w.forks[i]
	e.hdr, e.word = &sl.hdr, 0
	w.sp = i + 1
	ra := f.fn(f, w, a)
	w.sp = i
	if i >= w.published {
		// Not published: the slot is ours again. It was pushed at off <
		// len(cur) without a chunk change, and everything pushed since
		// was popped, so popping is one decrement (slab.pop moves back a
		// chunk only when off reaches 0 with ci > 0, which a push at
		// off = 0 implies cannot happen: ci > 0 keeps off >= 1).
		s.off = off
		return ra, f.fn(f, w, b)
	}
	return ra, f.joinPublished(w, s, sl, i)
}

// joinSlow is Join when the fast path's guard fails.
//
//go:noinline
func (f *Fork[A, R]) joinSlow(w *Worker, a, b A) (R, R) {
	if f.fn == nil {
		panic(errZeroFork)
	}
	if f.kind != 0 {
		w.growForks()
		i := w.sp
		e := &w.forks[i]
		e.word = wordPtr(&f.word)
		e.arg = wordBits(b)
		w.sp = i + 1
		if w.asked() {
			w.heartbeat() // may publish this very fork
		}
		ra := f.fn(f, w, a)
		w.sp = i
		if i >= w.published {
			return ra, f.fn(f, w, b)
		}
		return ra, f.joinPublishedWord(w, i)
	}
	s, sl := f.pushSlot(w, b)
	ra := f.fn(f, w, a)
	w.sp--
	i := w.sp
	if i >= w.published {
		s.pop()
		return ra, f.fn(f, w, b)
	}
	return ra, f.joinPublished(w, s, sl, i)
}

// pushSlot forks fn(w, a) through a slot of the worker's slab: a takes
// the next slot, which goes on the private stack, and a heartbeat due now
// may publish it.
func (f *Fork[A, R]) pushSlot(w *Worker, a A) (*slab[A, R], *slot[A, R]) {
	s := slabOf[A, R](w, f.sid)
	sl := s.push()
	if sl.fork != f { // slots are shared by the Forks of one (A, R)
		sl.fork = f
		sl.hdr.exec = f.exec
	}
	sl.arg = a
	w.pushFork(&sl.hdr)
	if w.asked() {
		w.heartbeat()
	}
	return s, sl
}

// joinPublishedWord joins a word fork (entry i, just popped) that was
// published: like joinPublished, then the slot goes back to the free list.
//
//go:noinline
func (f *Fork[A, R]) joinPublishedWord(w *Worker, i int) R {
	h := w.forks[i].hdr
	sl := (*slot[A, R])(taskPointer(h))
	var rb R
	if w.reclaim(h, i) {
		rb = f.fn(f, w, sl.arg)
	} else {
		rb = sl.res
	}
	slabOf[A, R](w, f.sid).giveFree(sl)
	return rb
}

// joinPublished joins a fork whose slot was published: it takes it back
// from the deque and runs it, or waits for the thief that has it.
//
//go:noinline
func (f *Fork[A, R]) joinPublished(w *Worker, s *slab[A, R], sl *slot[A, R], i int) R {
	var rb R
	if w.reclaim(&sl.hdr, i) {
		rb = f.fn(f, w, sl.arg)
	} else {
		rb = sl.res
	}
	// The slot keeps its argument until it is reused: like a stack frame,
	// it retains at most one value per level of nesting.
	s.pop()
	return rb
}

// Future is a forked call of a Fork, to be joined with Future.Join. Futures
// of one worker must be joined in the reverse order of their forks (the
// last forked first), like nested calls, and each exactly once. Every
// Future must be joined before the task that forked it returns; one that
// is not fails the run with a panic saying so. A Join out of order, or a
// second Join, panics too, at the latest when the forks it mixed up are
// joined.
//
// With a Future the forked function's own recursion can call itself
// directly, and for a pointer argument (a tree node, say) Fork and Join
// are small enough for the compiler to inline into it: this is the
// cheapest fork forkjoin has.
//
//	func sum(f *forkjoin.Fork[*Node, int64], w *forkjoin.Worker, n *Node) int64 {
//		if n == nil {
//			return 0
//		}
//		right := f.Fork(w, n.Right) // another worker may take it
//		left := sum(f, w, n.Left)
//		return n.Value + left + right.Join(w)
//	}
type Future[A, R any] struct {
	f *Fork[A, R]
	// top is sp just after the fork pushed its entry (index top-1), or,
	// for a slab fork, ^index: negative, so never equal to sp, so such a
	// Future always takes the slow join.
	top int
	arg A // a word fork's argument (zero for a slab fork, whose slot has it)
}

// Fork makes fn(w, a) available to other participants and returns at once;
// join the result with Future.Join on the same worker. Allocates nothing.
func (f *Fork[A, R]) Fork(w *Worker, a A) Future[A, R] {
	return forkFuture(f.forkSlowFn, f, w, a)
}

// forkFuture is Fork's fast path, for a pointer-shaped A (fastMask):
// one entry stored, as one composite literal. It is written to fit Go's
// inlining budget, so that Fork inlines into the user's function: the
// slow path is a parameter (the inliner charges a call through a
// parameter less than one through a field), and one load and one compare
// test for everything unusual (no room, a request, a non-pointer A; see
// Worker.limit and Fork.fastMask). The argument goes into p, typed (see
// forkEntry). `go build -gcflags=-m=2 ./forkjoin` reports the costs;
// TestFutureForkInlines checks that Fork and Join stay inlinable.
func forkFuture[A, R any](slow func(w *Worker, a A) Future[A, R], f *Fork[A, R], w *Worker, a A) Future[A, R] {
	i := w.sp
	if uintptr(i) >= atomic.LoadUintptr(&w.limit)&f.fastMask {
		return slow(w, a)
	}
	// A is pointer-shaped here (fastMask is 0 otherwise), so its word is
	// a pointer.
	w.forks[i] = forkEntry{word: f.refBits, p: *(*unsafe.Pointer)(unsafe.Pointer(&a))}
	i++
	w.sp = i
	return Future[A, R]{f, i, a}
}

// forkSlow is Fork when forkFuture's test fails: a full fork stack, a
// request to serve, a scalar word fork (no fast path: p could not hold
// it), or a slab fork.
func (f *Fork[A, R]) forkSlow(w *Worker, a A) Future[A, R] {
	if f.fn == nil {
		panic(errZeroFork)
	}
	if w.asked() {
		// Before anything is pushed: a released handle is asked for ever,
		// and a fork it pushed could line up with a kept Future's top.
		w.checkActive()
	}
	if f.kind == 0 {
		f.pushSlot(w, a)
		return Future[A, R]{f: f, top: ^(w.sp - 1)}
	}
	w.growForks()
	i := w.sp
	if f.kind == wordPointer {
		w.forks[i] = forkEntry{word: f.refBits, p: *(*unsafe.Pointer)(unsafe.Pointer(&a))}
	} else {
		w.forks[i] = forkEntry{word: wordPtr(&f.word), arg: wordBits(a)}
	}
	w.sp = i + 1
	if w.asked() {
		w.heartbeat() // may publish this very fork
	}
	return Future[A, R]{f, i + 1, a}
}

// Join returns the forked call's result, running it here if no other
// participant took it, or helping until the one that did has finished.
func (fu Future[A, R]) Join(w *Worker) R {
	if fu.f == nil {
		panic("forkjoin: Join of a zero Future (one that no Fork returned)")
	}
	return joinFuture(fu.f.joinSlowFn, fu.f, w, fu.top, fu.arg)
}

// joinFuture is Join's fast path: the fork is the newest entry and was
// not published, so it is popped and run here. Like forkFuture it fits
// the inlining budget by taking its slow path as a parameter and making
// one call, to whichever function the test picked. The slow path finds
// the Future's top in w.joinTop.
func joinFuture[A, R any](fn func(f *Fork[A, R], w *Worker, a A) R, f *Fork[A, R], w *Worker, top int, a A) R {
	if top == w.sp && top > w.published {
		w.sp = top - 1
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
	if top != w.sp || i < 0 || !f.holds(&w.forks[i], a) {
		w.checkActive() // a stale handle is the likelier mistake
		panic(futureMisuse(top < w.sp))
	}
	w.sp = i
	if i >= w.published {
		return f.fn(f, w, a) // not published after all
	}
	return f.joinPublishedWord(w, i)
}

const errZeroFork = "forkjoin: use of a Fork not made by NewFork (a nil *Fork or a zero Fork value)"

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
	if f.kind == wordPointer {
		return e.word == f.refBits && e.p == *(*unsafe.Pointer)(unsafe.Pointer(&a))
	}
	return e.word == wordPtr(&f.word) && e.arg == wordBits(a)
}

// joinSlabFuture joins a slab fork's Future, whose entry is at index i.
func (f *Fork[A, R]) joinSlabFuture(w *Worker, i int) R {
	if i != w.sp-1 || w.forks[i].word != 0 || w.forks[i].hdr == nil ||
		(*slot[A, R])(taskPointer(w.forks[i].hdr)).fork != f {
		w.checkActive()
		panic(futureMisuse(i < w.sp-1))
	}
	h := w.forks[i].hdr
	sl := (*slot[A, R])(taskPointer(h))
	w.sp = i
	w.forks[i] = forkEntry{}
	var r R
	if i >= w.published {
		if w.asked() {
			w.heartbeat()
		}
		r = f.fn(f, w, sl.arg)
	} else if w.reclaim(h, i) {
		r = f.fn(f, w, sl.arg)
	} else {
		r = sl.res
	}
	slabOf[A, R](w, f.sid).pop()
	return r
}

// Join runs a and b, possibly in parallel, and returns when both are done.
// a runs on the calling goroutine; b may be taken by another participant.
// A panic in either is re-raised by Join and cancels the run.
//
// Join is the convenient form, for coarse work: each call passes two
// closures, which Go allocates on the heap when they capture variables.
// Forking at every node of a tree-sum, it costs about 35 times the
// sequential recursion (105–112 ns a node against 2.9–3.1 at parallelism 1
// on a shared 2-core machine) and 3 allocations (64 bytes) per fork:
// go test -bench 'TreeSum/depth20/(seq|join-p1)$' -benchmem ./forkjoin.
// For fine-grained recursion use a Fork (Fork.Join, or Fork.Fork and
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

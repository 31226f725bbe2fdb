package walk

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/forkjoin"
)

// Ops are a fold's callbacks and the children function. An Ops value
// serves one call of Run.
type Ops[N, H, R any] struct {
	Init       func(n N) H
	Accumulate func(h *H, child R)
	Finalize   func(h *H) R
	Children   func(n N, yield func(child N) bool)

	// pending counts the pubs of this fold not yet over: published and
	// neither taken back by their owner nor finished by a thief.
	pending  atomic.Int64
	draining atomic.Bool
	drained  forkjoin.Completion
}

// Run folds the tree below root on w's run, sharing it with the other
// participants of the pool, and returns the root's result. Whether it
// returns or panics, no pub of the fold is still running when it does.
func Run[N, H, R any](w *forkjoin.Worker, ops *Ops[N, H, R], root N) R {
	defer ops.drain(w)
	return walk(w, ops, root)
}

// pubOver counts one pub out.
func (ops *Ops[N, H, R]) pubOver() {
	if ops.pending.Add(-1) == 0 && ops.draining.Load() {
		ops.drained.Complete()
	}
}

// drain waits, helping, until every pub of the fold is over. On the normal
// path there is none left (each frame waited for its own); after a panic
// or a cancellation, the thieves' walks unwind quickly.
func (ops *Ops[N, H, R]) drain(w *forkjoin.Worker) {
	if ops.pending.Load() == 0 {
		return
	}
	ops.draining.Store(true)
	if ops.pending.Load() == 0 {
		return
	}
	w.Wait(&ops.drained)
}

// pub is a published child: a task a thief may run, or its owner take back.
type pub[N, H, R any] struct {
	task forkjoin.Task // first field: *forkjoin.Task converts back to *pub
	ops  *Ops[N, H, R]
	node N
	res  R
	// A range pub carries several consecutive children instead of one
	// (nodes, with a result each); see offer.
	nodes   []N
	results []R
	claim   atomic.Bool // set once, by whoever walks the child
	failed  atomic.Bool
	done    forkjoin.Completion
	next    *pub[N, H, R]
}

type frame[N, H, R any] struct {
	h      H
	base   int           // start of this frame's children in the buffer
	lo, hi int           // unvisited own children: kids[lo:hi]
	pubs   *pub[N, H, R] // published children, in child order
	ranged bool          // a range pub holds some children in place
	// held: the last of pubs, made by endStream, is not pushed yet. It is
	// unvisited work after the frame's own range (see offer).
	held bool
}

type state[N, H, R any] struct {
	ops    *Ops[N, H, R]
	w      *forkjoin.Worker // the participant walking with this state
	kids   []N
	frames []frame[N, H, R]
	low    int // frames below low have no unvisited child
	yield  func(N) bool
	ticks  uint32
	leaf   H // the heap of the leaf being finalised

	// While a node's children are being listed (see enter and stream):
	// listing is the index in kids of its first child, unshared that of
	// the first child not published yet (the first child is never), and
	// streamed / lastStreamed the list of those published.
	listing      int
	unshared     int
	streamed     *pub[N, H, R]
	lastStreamed *pub[N, H, R]
}

// ctxEvery is how many nodes a walk visits between two looks at its run's
// context. The core learns of a done context from a goroutine that may wait
// for a free processor while every worker is busy; looking every few
// hundred nodes bounds the delay to a few microseconds for ~20 ns.
const ctxEvery = 256

func walk[N, H, R any](w *forkjoin.Worker, ops *Ops[N, H, R], root N) R {
	st := getState[N, H, R](w, ops)
	r := st.run(w, root) // if it panics, st is dropped: a thief may still use its pubs
	putState(w, st)
	return r
}

// run folds the tree below root with st, whose stacks are empty, and
// leaves them empty.
func (st *state[N, H, R]) run(w *forkjoin.Worker, root N) (result R) {
	ops := st.ops
	ok := false
	defer func() {
		if !ok {
			v := recover()
			w.RecordPanic(v)
			st.abandon(w)
			panic(v)
		}
	}()
	if r, leaf := st.enter(root); leaf {
		ok = true
		return r
	}
	for {
		if w.WorkRequested() {
			st.offer(w)
		}
		if st.ticks++; st.ticks%ctxEvery == 0 {
			if err := w.Context().Err(); err != nil {
				w.Abort(err)
			}
		}
		top := &st.frames[len(st.frames)-1]
		if top.lo < top.hi {
			c := st.kids[top.lo]
			var zero N
			st.kids[top.lo] = zero // the buffer keeps no entered child reachable
			top.lo++
			if r, leaf := st.enter(c); leaf {
				ops.Accumulate(&top.h, r) // no frame was pushed: top is valid
			}
			continue
		}
		if p := top.pubs; p != nil {
			top.pubs = p.next
			if p.nodes != nil { // a range of children
				if p.results == nil {
					// The held tail of a streamed listing, never pushed
					// (endStream): its children are the last of the
					// frame's segment, so they become its own range again.
					top.held = false
					p.claim.Store(true)
					ops.pubOver()
					top.hi = len(st.kids)
					top.lo = top.hi - len(p.nodes)
					continue
				}
				if p.claim.CompareAndSwap(false, true) {
					ops.pubOver()
					p.runRange(w) // nobody took it: fold the range here
				} else {
					w.Wait(&p.done)
					if p.failed.Load() {
						w.Abort(nil)
					}
				}
				for i, r := range p.results {
					ops.Accumulate(&top.h, r)
					p.results[i] = *new(R)
				}
				continue
			}
			if p.claim.CompareAndSwap(false, true) {
				ops.pubOver()
				// Nobody took it: an own child after all.
				if r, leaf := st.enter(p.node); leaf {
					ops.Accumulate(&top.h, r)
				}
				continue
			}
			w.Wait(&p.done)
			if p.failed.Load() {
				w.Abort(nil) // the thief's failure is recorded by its boundary
			}
			ops.Accumulate(&top.h, p.res)
			continue
		}
		r := ops.Finalize(&top.h)
		n := len(st.frames) - 1
		if top.ranged {
			// A range pub read its children in place (its runner may be
			// another goroutine, so only the owner clears them, now).
			clear(st.kids[top.base:])
		}
		st.kids = st.kids[:top.base]    // other slots were cleared when taken
		st.frames[n] = frame[N, H, R]{} // release the heap now
		st.frames = st.frames[:n]
		if st.low > n {
			st.low = n
		}
		if n == 0 {
			ok = true
			return r
		}
		ops.Accumulate(&st.frames[n-1].h, r)
	}
}

// States are reused: each participant keeps a stack of free states per
// type (Worker.Local), so that a walk's buffers grow once and then stay —
// a deep chain costs its frames once per participant, not once per run. A
// walk nested in another on the same participant (a range it took back, a
// task it helps with while it waits) takes another state from the stack.
// Buffers above maxKept entries are not kept.
var stateKeys sync.Map // reflect.Type of state[N, H, R] -> *stateKey

type stateKey struct{ _ byte }

type stateStack[N, H, R any] struct{ free []*state[N, H, R] }

const maxKept = 1 << 22

func keyFor[N, H, R any]() *stateKey {
	t := reflect.TypeFor[state[N, H, R]]()
	if k, ok := stateKeys.Load(t); ok {
		return k.(*stateKey)
	}
	k, _ := stateKeys.LoadOrStore(t, new(stateKey))
	return k.(*stateKey)
}

func stackOf[N, H, R any](w *forkjoin.Worker) *stateStack[N, H, R] {
	return w.Local(keyFor[N, H, R](), func() any { return new(stateStack[N, H, R]) }).(*stateStack[N, H, R])
}

func getState[N, H, R any](w *forkjoin.Worker, ops *Ops[N, H, R]) *state[N, H, R] {
	ss := stackOf[N, H, R](w)
	var st *state[N, H, R]
	if n := len(ss.free); n > 0 {
		st = ss.free[n-1]
		ss.free[n-1] = nil
		ss.free = ss.free[:n-1]
	} else {
		st = &state[N, H, R]{}
		st.yield = func(c N) bool {
			st.kids = append(st.kids, c)
			if (len(st.kids)-st.listing)%streamEvery == 0 && st.w.WorkRequested() {
				st.stream()
			}
			return true
		}
	}
	st.ops = ops
	st.w = w
	return st
}

// putState gives back a state whose walk finished normally: every frame
// was popped (and zeroed) and every child reference cleared.
func putState[N, H, R any](w *forkjoin.Worker, st *state[N, H, R]) {
	if cap(st.frames) > maxKept || cap(st.kids) > maxKept {
		return
	}
	st.ops, st.w = nil, nil
	st.kids = st.kids[:0]
	st.frames = st.frames[:0]
	st.low, st.ticks = 0, 0
	ss := stackOf[N, H, R](w)
	ss.free = append(ss.free, st)
}

// enter starts node n: Init, then its children into the buffer, then a
// frame on top. A leaf gets no frame: it is finalised at once and its
// result returned with leaf true, for the caller to accumulate.
func (st *state[N, H, R]) enter(n N) (r R, leaf bool) {
	h := st.ops.Init(n)
	base := len(st.kids)
	st.listing, st.unshared = base, base+1
	st.ops.Children(n, st.yield)
	if len(st.kids) == base {
		// The heap goes through a field of st: the address of a local
		// passed to Finalize would move every leaf's heap to the heap.
		var zero H
		st.leaf = h
		r = st.ops.Finalize(&st.leaf)
		st.leaf = zero
		return r, true
	}
	f := frame[N, H, R]{h: h, base: base, lo: base, hi: len(st.kids)}
	if st.streamed != nil {
		st.endStream(&f)
	}
	st.frames = append(st.frames, f)
	return r, false
}

// streamEvery is how many children a listing yields between two looks
// for a request for work (see stream). Answering during a listing gives
// the thief a smaller piece than offer would right after it (offer splits
// the whole list), which costs more steals on fast listings; looking every
// eighth child keeps nodes of fewer children out of it (on a bushy tree of
// fast listings the request is answered a few nanoseconds later, by the
// walk's loop) while a slow listing of many children is shared after its
// eighth.
const streamEvery = 8

// stream answers a request for work that arrives while a node's children
// are being listed (the yield function looks every streamEvery children).
// An older frame's unvisited child is the bigger piece of work, so offer
// gets the first chance; if no frame has one, the children listed and not
// yet published (never the first) are published at once, so that a thief
// can start on them while the listing goes on: a slow children function
// (a directory being read) is walked in parallel with its own listing. The
// first child stays with the owner, which walks it once the listing ends.
//
// The children yielded afterwards follow the published ones in child
// order, so they cannot join the frame's own range, which precedes its
// pubs: they go to later pubs (see endStream).
func (st *state[N, H, R]) stream() {
	w := st.w
	if st.offer(w) || len(st.kids) <= st.unshared {
		return
	}
	p := st.share(false)
	if st.lastStreamed == nil {
		st.streamed = p
	} else {
		st.lastStreamed.next = p
	}
	st.lastStreamed = p
	w.Push(&p.task)
}

// share makes a pub of the children listed since the last one, which it
// reads in place: the buffer below its end is not written again until the
// frame is popped (it only grows meanwhile; if it is reallocated, the pub
// keeps reading the old array, whose values are the same). The pub counts
// in pending from now on. A held tail (see endStream) is always a range,
// and gets its results slice only if it is pushed: a range pub with no
// results is a held tail.
func (st *state[N, H, R]) share(held bool) *pub[N, H, R] {
	lo, hi := st.unshared, len(st.kids)
	st.unshared = hi
	var p *pub[N, H, R]
	switch {
	case held: // a range even of one child: results nil marks it held
		p = &pub[N, H, R]{ops: st.ops, nodes: st.kids[lo:hi:hi]}
		p.task.Init(runPub[N, H, R])
	case hi-lo == 1:
		p = &pub[N, H, R]{ops: st.ops, node: st.kids[lo]}
		p.task.Init(runPub[N, H, R])
	default:
		p = newRangePub(st.ops, st.kids[lo:hi:hi], nil)
	}
	st.ops.pending.Add(1)
	return p
}

// endStream sets up the frame f of a node whose listing published some of
// its children: its own range is the first child alone; its pubs are the
// streamed ones, in order, then a tail of the children yielded after the
// last publication. The tail is held, not pushed: it is the frame's last
// unvisited work, offer pushes it if someone asks, and if nobody has by
// the time the owner gets to it, the owner walks it as its own range (see
// run). The pubs read their children in place, so the frame is marked
// ranged: its owner clears them at pop.
func (st *state[N, H, R]) endStream(f *frame[N, H, R]) {
	if len(st.kids) > st.unshared {
		st.lastStreamed.next = st.share(true)
		f.held = true
	}
	f.hi = f.base + 1
	f.pubs = st.streamed
	f.ranged = true
	st.streamed, st.lastStreamed = nil, nil
}

// offer publishes the last unvisited child of the oldest frame that has
// one (for the top frame, only if it has two or more: the next one is
// about to be visited anyway), and reports whether it found one.
func (st *state[N, H, R]) offer(w *forkjoin.Worker) bool {
	top := len(st.frames) - 1
	i := st.low
	for i <= top && st.frames[i].lo >= st.frames[i].hi && !st.frames[i].held {
		i++
	}
	st.low = i
	if i > top {
		return false
	}
	f := &st.frames[i]
	left := f.hi - f.lo
	if f.held {
		left++
	}
	if i == top && left < 2 {
		return false
	}
	if f.held { // the frame's last unvisited work: push it now
		f.held = false
		t := f.pubs
		for t.next != nil {
			t = t.next
		}
		t.results = make([]R, len(t.nodes)) // it is a range now
		w.Push(&t.task)
		return true
	}
	var p *pub[N, H, R]
	if n := f.hi - f.lo; n >= rangeMin {
		// Many children left (a wide node): give away the upper half as
		// one range, which its taker may split again.
		mid := f.lo + n/2
		p = newRangePub(st.ops, st.kids[mid:f.hi:f.hi], nil)
		f.hi = mid
		f.ranged = true
	} else {
		f.hi--
		p = &pub[N, H, R]{ops: st.ops, node: st.kids[f.hi]}
		var zero N
		st.kids[f.hi] = zero
		p.task.Init(runPub[N, H, R])
	}
	st.ops.pending.Add(1)
	// Published children of one frame are taken from the end of its range,
	// so each new one precedes all earlier ones: prepend.
	p.next = f.pubs
	f.pubs = p
	w.Push(&p.task)
	return true
}

// runPub is a pub's task: walk the child on this worker, unless its owner
// took it back first.
func runPub[N, H, R any](w *forkjoin.Worker, t *forkjoin.Task) {
	p := (*pub[N, H, R])(unsafe.Pointer(t))
	if !p.claim.CompareAndSwap(false, true) {
		return // the owner walked it
	}
	ok := false
	defer func() {
		if !ok {
			p.failed.Store(true)
		}
		p.done.Complete()
		p.ops.pubOver()
	}()
	if w.Cancelled() {
		return
	}
	if p.nodes != nil {
		p.runRange(w)
	} else {
		p.res = walk(w, p.ops, p.node)
	}
	ok = true
}

// rangeMin is the number of unvisited children from which offer gives
// away half of them as one range rather than a single child.
const rangeMin = 4

// newRangePub makes a range pub of nodes whose results go to results (a
// new slice if nil).
func newRangePub[N, H, R any](ops *Ops[N, H, R], nodes []N, results []R) *pub[N, H, R] {
	if results == nil {
		results = make([]R, len(nodes))
	}
	p := &pub[N, H, R]{ops: ops, nodes: nodes, results: results}
	p.task.Init(runPub[N, H, R])
	return p
}

// runRange folds each child of a range pub into its result slot, in order,
// with one walk state for all of them. Asked for work meanwhile, it gives
// away the upper half of what is left as a smaller range (whose results
// land in the same slots), and at the end takes back or waits for each.
func (p *pub[N, H, R]) runRange(w *forkjoin.Worker) {
	var subs *pub[N, H, R] // in increasing order of position
	ok := false
	defer func() {
		if !ok { // unwinding: subs nobody took will never run
			w.Cancel(nil)
			for s := subs; s != nil; s = s.next {
				if s.claim.CompareAndSwap(false, true) {
					p.ops.pubOver()
				}
			}
		}
	}()
	st := getState[N, H, R](w, p.ops)
	lo, hi := 0, len(p.nodes)
	for lo < hi {
		if hi-lo >= 2 && w.WorkRequested() {
			mid := lo + (hi-lo)/2
			sp := newRangePub(p.ops, p.nodes[mid:hi:hi], p.results[mid:hi:hi])
			p.ops.pending.Add(1)
			sp.next, subs = subs, sp
			w.Push(&sp.task)
			hi = mid
			continue
		}
		p.results[lo] = st.run(w, p.nodes[lo])
		lo++
	}
	putState(w, st)
	for subs != nil {
		s := subs
		subs = s.next // off the list before it runs: the clean-up must not see it
		if s.claim.CompareAndSwap(false, true) {
			p.ops.pubOver()
			s.runRange(w)
		} else {
			w.Wait(&s.done)
			if s.failed.Load() {
				w.Abort(nil)
			}
		}
	}
	ok = true
}

// abandon runs while a panic (a callback's, or the core's unwinding on
// cancellation) leaves the walk: cancel the run and take back every pub
// nobody took, so that it never runs. It does not wait for the pubs that
// thieves took — waiting here, under frames that helping may have stacked
// on other goroutines, could wait in a circle — Run's drain does, at the
// top, once every walk of the fold has unwound. The state is not reused:
// thieves may still read the children it holds.
func (st *state[N, H, R]) abandon(w *forkjoin.Worker) {
	w.Cancel(nil)
	for p := st.streamed; p != nil; p = p.next { // a listing that did not end
		if p.claim.CompareAndSwap(false, true) {
			st.ops.pubOver()
		}
	}
	st.streamed, st.lastStreamed = nil, nil
	for i := range st.frames {
		for p := st.frames[i].pubs; p != nil; p = p.next {
			if p.claim.CompareAndSwap(false, true) {
				st.ops.pubOver()
			}
		}
		st.frames[i] = frame[N, H, R]{}
	}
}

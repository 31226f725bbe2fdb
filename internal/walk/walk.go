package walk

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
)

// Ops are a fold's callbacks and the children function. An Ops value
// serves one call of Run.
type Ops[N, H, R any] struct {
	Init       func(n N) H
	Accumulate func(h *H, child R)
	Finalize   func(h *H) R
	Children   func(n N, yield func(child N) bool)

	// sched, if not nil, makes the walks deal work without a request
	// (see WithSchedule); Run reads it from the run's context.
	sched Schedule

	// pending counts the pubs of this fold not yet over: published and
	// neither taken back by their owner nor finished by a thief.
	pending  atomic.Int64
	draining atomic.Bool
	drained  core.Completion
}

// Run folds the tree below root on w's run, sharing it with the other
// participants of the pool, and returns the root's result. Whether it
// returns or panics, no pub of the fold is still running when it does.
func Run[N, H, R any](w *forkjoin.Worker, ops *Ops[N, H, R], root N) R {
	ops.sched = scheduleOf(w.Context())
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
	core.Wait(w, &ops.drained)
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
	// first and end: the position of the pub's children in its owner's
	// buffer (kids[first:end]); for the pubs of a frame only.
	first, end int
	claim      atomic.Bool // set once, by whoever walks the child
	failed     atomic.Bool
	done       core.Completion
	next       *pub[N, H, R]
}

type frame[N, H, R any] struct {
	h H
	// Positions in the buffer are 32-bit (pos, see maxKids): a frame of
	// an 8-byte heap takes 40 bytes, which is what a 10^6-deep chain
	// costs per level.
	base   pos // start of this frame's children in the buffer
	lo, hi pos // unstarted own children: kids[lo:hi]
	idx    pos // this node's position in its parent's children (kids); unused for a walk's root
	// pubs: what a frame keeps once it has published some of its children
	// (nil before, and again once all of them are accumulated).
	pubs   *pubs[N, H, R]
	ranged bool // a range pub holds some children in place
}

// pubs is the published part of a frame. A frame's children are, in child
// order: those accumulated; then the behind zone, kids[acc:lo], which holds
// pubs (behind, in order) and the results of own children walked after the
// first of them (res), waiting to be accumulated in order; then the own
// range kids[lo:hi], not started; then the ahead zone, kids[hi:end], all in
// pubs (ahead, in order), made while the node's children were being listed
// (see stream). The owner walks its own range, then turns to the ahead pubs
// one by one: one nobody took (or the held tail) becomes its own range,
// one a thief took moves to behind.
type pubs[N, H, R any] struct {
	acc           int           // the first child not accumulated (while behind != nil)
	behind, btail *pub[N, H, R] // pubs before lo, in order; btail is the last
	ahead         *pub[N, H, R] // pubs from hi on, in order
	held          *pub[N, H, R] // the last of ahead if it is a held tail (see endStream)
	end           int           // the end of the frame's children in kids
	// res holds own results behind a pub, res[i] for the child at
	// position resLo+i (see growRes); resLo <= acc.
	res   []R
	resLo int
}

type state[N, H, R any] struct {
	// The callbacks and Schedule of ops, copied here: one load each on
	// the way to a call instead of two.
	init     func(n N) H
	acc      func(h *H, child R)
	fin      func(h *H) R
	children func(n N, yield func(child N) bool)
	sched    Schedule

	ops    *Ops[N, H, R]
	w      *forkjoin.Worker           // the participant walking with this state
	poll   core.Poll[forkjoin.Worker] // w's: the look for a request at each node
	kids   []N
	frames frameStack[frame[N, H, R]]
	low    int // frames below low have no unstarted child
	yield  func(N) bool
	ticks  uint32
	// dry: a request for work stands that no frame can answer (answer
	// found nothing to deal), so the loop does not look for requests until
	// a frame gets something to deal: a node with two children or more is
	// entered, or an ahead pub becomes a frame's own range again. Looking
	// at a standing request at every node, with nothing to deal, cost a
	// third of a walk down a chain of single children. Invariant: dry
	// implies that offer would find nothing; clearing it is always safe.
	dry  bool // (beside ticks: in the padding, no field moves)
	leaf H    // the heap of the leaf being finalised
	// cycle finds a node that is its own descendant on the path of frames.
	cycle CycleCheck[N]

	// While a node's children are being listed (see enter and stream):
	// entering is its position in its parent's children, listing the index
	// in kids of its first child, unshared that of the first child not
	// published yet (the first child is never), and streamed / lastStreamed
	// the list of those published.
	entering     int
	listing      int
	unshared     int
	streamed     *pub[N, H, R]
	lastStreamed *pub[N, H, R]

	dealt *pub[N, H, R] // the pub offer pushed last, for forceDeal

	// Spare arrays, all zero, kept for the next frame or run: a res
	// window's (see growRes) and range pubs' results.
	spareRes     []R
	spareResults [][]R
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
	ok := false
	defer func() {
		if !ok {
			st.fail(w, recover())
		}
	}()
	r, leaf := st.enter(root, -1)
	if !leaf {
		r = st.loop(w)
	}
	ok = true
	return r
}

// fail records v, recovered from a panic that leaves a walk with st,
// abandons st and panics again with v. A nil v is a runtime.Goexit in a
// callback: recorded as forkjoin.ErrGoexit (which cancels the run before
// abandon waits for thieves), it goes on unwinding by itself.
func (st *state[N, H, R]) fail(w *forkjoin.Worker, v any) {
	if v == nil {
		core.RecordPanic(w, forkjoin.ErrGoexit)
		st.abandon(w)
		return
	}
	core.RecordPanic(w, v)
	st.abandon(w)
	panic(v)
}

// loop walks the frames that enter pushed for a walk's root until the
// root's is popped, and returns the root's result. A panic out of it must
// be handled as run does (fail).
//
// The top frame is kept in top and taken again only where the stack
// changes (frames never move while on it). A node taken from the top
// frame's own range is entered right here, as enter would: a leaf, most
// of the nodes of a bushy tree, costs no call into enter.
func (st *state[N, H, R]) loop(w *forkjoin.Worker) R {
	top := st.frames.top()
	for {
		if st.dry {
			// A request stands that no frame can answer: no look until a
			// frame gets something to deal (the periodic checkRun below sees
			// a cancelled run meanwhile).
		} else if st.poll.WorkRequested() {
			st.answer(w)
			top = st.frames.top()
		} else if s := st.sched; s != nil && s.Deal() {
			st.forceDeal(w)
			top = st.frames.top()
		}
		if st.ticks++; st.ticks%ctxEvery == 0 {
			st.checkRun(w)
		}
		if top.pubs == nil {
			if top.lo < top.hi {
				c := st.kids[top.lo]
				var zero N
				st.kids[top.lo] = zero // the buffer keeps no entered child reachable
				idx := int(top.lo)
				top.lo++
				if top.lo == top.hi && top.base >= cutFrom && !top.ranged {
					// The last child of a frame that shared none: its
					// segment is empty now, cut it away, so that a
					// chain keeps cutFrom slots of the buffer, not one
					// per level. (Nothing is dealt from a frame without
					// unstarted children, and no pub reads its slots.)
					// Near the bottom of the buffer it is not worth
					// its stores: a bushy tree's walk never cuts.
					st.kids = st.kids[:top.base]
					top.lo, top.hi = top.base, top.base
				}
				h := st.init(c)
				base := len(st.kids)
				st.entering, st.listing, st.unshared = idx, base, base+1
				st.children(c, st.yield)
				if len(st.kids) == base { // a leaf: see enter
					var zero H
					st.leaf = h
					r := st.fin(&st.leaf)
					st.leaf = zero
					st.acc(&top.h, r)
					continue
				}
				top = st.push(c, h, base, idx)
				continue
			}
		} else if st.step(w, top) {
			top = st.frames.top()
			continue
		}
		r := st.fin(&top.h)
		idx := int(top.idx)
		n := st.frames.len() - 1
		if top.ranged {
			// A range pub read its children in place (its runner may be
			// another goroutine, so only the owner clears them, now).
			clear(st.kids[top.base:])
		}
		st.kids = st.kids[:top.base] // other slots were cleared when taken
		st.frames.pop()              // release the heap now
		if st.low > n {
			st.low = n
		}
		if n == 0 {
			return r
		}
		top = st.frames.top()
		st.deliver(top, idx, r)
	}
}

// checkRun unwinds the walk if its run is cancelled or its context done; the
// loop calls it every ctxEvery nodes.
func (st *state[N, H, R]) checkRun(w *forkjoin.Worker) {
	if w.Cancelled() {
		w.Abort(nil)
	}
	if err := w.Context().Err(); err != nil {
		w.Abort(err)
	}
}

// answer answers a request for work at the top of the walk's loop. If the
// top frame has two unstarted children or more (counting a held tail, see
// endStream), the owner enters the first itself, and offer counts it as
// being walked: a thief gets the children after it (or an older frame's),
// and the owner goes on in child order, not with the younger siblings of a
// child it gave away. If that child is a leaf, answer looks again: a thief
// that finished what it was just given asks while the owner is in the
// leaf's callbacks, and the loop's next look would come only after the
// next child. The loop goes on from the new top, as after any step.
func (st *state[N, H, R]) answer(w *forkjoin.Worker) {
	if st.dry {
		return // nothing to deal until a frame gets some (see loop)
	}
	for {
		f := st.frames.top()
		ps := f.pubs
		if ps != nil && f.lo == f.hi && ps.held != nil && ps.ahead == ps.held {
			// The held tail is what the owner walks next: make it the own
			// range now, as step would, so that its first child stays
			// with the owner like any next child.
			st.ownHeld(f)
		}
		left := int(f.hi - f.lo)
		if ps != nil && ps.held != nil {
			left += len(ps.held.nodes)
		}
		if f.lo == f.hi || left < 2 {
			// No child of f to deal after the next one: an older frame's.
			// If there is none either and the request still stands, stop
			// looking (dry) until there is. A request that the heartbeat
			// answered with a private fork does not stand: the next one
			// may find another.
			if !st.offer(w, false) && core.RequestPending(w) {
				st.dry = true
			}
			return
		}
		c := st.kids[f.lo]
		var zero N
		st.kids[f.lo] = zero
		f.lo++
		idx := int(f.lo - 1)
		st.entering = idx
		st.offer(w, true)
		r, leaf := st.enter(c, idx)
		if !leaf {
			return
		}
		st.deliver(f, idx, r) // no frame was pushed: f is valid
		if !st.poll.WorkRequested() {
			return
		}
	}
}

// ownHeld makes the held tail of f, its only ahead pub, f's own range
// again (never pushed, nobody can have taken it).
func (st *state[N, H, R]) ownHeld(f *frame[N, H, R]) {
	ps := f.pubs
	p := ps.held
	ps.ahead, ps.held = nil, nil
	p.claim.Store(true)
	st.ops.pubOver()
	f.lo, f.hi = pos(p.first), pos(p.end)
	if top := st.frames.len() - 1; st.low > top {
		st.low = top
	}
}

// deliver hands the result r of the child at position c to its parent's
// frame f: accumulated at once if every child before it is, else kept in
// the frame's res until they are (see flush).
func (st *state[N, H, R]) deliver(f *frame[N, H, R], c int, r R) {
	ps := f.pubs
	if ps == nil || ps.behind == nil {
		st.acc(&f.h, r)
		return
	}
	if c == ps.acc {
		st.acc(&f.h, r)
		ps.acc++
		return
	}
	if c-ps.resLo >= len(ps.res) {
		st.growRes(ps, c)
	}
	ps.res[c-ps.resLo] = r
}

// growRes makes ps.res cover the children from acc to c at least. It
// holds only the results that wait, not one slot per child of the node: on
// a node of 10^5 children it stays at the size of what a thief holds up.
// The window moves down within its array when that is big enough, else
// into the state's spare one or a new one; the array it leaves becomes
// the spare. Invariant: a res array is zero outside the window's waiting
// results (flush clears each result it accumulates), so a spare is zero.
func (st *state[N, H, R]) growRes(ps *pubs[N, H, R], c int) {
	n := min(max(2*(c-ps.acc+1), 16), ps.end-ps.acc)
	old := ps.res
	waiting := old[min(ps.acc-ps.resLo, len(old)):]
	var res []R
	switch {
	case cap(old) >= n:
		res = old[:n]
	case cap(st.spareRes) >= n:
		res, st.spareRes = st.spareRes[:n], nil
	default:
		res = make([]R, n)
	}
	k := copy(res, waiting)
	if cap(old) >= n {
		clear(old[k:len(old)]) // the moved results' old places
	} else {
		clear(waiting)
		st.keepRes(old)
	}
	ps.res, ps.resLo = res, ps.acc
}

// keepRes keeps res, a res array all zero, as the state's spare if it is
// bigger than the spare.
func (st *state[N, H, R]) keepRes(res []R) {
	if cap(res) > cap(st.spareRes) {
		st.spareRes = res[:0]
	}
}

// step is one step of the walk on the top frame f once it has published
// children: accumulate what is ready in order, then walk the next own
// child, or turn to the next ahead pub, or take back or wait for the first
// pub behind. It reports false when the frame has nothing left: every
// child is accumulated.
func (st *state[N, H, R]) step(w *forkjoin.Worker, f *frame[N, H, R]) bool {
	ps := f.pubs
	if ps.behind != nil {
		st.flush(w, f)
	}
	if ps.behind == nil && ps.ahead == nil {
		f.pubs = nil       // back to the plain walk
		st.keepRes(ps.res) // every result was accumulated and cleared
		return f.lo < f.hi
	}
	if f.lo < f.hi {
		c := st.kids[f.lo]
		var zero N
		st.kids[f.lo] = zero
		f.lo++
		if r, leaf := st.enter(c, int(f.lo-1)); leaf {
			st.deliver(f, int(f.lo-1), r) // no frame was pushed: f is valid
		}
		return true
	}
	if p := ps.ahead; p != nil {
		ps.ahead = p.next
		p.next = nil
		switch {
		case p == ps.held: // never pushed: the frame's own children again
			ps.held = nil
			p.claim.Store(true)
			st.ops.pubOver()
			f.lo, f.hi = pos(p.first), pos(p.end)
		case p.claim.CompareAndSwap(false, true): // nobody took it: the same
			st.ops.pubOver()
			f.lo, f.hi = pos(p.first), pos(p.end)
		default: // a thief has it: every child before it is accumulated
			st.putBehind(ps, p, p.first)
		}
		if top := st.frames.len() - 1; st.low > top {
			st.low = top // the frame may have unstarted children again
		}
		st.dry = false
		return true
	}
	// flush stopped at the first pub behind: acc == p.first, and p is
	// not done.
	p := ps.behind
	if p.claim.CompareAndSwap(false, true) {
		st.ops.pubOver()
		if p.nodes != nil { // nobody took the range: fold it here
			p.runRange(w)
			st.accumulateRange(f, p)
			ps.acc = p.end // flush drops p, then goes on in order
			return true
		}
		// Nobody took the child: walk it like an own child, at the
		// front. p stays first behind until its result is delivered
		// (acc reaches p.end), so later results keep waiting.
		c := p.node
		p.node = *new(N)
		if r, leaf := st.enter(c, p.first); leaf {
			st.deliver(f, p.first, r)
		}
		return true
	}
	core.Wait(w, &p.done)
	if p.failed.Load() {
		w.Abort(nil) // the thief's failure is recorded by its boundary
	}
	return true
}

// flush accumulates, in child order, every result of the top frame f that
// is ready: own results kept in res, and pubs behind that a thief finished.
// It stops at the first pub that is not done.
func (st *state[N, H, R]) flush(w *forkjoin.Worker, f *frame[N, H, R]) {
	ps := f.pubs
	for {
		p := ps.behind
		lim := int(f.lo) // no child of f is being walked: all before lo are done
		if p != nil {
			lim = p.first
		}
		for ; ps.acc < lim; ps.acc++ {
			i := ps.acc - ps.resLo
			st.acc(&f.h, ps.res[i])
			ps.res[i] = *new(R)
		}
		if p == nil {
			return
		}
		if ps.acc < p.end { // not walked here (see step)
			if !p.done.Done() {
				return
			}
			if p.failed.Load() {
				w.Abort(nil)
			}
			if p.nodes != nil {
				st.accumulateRange(f, p)
			} else {
				st.acc(&f.h, p.res)
				p.res = *new(R)
			}
			ps.acc = p.end
		}
		ps.behind = p.next
		if ps.behind == nil {
			ps.btail = nil
		}
	}
}

// accumulateRange accumulates the results of the range pub p into f's heap,
// in order, and clears them (the pub may outlive the frame). The pub is
// over (done, or folded here), so nobody writes its results any more: the
// slice goes back to the state's spares.
func (st *state[N, H, R]) accumulateRange(f *frame[N, H, R], p *pub[N, H, R]) {
	for i, r := range p.results {
		st.acc(&f.h, r)
		p.results[i] = *new(R)
	}
	st.keepResults(p.results)
	p.results = nil
}

// maxSpareResults bounds the result slices of range pubs a state keeps.
const maxSpareResults = 4

// results returns a zero slice of k results for a range pub the owner
// deals: a spare one if one is big enough, else a new one.
func (st *state[N, H, R]) results(k int) []R {
	for i, r := range st.spareResults {
		if cap(r) >= k {
			last := len(st.spareResults) - 1
			st.spareResults[i] = st.spareResults[last]
			st.spareResults[last] = nil
			st.spareResults = st.spareResults[:last]
			return r[:k]
		}
	}
	return make([]R, k)
}

// keepResults keeps r, all zero, for results: in place of the smallest
// spare if there are maxSpareResults already.
func (st *state[N, H, R]) keepResults(r []R) {
	r = r[:0]
	if len(st.spareResults) < maxSpareResults {
		st.spareResults = append(st.spareResults, r)
		return
	}
	small := 0
	for i, x := range st.spareResults {
		if cap(x) < cap(st.spareResults[small]) {
			small = i
		}
	}
	if cap(r) > cap(st.spareResults[small]) {
		st.spareResults[small] = r
	}
}

// putBehind appends p to the pubs behind; acc is the first child not
// accumulated if there were none.
func (st *state[N, H, R]) putBehind(ps *pubs[N, H, R], p *pub[N, H, R], acc int) {
	p.next = nil
	if ps.behind == nil {
		ps.behind = p
		ps.acc = acc
	} else {
		ps.btail.next = p
	}
	ps.btail = p
}

// States are reused: each participant keeps a stack of free states per
// type (core.Local), so that a walk's buffers grow once and then stay —
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
	return core.Local(w, keyFor[N, H, R](), func() any { return new(stateStack[N, H, R]) }).(*stateStack[N, H, R])
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
			if (len(st.kids)-st.listing)%streamEvery == 0 && st.poll.WorkRequested() {
				st.stream()
			}
			return true
		}
	}
	st.ops = ops
	st.init, st.acc, st.fin, st.children, st.sched = ops.Init, ops.Accumulate, ops.Finalize, ops.Children, ops.sched
	st.w, st.poll = w, core.PollOf(w)
	return st
}

// putState gives back a state whose walk finished normally: every frame
// was popped (and zeroed) and every child reference cleared.
func putState[N, H, R any](w *forkjoin.Worker, st *state[N, H, R]) {
	if st.frames.capacity() > maxKept || cap(st.kids) > maxKept {
		return
	}
	if cap(st.spareRes) > maxKept {
		st.spareRes = nil
	}
	for i, r := range st.spareResults {
		if cap(r) > maxKept {
			st.spareResults[i] = nil
		}
	}
	st.spareResults = slices.DeleteFunc(st.spareResults, func(r []R) bool { return r == nil })
	st.ops, st.w, st.poll, st.dealt = nil, nil, core.Poll[forkjoin.Worker]{}, nil
	st.init, st.acc, st.fin, st.children, st.sched = nil, nil, nil, nil, nil
	st.kids = st.kids[:0]
	st.frames.reset()
	st.low, st.ticks, st.dry = 0, 0, false
	st.cycle.Reset()
	ss := stackOf[N, H, R](w)
	ss.free = append(ss.free, st)
}

// enter starts node n, the child at position idx of the top frame (-1 for
// the walk's root): Init, then its children into the buffer, then a frame
// on top. A leaf gets no frame: it is finalised at once and its result
// returned with leaf true, for the caller to deliver.
func (st *state[N, H, R]) enter(n N, idx int) (r R, leaf bool) {
	h := st.init(n)
	base := len(st.kids)
	st.entering, st.listing, st.unshared = idx, base, base+1
	st.children(n, st.yield)
	if len(st.kids) == base {
		// The heap goes through a field of st: the address of a local
		// passed to Finalize would move every leaf's heap to the heap.
		var zero H
		st.leaf = h
		r = st.fin(&st.leaf)
		st.leaf = zero
		return r, true
	}
	st.push(n, h, base, idx)
	return r, false
}

// push pushes the frame of node n, entered with heap h, whose children
// were just listed from base on, and returns it.
func (st *state[N, H, R]) push(n N, h H, base, idx int) *frame[N, H, R] {
	k := len(st.kids)
	if k-base >= 2 {
		st.dry = false // a child to deal after the first (see dry)
	}
	if k > maxKids || st.frames.full() {
		st.roomForFrame(k) // rare: one branch for both on the way
	}
	if d := st.frames.len(); d >= CycleFrom && d%CycleStride == 0 {
		st.cycle.Enter(n, d)
	}
	// The frame's fields are stored into its slot one by one. A frame
	// literal is built in a temporary and copied 16 bytes at a time, and
	// those loads, over fields just stored 8 bytes at a time, stall (the
	// stores cannot be forwarded to them): a fifth of the time of a walk
	// down a binary tree went there.
	f := st.frames.push() // the slot is zero: popped frames are cleared
	f.h = h
	f.base, f.lo, f.hi, f.idx = pos(base), pos(base), pos(k), pos(idx)
	if st.streamed != nil {
		st.endStream(f)
	}
	return f
}

// cutFrom is the position in the buffer from which a frame's segment is
// cut away once its last child is taken (see loop).
const cutFrom = 1024

// pos is a position in a walk's buffer of children as a frame keeps it:
// unsigned, so that it indexes the buffer with no sign extension.
type pos = uint32

// maxKids bounds the children listed and not yet entered on a walk's
// path (frames keep positions in the buffer as pos): 2^31-1 node values,
// at least 16 GiB of them.
const maxKids = math.MaxInt32

var errTooManyKids = errors.New("forkjoin: a walk's path holds more than 2^31-1 listed children")

// roomForFrame panics if k children listed on the path are more than a
// frame can address, and makes room on the frame stack for a push.
func (st *state[N, H, R]) roomForFrame(k int) {
	if k > maxKids {
		panic(errTooManyKids)
	}
	if st.frames.full() {
		st.frames.nextChunk()
	}
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
// An older frame's unstarted child comes first in the walk's order, so
// offer gets the first chance; if no frame has one, the first of the
// children listed and not yet published (never the first child) are
// published at once, so that a thief can start on them while the listing
// goes on: a slow children function (a directory being read) is walked in
// parallel with its own listing. The first child stays with the owner,
// which walks it once the listing ends.
//
// The children yielded afterwards follow the published ones in child
// order, so they cannot join the frame's own range, which precedes its
// pubs: they go to later pubs (see endStream).
func (st *state[N, H, R]) stream() {
	w := st.w
	if st.offer(w, true) || len(st.kids) <= st.unshared {
		return
	}
	p := st.share(st.unshared+dealSize(len(st.kids)-st.unshared), false)
	if st.lastStreamed == nil {
		st.streamed = p
	} else {
		st.lastStreamed.next = p
	}
	st.lastStreamed = p
	core.Push(w, &p.task)
}

// share makes a pub of the listed children from the first one not
// published to end, which it reads in place: the buffer below its end is
// not written again until the frame is popped (it only grows meanwhile; if
// it is reallocated, the pub keeps reading the old array, whose values are
// the same). The pub counts in pending from now on. A held tail (see
// endStream) is always a range, and gets its results slice only if it is
// pushed: a range pub with no results is a held tail.
func (st *state[N, H, R]) share(end int, held bool) *pub[N, H, R] {
	lo := st.unshared
	st.unshared = end
	var p *pub[N, H, R]
	switch {
	case held: // a range even of one child: results nil marks it held
		p = &pub[N, H, R]{ops: st.ops, nodes: st.kids[lo:end:end]}
		p.task.Init(runPub[N, H, R])
	case end-lo == 1:
		p = &pub[N, H, R]{ops: st.ops, node: st.kids[lo]}
		p.task.Init(runPub[N, H, R])
	default:
		p = newRangePub(st.ops, st.kids[lo:end:end], st.results(end-lo))
	}
	p.first, p.end = lo, end
	st.ops.pending.Add(1)
	return p
}

// endStream sets up the frame f of a node whose listing published some of
// its children: its own range is the first child alone; its ahead pubs are
// the streamed ones, in order, then a tail of the children not published.
// The tail is held, not pushed: it is the frame's last unstarted work,
// which offer deals from if someone asks, and if nobody has by the time
// the owner gets to it, the owner walks it as its own range (see step).
// The pubs read their children in place, so the frame is marked ranged:
// its owner clears them at pop.
func (st *state[N, H, R]) endStream(f *frame[N, H, R]) {
	ps := &pubs[N, H, R]{ahead: st.streamed, end: len(st.kids)}
	if len(st.kids) > st.unshared {
		ps.held = st.share(len(st.kids), true)
		st.lastStreamed.next = ps.held
	}
	f.hi = f.base + 1
	f.pubs = ps
	f.ranged = true
	st.streamed, st.lastStreamed = nil, nil
}

// offer publishes the first unstarted children of the oldest frame that has
// some (for the top frame, only if it has two or more: the next one is
// about to be visited anyway, unless inChild says that the top frame's
// child is being listed), and reports whether it found any.
//
// Children are dealt from the front, in child order: the oldest frame's
// results are accumulated in child order, so whatever a thief is given
// right after the child the owner is walking can be accumulated as soon as
// both are done, while the owner goes on with the next ones (their results
// wait in the frame's res meanwhile). Dealing from the back would leave the
// accumulation of everything the thieves made for the very end, one result
// after another, once the owner's own part is done. One child is dealt at
// a time unless many are left (a wide node): then an eighth of them, as
// one range, which its taker may split again (see dealSize).
func (st *state[N, H, R]) offer(w *forkjoin.Worker, inChild bool) bool {
	top := st.frames.len() - 1
	i := st.low
	for ; i <= top; i++ {
		if f := st.frames.at(i); f.lo < f.hi || (f.pubs != nil && f.pubs.held != nil) {
			break
		}
	}
	st.low = i
	if i > top {
		return false
	}
	f := st.frames.at(i)
	ps := f.pubs
	left := int(f.hi - f.lo)
	if ps != nil && ps.held != nil {
		left += len(ps.held.nodes)
	}
	if i == top && !inChild && left < 2 {
		return false
	}
	var p *pub[N, H, R]
	if f.lo < f.hi {
		if ps == nil {
			ps = &pubs[N, H, R]{end: int(f.hi)}
			f.pubs = ps
		}
		first := int(f.lo)
		k := dealSize(int(f.hi) - first)
		if k == 1 {
			p = &pub[N, H, R]{ops: st.ops, node: st.kids[first]}
			var zero N
			st.kids[first] = zero
			p.task.Init(runPub[N, H, R])
		} else {
			p = newRangePub(st.ops, st.kids[first:first+k:first+k], st.results(k))
			f.ranged = true
		}
		p.first, p.end = first, first+k
		f.lo += pos(k)
		// The first child not accumulated, if no pub is behind: the
		// frame's child being walked, if there is one, else this one.
		acc := first
		if i < top {
			acc = int(st.frames.at(i + 1).idx)
		} else if inChild {
			acc = st.entering
		}
		st.putBehind(ps, p, acc)
	} else {
		// The held tail: deal its first children as a pub of their own,
		// just before it among the ahead pubs, or push it whole.
		t := ps.held
		n := len(t.nodes)
		k := dealSize(n)
		if k == n {
			ps.held = nil
			t.results = st.results(n) // a range now
			st.noteDealt(t)
			core.Push(w, &t.task) // it counts in pending since share
			return true
		}
		if k == 1 {
			p = &pub[N, H, R]{ops: st.ops, node: t.nodes[0]}
			p.task.Init(runPub[N, H, R])
		} else {
			p = newRangePub(st.ops, t.nodes[:k:k], st.results(k))
		}
		p.first, p.end = t.first, t.first+k
		t.nodes = t.nodes[k:]
		t.first += k
		p.next = t
		if ps.ahead == t {
			ps.ahead = p
		} else {
			q := ps.ahead
			for q.next != t {
				q = q.next
			}
			q.next = p
		}
	}
	st.ops.pending.Add(1)
	st.noteDealt(p)
	core.Push(w, &p.task)
	return true
}

// rangeMin is the number of unstarted children from which offer deals a
// range rather than a single child, and dealDiv the part of them it deals.
const (
	rangeMin = 16
	dealDiv  = 8
)

// dealSize is how many of n unstarted children offer deals at once.
func dealSize(n int) int {
	if n < rangeMin {
		return 1
	}
	return n / dealDiv
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
	// st walks the range's own children, each as a walk's root: enter,
	// and loop if it is not a leaf. It is run without run's deferred
	// call per child (a wide node's children are mostly leaves), so a
	// panic out of it is handled here as run would (fail).
	var st *state[N, H, R]
	ok := false
	defer func() {
		if ok {
			return
		}
		p.ops.takeBack(subs) // unwinding: subs nobody took will never run
		if st != nil {
			st.fail(w, recover()) // a child's walk, as run would
		}
		w.Cancel(nil)
	}()
	st = getState[N, H, R](w, p.ops)
	lo, hi := 0, len(p.nodes)
	for lo < hi {
		if hi-lo >= 2 && st.poll.WorkRequested() {
			mid := lo + (hi-lo)/2
			sp := newRangePub(p.ops, p.nodes[mid:hi:hi], p.results[mid:hi:hi])
			p.ops.pending.Add(1)
			sp.next, subs = subs, sp
			core.Push(w, &sp.task)
			hi = mid
			continue
		}
		if st.ticks++; st.ticks%ctxEvery == 0 {
			// As the loop does: its look does not come for leaves.
			if err := w.Context().Err(); err != nil {
				w.Abort(err)
			}
		}
		r, leaf := st.enter(p.nodes[lo], -1)
		if !leaf {
			r = st.loop(w)
		}
		p.results[lo] = r
		lo++
	}
	putState(w, st)
	st = nil
	for subs != nil {
		s := subs
		subs = s.next // off the list before it runs: the clean-up must not see it
		if s.claim.CompareAndSwap(false, true) {
			p.ops.pubOver()
			s.runRange(w)
		} else {
			core.Wait(w, &s.done)
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
	st.ops.takeBack(st.streamed) // a listing that did not end
	st.streamed, st.lastStreamed = nil, nil
	for i := range st.frames.len() {
		f := st.frames.at(i)
		if ps := f.pubs; ps != nil {
			st.ops.takeBack(ps.behind)
			st.ops.takeBack(ps.ahead)
		}
		*f = frame[N, H, R]{}
	}
}

// takeBack claims every pub of list that nobody took, so that it never
// runs, and counts it out.
func (ops *Ops[N, H, R]) takeBack(list *pub[N, H, R]) {
	for p := list; p != nil; p = p.next {
		if p.claim.CompareAndSwap(false, true) {
			ops.pubOver()
		}
	}
}

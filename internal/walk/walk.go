package walk

import (
	"errors"
	"math"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
)

// This file is one participant's walk: its state and frames, the loop that
// enters and finalises nodes, and the fold-wide bookkeeping (Ops, Run,
// drain). The package documentation describes the algorithm; the argument
// that it is correct rests on four facts the code keeps:
//
//   - Only the goroutine that owns a state touches the heaps of its frames:
//     a thief writes only the result fields of the pub it claimed, and the
//     owner reads them after the pub's done Completion, which orders them.
//   - A frame's children are accumulated from acc upwards, each once: an
//     own child's result as it is delivered (at once if nothing is behind,
//     else through res), a pub's once it is done, a range's in slot order;
//     acc never passes a child whose result is not ready. So Accumulate is
//     called in child order, between Init and Finalize, one call at a time.
//   - Every pub is run by exactly one party, whoever wins its claim CAS: a
//     thief, or the owner that takes it back.
//   - Every pub counts in its fold's pending until it is over, and Run
//     drains pending before it returns or re-panics: no callback of a fold
//     runs after Run is gone, whatever failed.
//
// Depth costs heap memory: frames live on an explicit stack in chunks that
// never move (frames.go); a descent (descend.go) recurses on the goroutine
// stack at most recLimit levels before its path becomes frames.

// Ops are a fold's callbacks and the children function. An Ops value
// serves one call of Run.
type Ops[N, H, R any] struct {
	Init       func(n N) H
	Accumulate func(h *H, child R)
	Finalize   func(h *H) R
	Children   func(n N, yield func(child N) bool)
	// Slice, if not nil, returns the children Children yields, as a slice
	// the walk reads in place and never modifies.
	Slice func(n N) []N

	// sched, if not nil, makes the walks deal work without a request
	// (see WithSchedule); Run reads it from the run's context.
	sched Schedule

	// pending counts the pubs of this fold not yet over: published and
	// neither taken back by their owner nor finished by a thief.
	pending  atomic.Int64
	draining atomic.Bool
	drained  core.Completion

	// run is the run the fold is part of (Run sets it), which Stop
	// cancels from whichever goroutine it is called on; stopped is set by
	// Stop first, and the walks look at it with the run's context
	// (checkRun).
	run     core.RunControl
	stopped atomic.Bool
}

// Stop ends the walk with err, from inside one of its callbacks, on any
// participant: err becomes the run's failure (what forkjoin.RunCtx
// returns, as it is, if it is the first), the run is canceled at once,
// and the callback's frames unwind; Stop does not return. It is how a
// callback stops a walk on purpose (an error to return, a search that
// found its node). A panic would do it too, but the run learns of a panic
// only once the stack where it happened is recorded, tens of microseconds
// later, while the other participants go on starting nodes. After Stop,
// each other participant starts no new node once it has been told (at
// its next look at its poll word, a load before every node), and at most
// ctxEvery more before it looks at stopped, however late the telling.
func (ops *Ops[N, H, R]) Stop(err error) {
	ops.stopped.Store(true)
	ops.run.Cancel(err)
	panic(stopping{})
}

// stopping is the panic of Stop, which the walk's clean-up (fail) unwinds
// as a cancellation.
type stopping struct{}

// Run folds the tree below root on w's run, sharing it with the other
// participants of the pool, and returns the root's result. Whether it
// returns or panics, no pub of the fold is still running when it does.
func Run[N, H, R any](w *forkjoin.Worker, ops *Ops[N, H, R], root N) R {
	ops.sched = scheduleOf(w.Context())
	ops.run = core.RunOf(w)
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
	// Positions in the buffer are 32-bit (pos, see maxKids), and the
	// ranged mark is base's top bit: a frame of an 8-byte heap takes 32
	// bytes, which is what a 10^6-deep chain costs per level.
	base   pos // start of this frame's children in the buffer, and rangedBit
	lo, hi pos // unstarted own children: kids[lo:hi]
	idx    pos // this node's position in its parent's children (kids); unused for a walk's root
	// pubs: what a frame keeps once it has published some of its children
	// (nil before, and again once all of them are accumulated).
	pubs *pubs[N, H, R]
}

// rangedBit, set in a frame's base, marks a frame from which a range pub
// was made: the pub reads its children in place, so only the owner clears
// them, when it pops the frame. Positions are below maxKids < rangedBit.
const rangedBit pos = 1 << 31

// start returns the position of f's first child in the buffer.
func (f *frame[N, H, R]) start() int { return int(f.base &^ rangedBit) }

// ranged reports whether a range pub was made from f (see rangedBit).
func (f *frame[N, H, R]) ranged() bool { return f.base&rangedBit != 0 }

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
	slice    func(n N) []N // if not nil, the walk reads children from it (descendSlice)
	sched    Schedule

	ops    *Ops[N, H, R]
	w      *forkjoin.Worker           // the participant walking with this state
	poll   core.Poll[forkjoin.Worker] // w's: the look for a request at each node
	word   *uintptr                   // poll's word: a descent loads it itself (see core.Poll.Word)
	kids   []N
	frames frameStack[frame[N, H, R]]
	low    int // frames below low have no unstarted child
	yield  func(N) bool
	ticks  uint32
	// dry: a request for work stands that no frame can answer (answer
	// found nothing to deal), so the loop does not look for requests until
	// a frame gets something to deal: a node with two children or more is
	// entered, or an ahead pub becomes a frame's own range again. A chain
	// of single children would otherwise look at the standing request, and
	// find nothing, at every node. Invariant: dry
	// implies that offer would find nothing; clearing it is always safe.
	dry  bool
	leaf H // the heap of the leaf being finalised
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

	// A descent (descend.go): open holds the heaps of its open nodes by
	// depth, rd the depth of the next node to open, foldYield its yield.
	// While it unwinds, the children yielded go to scratch, each level's
	// from segStart on (segInProg: its first slot stands for the child
	// being walked), and the nodes whose children function returned to
	// levels, deepest first. forced: it unwound for a Schedule's deal,
	// which the loop makes next.
	open      []H
	rd        int
	foldYield func(N) bool
	unwinding bool
	forced    bool
	scratch   []N
	segStart  int
	segInProg bool
	levels    []level[N, H]
	// deep: the last descent reached recLimit and no frame of two
	// children or more has been pushed since: the path is a chain for
	// now. While deep or dry, the loop enters children by listing them
	// (enter) rather than descending: a descent along a chain would turn
	// every level into a frame a recursion later, and one that finds a
	// standing request unwinds at its first node.
	deep bool

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
// abandon waits for thieves), it goes on unwinding by itself. Ops.Stop's
// panic, whose run is canceled already, unwinds as a cancellation does.
func (st *state[N, H, R]) fail(w *forkjoin.Worker, v any) {
	if v == nil {
		core.RecordPanic(w, forkjoin.ErrGoexit)
		st.abandon(w)
		return
	}
	if _, ok := v.(stopping); ok {
		// Ops.Stop canceled the run with its error: nothing to record,
		// the walk unwinds as for a cancellation.
		st.abandon(w)
		w.Abort(nil)
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
// frame's own range is descended into right here, as descend would (or,
// while dry or deep, entered as enter would): a leaf, most of the nodes of
// a bushy tree, costs no call.
func (st *state[N, H, R]) loop(w *forkjoin.Worker) R {
	top := st.frames.top()
	for {
		if st.dry {
			// A request stands that no frame can answer: no look for
			// requests until a frame gets something to deal, only at the
			// run (the poll word, held at 0 by the request, cannot tell of
			// a cancellation).
			if w.Canceled() {
				w.Abort(nil)
			}
		} else if atomic.LoadUintptr(st.word) == 0 && st.poll.WorkRequested() {
			st.answer(w)
			top = st.frames.top()
		} else if s := st.sched; s != nil && (st.forced || s.Deal()) {
			st.forced = false
			st.forceDeal(w)
			top = st.frames.top()
		}
		if st.ticks++; st.ticks%ctxEvery == 0 {
			st.checkRun(w)
		}
		if ps := top.pubs; ps == nil || ps.behind == nil && top.lo < top.hi {
			// Nothing behind: every child before the own range is
			// accumulated, so an own child's result is accumulated at once.
			if top.lo < top.hi {
				c, idx := st.take(top)
				if st.slice != nil {
					// descendSlice's first node, written out as below.
					st.open[0] = st.init(c)
					kids := st.slice(c)
					if len(kids) == 0 { // a leaf
						r := st.fin(&st.open[0])
						st.open[0] = *new(H)
						st.acc(&top.h, r)
						continue
					}
					if st.deep || st.dry { // list it, as enter would
						top = st.listDown(c, kids, idx)
						continue
					}
					if r, done := st.descendSlice(c, kids, idx); done {
						st.acc(&top.h, r)
						continue
					}
					top = st.frames.top()
					continue
				}
				if st.deep || st.dry {
					// enter, written out, as descend is below.
					h := st.init(c)
					base := len(st.kids)
					st.entering, st.listing, st.unshared = idx, base, base+1
					st.children(c, st.yield)
					if len(st.kids) == base { // a leaf: see enter
						st.leaf = h
						r := st.fin(&st.leaf)
						st.leaf = *new(H)
						st.acc(&top.h, r)
						continue
					}
					top = st.push(c, h, base, idx)
					continue
				}
				// descend, written out: most nodes of a bushy tree are
				// leaves, entered here, and a call per leaf costs a
				// quarter of a leaf's time on the wide node.
				st.entering = idx
				st.open[0] = st.init(c)
				st.rd = 1
				st.children(c, st.foldYield)
				st.rd = 0
				if st.unwinding {
					st.suspend(c, 0)
					st.toFrames(idx)
					top = st.frames.top()
					continue
				}
				r := st.fin(&st.open[0])
				st.open[0] = *new(H)
				st.acc(&top.h, r) // no frame was pushed: top is valid, nothing behind
				continue
			}
		} else if st.step(w, top) {
			top = st.frames.top()
			continue
		}
		r := st.fin(&top.h)
		idx := int(top.idx)
		n := st.frames.len() - 1
		if top.ranged() {
			// A range pub read its children in place (its runner may be
			// another goroutine, so only the owner clears them, now).
			clear(st.kids[top.start():])
		}
		st.kids = st.kids[:top.start()] // other slots were cleared when taken
		st.frames.pop()                 // release the heap now
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

// take takes the next unstarted child of the top frame f for the loop,
// and returns it with its position.
func (st *state[N, H, R]) take(f *frame[N, H, R]) (c N, idx int) {
	c = st.kids[f.lo]
	st.kids[f.lo] = *new(N) // the buffer keeps no entered child reachable
	idx = int(f.lo)
	f.lo++
	if f.lo == f.hi && f.base >= cutFrom && f.base < rangedBit { // not ranged
		// The last child of a frame that shared none: its segment is
		// empty now, cut it away, so that a chain keeps cutFrom slots of
		// the buffer, not one per level. (Nothing is dealt from a frame
		// without unstarted children, and no pub reads its slots.) Near
		// the bottom of the buffer it is not worth its stores: a bushy
		// tree's walk never cuts.
		st.kids = st.kids[:f.base]
		f.lo, f.hi = f.base, f.base
	}
	return c, idx
}

// checkRun unwinds the walk if its run is canceled, its context done or
// a callback of its fold called Ops.Stop; the loop calls it every ctxEvery
// nodes.
func (st *state[N, H, R]) checkRun(w *forkjoin.Worker) {
	if w.Canceled() || st.ops.stopped.Load() {
		w.Abort(nil)
	}
	if err := w.Context().Err(); err != nil {
		w.Abort(err)
	}
}

// enter starts node n, the child at position idx of the top frame (-1 for
// the walk's root): Init, then its children into the buffer, then a frame
// on top. A leaf gets no frame: it is finalised at once and its result
// returned with leaf true, for the caller to deliver.
func (st *state[N, H, R]) enter(n N, idx int) (r R, leaf bool) {
	h := st.init(n)
	base := len(st.kids)
	st.entering, st.listing, st.unshared = idx, base, base+1
	if st.slice != nil {
		st.kids = AppendKids(st.kids, st.slice(n)) // one copy: nothing to stream
	} else {
		st.children(n, st.yield)
	}
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
		st.dry = false  // a child to deal after the first (see dry)
		st.deep = false // a branching node (see deep)
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
	// stores cannot be forwarded to them), on every frame pushed.
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

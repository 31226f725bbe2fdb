package walk

import "sync/atomic"

// This file is how a walk folds the subtree of a child it takes from a
// frame: by recursion on the goroutine stack, folding each child while the
// children function yields it, as Seq does, until another participant asks
// for work.
//
// descend opens the child at recursion depth 0 and folds every node below
// it in the yield function (foldYield): Init, the node's children function
// with the same yield, Finalize, Accumulate into the parent's heap, which
// lives in open[depth-1]. Nothing is listed and no frame is pushed, so a
// subtree that nobody asks for costs what Seq costs, plus one load per node
// for the request and the run's periodic check.
//
// Before it folds a child, the yield looks for a request for work (or a
// Schedule's deal). If one stands, or the recursion is recLimit deep, the
// descent unwinds: from then on every yield lists its child into scratch
// instead of folding it, so each open node's children function runs to
// its end listing the children it has not yielded yet, and returns; the
// node is then recorded as a level (its node, its heap, its segment of
// scratch) and its parent goes on listing in turn. When the descent's own
// child has returned, the levels become frames on the walk's stack,
// root-most first, each frame's children being its segment: a slot for
// the child being walked (the level above it on the stack) and then the
// children it listed, unstarted. That is the stack the walk's loop would
// have built had it listed every node on the path, so the loop answers
// the request from the oldest frame as usual and goes on from the top.
//
// With a slice function (Ops.Slice) the descent is foldKids: each node's
// children are read from their slice and folded by direct recursion, with
// the same looks before each child. Unwinding lists nothing: each open
// node records the rest of its slice as its level's segment (from the
// child where the descent stopped, or after the child being walked), and
// toFrames copies those segments into the buffer as it pushes the frames.
// The argument below holds for both forms.
//
// Why it is correct:
//
//   - Child order. Each node accumulates the children it folded in the
//     order they were yielded; once it unwinds, its remaining children are
//     listed in order after the one being walked, and the loop walks and
//     delivers them in order (deliver, step).
//   - Heaps. open[d] holds the heap of the open node at depth d, and the
//     zero H otherwise: it is cleared when the node is finalised or moved
//     into its frame. Only the owner touches it.
//   - Cost. A node becomes a frame at most once: the loop never descends
//     into a frame again, it walks the frame's children. So unwinding costs
//     at most one frame per node (what listing every node costs), and a
//     request costs the depth of the recursion it unwinds, at most
//     recLimit levels.
//   - Depth. The recursion never exceeds recLimit levels: a deeper node is
//     listed as if a request stood, and the frames continue the path on
//     the explicit stack, where the cycle check sees it (push).
//
// A level with no child left to list (a chain) gets no slot for the child
// being walked: nothing is dealt from a frame without unstarted children,
// so the position is never read, and a chain keeps no buffer per level.

// recLimit bounds a descent's recursion on the goroutine stack: a few
// hundred bytes a level.
const recLimit = 64

// level is a node of a descent that unwound, until it becomes a frame.
type level[N, H any] struct {
	n     N
	h     H
	start int // its segment of scratch: from start to the next level's start
	// rest: its segment, read in place from its children's slice, instead
	// (a walk with a slice function: descendSlice).
	rest []N
	// inProg: the segment's first slot stands for the child being walked.
	inProg bool
}

// descend (the loop writes it out) folds the subtree of c, the child at
// position idx of the top frame (-1 if there is none), and returns its
// result with done true; or it unwinds, pushes the frames of the path
// from c down, and returns done false, leaving the rest to the loop.
func (st *state[N, H, R]) descend(c N, idx int) (r R, done bool) {
	if st.slice != nil {
		st.open[0] = st.init(c)
		kids := st.slice(c)
		if len(kids) == 0 {
			r = st.fin(&st.open[0])
			st.open[0] = *new(H)
			return r, true
		}
		return st.descendSlice(c, kids, idx)
	}
	st.entering = idx // the child being walked, for offer
	st.open[0] = st.init(c)
	st.rd = 1
	st.children(c, st.foldYield)
	st.rd = 0
	if st.unwinding {
		st.suspend(c, 0)
		st.toFrames(idx)
		return r, false
	}
	r = st.fin(&st.open[0])
	st.open[0] = *new(H)
	return r, true
}

// newFoldYield returns the yield of a descent (foldYield), made once per
// state: it folds c, a child of the open node at depth st.rd-1, and
// accumulates its result, or lists it while the descent unwinds. Its body
// is written out in the closure, not a method call away: it runs at every
// node. It loads the poll word itself because core.Poll's WorkRequested,
// called from this generic code, is not inlined.
func newFoldYield[N, H, R any](st *state[N, H, R]) func(N) bool {
	var yield func(N) bool
	yield = func(c N) bool {
		if st.unwinding {
			st.list(c)
			return true
		}
		d := st.rd
		if d == recLimit || atomic.LoadUintptr(st.word) == 0 && st.poll.WorkRequested() || st.sched != nil && st.sched.Deal() {
			st.unwind(c, d)
			return true
		}
		if st.ticks++; st.ticks%ctxEvery == 0 {
			st.checkRun(st.w)
		}
		if d == len(st.open) {
			st.open = append(st.open, *new(H))
		}
		st.open[d] = st.init(c)
		st.rd = d + 1
		st.children(c, yield)
		st.rd = d
		if st.unwinding {
			st.suspend(c, d) // c's children function returned: c is a level
			return true
		}
		r := st.fin(&st.open[d])
		st.open[d] = *new(H)
		st.acc(&st.open[d-1], r) // taken again: a deeper level may have moved open
		return true
	}
	return yield
}

// unwind starts unwinding the descent at c, the child just yielded at
// depth d: c and the children its parent yields after it are listed,
// unstarted. At recLimit the walk goes on by listing (deep, see loop);
// for a Schedule's deal (not a request), the loop deals next (forced).
func (st *state[N, H, R]) unwind(c N, d int) {
	st.unwinding = true
	if d == recLimit {
		st.deep = true
	} else if !st.poll.WorkRequested() {
		st.forced = true
	}
	st.segStart, st.segInProg = len(st.scratch), false
	st.scratch = append(st.scratch, c)
}

// list lists c, yielded while the descent unwinds. Every
// streamEvery children of a level, a request that stands is offered an
// older frame's children, so that a long listing does not keep the asker
// waiting when there is work below the descent.
func (st *state[N, H, R]) list(c N) {
	st.scratch = append(st.scratch, c)
	if (len(st.scratch)-st.segStart)%streamEvery == 0 && st.poll.WorkRequested() {
		st.offer(st.w, true)
	}
}

// suspend records n, the open node at depth d whose children function
// returned while the descent unwinds, as a level, and starts its parent's
// segment with a slot for n.
func (st *state[N, H, R]) suspend(n N, d int) {
	st.levels = append(st.levels, level[N, H]{n: n, h: st.open[d], start: st.segStart, inProg: st.segInProg})
	st.open[d] = *new(H)
	st.segStart, st.segInProg = len(st.scratch), true
	st.scratch = append(st.scratch, *new(N))
}

// toFrames pushes the levels of an unwound descent as frames, root-most
// first; idx is the position of the descent's child in the frame below.
func (st *state[N, H, R]) toFrames(idx int) {
	st.unwinding = false
	lv := st.levels
	end := len(st.scratch) - 1 // the slot suspend added for the descent's child
	for i := len(lv) - 1; i >= 0; i-- {
		l := &lv[i]
		base := len(st.kids)
		var seg []N
		if st.slice != nil {
			seg = l.rest
			if l.inProg && len(seg) > 0 {
				st.kids = append(st.kids, *new(N)) // the child being walked
			}
		} else {
			seg = st.scratch[l.start:end]
			end = l.start
			if l.inProg && len(seg) == 1 {
				seg = nil // only the child being walked: no slot (see above)
			}
		}
		st.kids = append(st.kids, seg...)
		f := st.push(l.n, l.h, base, idx)
		if l.inProg && len(st.kids) > base {
			f.lo++ // past the slot of the child being walked
		}
		idx = base
		*l = level[N, H]{}
	}
	clear(st.scratch)
	st.scratch, st.levels = st.scratch[:0], lv[:0]
}

// descendSlice is descend for a walk with a slice function: c, the child
// at position idx of the top frame (-1 if there is none), is open at
// depth 0 with kids, its children, read from the slice. See foldKids.
func (st *state[N, H, R]) descendSlice(c N, kids []N, idx int) (r R, done bool) {
	st.entering = idx // the child being walked, for offer
	if r, done = st.foldKids(c, kids, 0); !done {
		st.toFrames(idx)
	}
	return r, done
}

// foldKids folds the children kids of n, open at depth d (its heap in
// open[d]), by direct recursion, accumulates their results, and returns
// n's result with done true. It is the yield descent with the children
// read from their slice: no call per child besides the callbacks, and a
// leaf, most nodes of a bushy tree, folded without a call of its own.
//
// Unwinding needs no listing either: a node records itself as a level
// whose segment is the rest of its slice, read in place by toFrames (from
// the child it is about to fold, where the descent stops; after the child
// being walked, in the levels above it), and returns done false.
func (st *state[N, H, R]) foldKids(n N, kids []N, d int) (r R, done bool) {
	e := d + 1 // the children's depth
	if e == len(st.open) {
		st.open = append(st.open, *new(H))
	}
	for i, c := range kids {
		if e == recLimit || atomic.LoadUintptr(st.word) == 0 && st.poll.WorkRequested() || st.sched != nil && st.sched.Deal() {
			st.unwinding = true
			if e == recLimit {
				st.deep = true
			} else if !st.poll.WorkRequested() {
				st.forced = true
			}
			st.levels = append(st.levels, level[N, H]{n: n, h: st.open[d], rest: kids[i:]})
			st.open[d] = *new(H)
			return r, false
		}
		if st.ticks++; st.ticks%ctxEvery == 0 {
			st.checkRun(st.w)
		}
		st.open[e] = st.init(c)
		if ck := st.slice(c); len(ck) == 0 {
			cr := st.fin(&st.open[e])
			st.open[e] = *new(H)
			st.acc(&st.open[d], cr)
		} else if cr, ok := st.foldKids(c, ck, e); ok {
			st.acc(&st.open[d], cr) // taken again: a deeper level may have moved open
		} else {
			st.levels = append(st.levels, level[N, H]{n: n, h: st.open[d], rest: kids[i+1:], inProg: true})
			st.open[d] = *new(H)
			return r, false
		}
	}
	r = st.fin(&st.open[d])
	st.open[d] = *new(H)
	return r, true
}

// listDown lists c, the child at position idx of the top frame, whose
// children kids were read from its slice and whose heap is in open[0], as
// the loop does while deep or dry, and returns the new top frame. Along a
// chain it goes on down by itself: a node of a single child gets a frame
// with no slot in the buffer (nothing is dealt from it, so the position
// is never read), and its child is entered at once, unless a request or a
// deal must be answered first (it looks where the loop would); then the
// child is listed as the frame's unstarted child, for the loop. It stops
// at a node of no child or of several.
func (st *state[N, H, R]) listDown(c N, kids []N, idx int) *frame[N, H, R] {
	for {
		h := st.open[0]
		st.open[0] = *new(H)
		base := len(st.kids)
		if len(kids) != 1 {
			st.kids = AppendKids(st.kids, kids)
			return st.push(c, h, base, idx)
		}
		f := st.push(c, h, base, idx)
		c = kids[0]
		if st.dry {
			if st.w.Canceled() { // as the loop does while dry
				st.w.Abort(nil)
			}
		} else if atomic.LoadUintptr(st.word) == 0 && st.poll.WorkRequested() || st.sched != nil && st.sched.Deal() {
			st.kids = append(st.kids, c)
			f.hi++
			if !st.poll.WorkRequested() {
				st.forced = true // the deal is the loop's to make
			}
			return f
		}
		if st.ticks++; st.ticks%ctxEvery == 0 {
			st.checkRun(st.w)
		}
		idx = base
		st.open[0] = st.init(c)
		if kids = st.slice(c); len(kids) == 0 { // a leaf: delivered to f
			r := st.fin(&st.open[0])
			st.open[0] = *new(H)
			st.acc(&f.h, r)
			return f
		}
	}
}

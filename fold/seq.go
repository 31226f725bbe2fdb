package fold

import (
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/tree"
)

// Seq is a plain recursion for the first levels and an explicit stack
// below them.
//
// Near the root it recurses on the goroutine stack exactly as a
// hand-written fold would: a node's heap lives in a slice indexed by depth.
// With a slice Treeish (tree.FromSlice), foldKids ranges over a node's
// children slice and folds each child by a direct call. With a push
// Treeish, one yield function, made once, folds the child it is given (the
// yield is the recursion: it calls the Treeish with itself) and
// accumulates the result into its parent's heap, so a node's children are
// folded while the Treeish is still yielding them. Nothing is allocated
// per node. Recursion stops at depth recDepth: a node found there is
// folded by the explicit-stack loop (stackFolder, see stack.go), whose
// memory is the heap, so a chain of 10^6 nodes costs recDepth frames of
// goroutine stack and the rest on the heap, in chunks.
//
// Invariant: hs[d] holds the heap of the node being folded at depth d
// while that node is open, and the zero H otherwise, so that a finalised
// heap is not kept reachable. Pointers into hs are taken again after every
// recursive call (a deeper level may grow hs and move it).

// recDepth bounds the recursion of Seq on the goroutine stack: a few
// hundred bytes per level, so tens of kilobytes at most.
const recDepth = 128

type seqFolder[N, H, R any] struct {
	init  func(N) H
	acc   func(*H, R)
	fin   func(*H) R
	g     tree.Treeish[N]
	slice func(N) []N  // g's slice function, if it has one (see foldSlice)
	hs    []H          // heaps of the open nodes, by depth
	d     int          // depth of the next node to open; hs[d-1] is the parent's
	yield func(N) bool // folds a child of the node at depth d-1
	deep  *stackFolder[N, H, R]
	// w is the participant of the run that Run folds on a pool of
	// parallelism 1 (nil for Seq), and canceled its run's canceled flag:
	// before each node the folder looks at the flag, and every ctxEvery
	// nodes at the run's context (see due).
	w        *forkjoin.Worker
	canceled *atomic.Bool
	ticks    uint32
}

func newSeqFolder[N, H, R any](f Fold[N, H, R], g tree.Treeish[N]) *seqFolder[N, H, R] {
	s := &seqFolder[N, H, R]{init: f.Init, acc: f.Accumulate, fin: f.Finalize, g: g,
		slice: g.SliceFunc(), hs: make([]H, 0, 16)}
	s.yield = func(c N) bool {
		d := s.d
		if d == len(s.hs) { // a new depth, or the explicit stacks'
			r := s.fold(c) // returns with s.d as it found it
			s.acc(&s.hs[d-1], r)
			return true
		}
		// fold's body for a depth that has its slot already: one call
		// less per node than calling fold.
		if s.due() {
			checkRun(s.w)
		}
		s.hs[d] = s.init(c)
		s.d = d + 1
		s.g.Each(c, s.yield)
		s.d = d
		r := s.fin(&s.hs[d])
		var zero H
		s.hs[d] = zero
		s.acc(&s.hs[d-1], r)
		return true
	}
	return s
}

// due is the look before each node of a fold that has a run (s.w): it
// reports whether the fold must call checkRun, which is when the run was
// canceled (one load: the run's flag, core.RunControl.CanceledFlag) or, every
// ctxEvery nodes, to look at the run's context. The core learns of a done
// context from a goroutine of the context's, which may wait for a
// processor; the look at the context itself bounds that wait. (The call
// of checkRun is at each call site: with it inside, due would cost more
// than the compiler inlines.)
func (s *seqFolder[N, H, R]) due() bool {
	c := s.canceled
	if c == nil {
		return false
	}
	s.ticks++
	return c.Load() || s.ticks%ctxEvery == 0
}

// ctxEvery is how many nodes a sequential fold with a run folds between
// two looks at the run's context.
const ctxEvery = 256

// checkRun unwinds the fold on w, with the run's cancellation, if the run
// was canceled or its context is done.
func checkRun(w *forkjoin.Worker) {
	if w.Canceled() {
		w.Abort(nil)
	}
	if err := w.Context().Err(); err != nil {
		w.Abort(err)
	}
}

// run folds the subtree of root.
func (s *seqFolder[N, H, R]) run(root N) R {
	if s.slice != nil {
		return s.foldSlice(root)
	}
	return s.fold(root)
}

// fold folds the subtree of n, at depth s.d.
func (s *seqFolder[N, H, R]) fold(n N) R {
	if s.due() {
		checkRun(s.w)
	}
	d := s.d
	if d == len(s.hs) {
		if d == recDepth {
			return s.foldDeep(n)
		}
		var zero H
		s.hs = append(s.hs, zero)
	}
	s.hs[d] = s.init(n)
	s.d = d + 1
	s.g.Each(n, s.yield)
	s.d = d
	r := s.fin(&s.hs[d])
	var zero H
	s.hs[d] = zero
	return r
}

// foldSlice folds the subtree of root when g has a slice function: the
// children are read from the slice, each folded by a direct call, with no
// yield function between a node and its children.
func (s *seqFolder[N, H, R]) foldSlice(root N) R {
	if s.due() {
		checkRun(s.w)
	}
	if len(s.hs) == 0 {
		var zero H
		s.hs = append(s.hs, zero)
	}
	s.hs[0] = s.init(root)
	if kids := s.slice(root); len(kids) > 0 {
		s.foldKids(kids, 0)
	}
	r := s.fin(&s.hs[0])
	var zero H
	s.hs[0] = zero
	return r
}

// foldKids folds kids, the children of the node open at depth d, and
// accumulates their results into its heap. A leaf, most nodes of a bushy
// tree, is folded without a call of its own.
func (s *seqFolder[N, H, R]) foldKids(kids []N, d int) {
	e := d + 1 // the children's depth
	if e == recDepth {
		for _, c := range kids {
			s.acc(&s.hs[d], s.foldDeep(c))
		}
		return
	}
	if e == len(s.hs) {
		var zero H
		s.hs = append(s.hs, zero)
	}
	for _, c := range kids {
		if s.due() {
			checkRun(s.w)
		}
		s.hs[e] = s.init(c)
		if ck := s.slice(c); len(ck) > 0 {
			s.foldKids(ck, e)
		}
		r := s.fin(&s.hs[e])
		var zero H
		s.hs[e] = zero
		s.acc(&s.hs[d], r) // taken again: a deeper level may have moved hs
	}
}

// foldDeep folds the subtree of n, at depth recDepth, with explicit
// stacks.
func (s *seqFolder[N, H, R]) foldDeep(n N) R {
	if s.deep == nil {
		s.deep = newStackFolder(s.init, s.acc, s.fin, s.g)
		s.deep.w, s.deep.canceled, s.deep.ticks = s.w, s.canceled, &s.ticks
	}
	return s.deep.fold(n)
}

// frame is a node in progress: its heap, and its segment of the kidStack,
// kids[start:], whose children from next on are still to enter.
type frame[H any] struct {
	h           H
	start, next int
}

// Seq runs f over the tree below root on the calling goroutine and returns
// the root's result.
//
// Near the root it is a plain recursion (a node's children are folded one
// by one, read from their slice if g was made by tree.FromSlice, else as g
// yields them); from depth 128 on it continues with explicit
// stacks, so the depth of the tree is limited only by memory: below that
// depth, memory in use is one frame (a heap and two ints) per node on the
// current path plus one slot per child of those nodes not yet entered, and
// a node's children are collected into a reused buffer when the node is
// entered, before its first child is folded. Seq allocates nothing per
// node itself, and keeps its stacks for a later call on the same types
// (in a sync.Pool), so a deep tree's are made once, not at every call.
//
// Seq panics with an error wrapping ErrNilFunc if a callback is nil or g
// is the zero Treeish, and with one wrapping tree.ErrCycle if g reaches a
// node again below itself (see tree.ErrCycle). A panic in a callback or in
// g propagates unchanged.
func Seq[N, H, R any](f Fold[N, H, R], g tree.Treeish[N], root N) R {
	mustCheck("fold.Seq", f, g)
	s := takeSeqFolder(f, g)
	r := s.run(root) // if it panics, s is dropped
	putSeqFolder(s)
	return r
}

// stackFolder folds a subtree with explicit stacks instead of recursion;
// its stacks are kept for the next subtree (they are empty between folds).
type stackFolder[N, H, R any] struct {
	init     func(N) H
	acc      func(*H, R)
	fin      func(*H) R
	g        tree.Treeish[N]
	ks       *kidStack[N]
	fs       frameStack[frame[H]]
	spare    *frame[H]
	slice    func(N) []N        // g's slice function, if it has one
	cycle    walk.CycleCheck[N] // a node that is its own descendant
	w        *forkjoin.Worker   // as seqFolder's, counting in *ticks
	canceled *atomic.Bool
	ticks    *uint32
}

// due is seqFolder's due.
func (s *stackFolder[N, H, R]) due() bool {
	c := s.canceled
	if c == nil {
		return false
	}
	*s.ticks++
	return c.Load() || *s.ticks%ctxEvery == 0
}

func newStackFolder[N, H, R any](init func(N) H, acc func(*H, R), fin func(*H) R, g tree.Treeish[N]) *stackFolder[N, H, R] {
	return &stackFolder[N, H, R]{init: init, acc: acc, fin: fin, g: g, slice: g.SliceFunc(),
		ks: newKidStack[N](), fs: newFrameStack[frame[H]](), spare: new(frame[H])}
}

func (s *stackFolder[N, H, R]) fold(root N) R {
	init, acc, fin, g := s.init, s.acc, s.fin, s.g
	ks, fs, spare := s.ks, &s.fs, s.spare
	top := fs.push(frame[H]{h: init(root)})
	ks.list(g, root)
	depth := 0 // of top
	for {
		if top.next < len(ks.kids) {
			if s.due() {
				checkRun(s.w)
			}
			c := ks.take(top.start, &top.next)
			at := fs.slot(spare)
			start := len(ks.kids)
			*at = frame[H]{h: init(c), start: start, next: start}
			if slice := s.slice; slice != nil {
				kids := slice(c)
				for len(kids) == 1 {
					// A chain: c's frame needs no slot for its only child,
					// which is entered at once.
					if depth++; depth >= walk.CycleFrom && depth%walk.CycleStride == 0 {
						s.cycle.Enter(c, depth)
					}
					top = fs.commit(at, spare)
					if s.due() {
						checkRun(s.w)
					}
					c = kids[0]
					at = fs.slot(spare)
					*at = frame[H]{h: init(c), start: start, next: start}
					kids = slice(c)
				}
				ks.kids = walk.AppendKids(ks.kids, kids)
			} else {
				g.Each(c, ks.push)
			}
			if len(ks.kids) > start {
				if depth++; depth >= walk.CycleFrom && depth%walk.CycleStride == 0 {
					s.cycle.Enter(c, depth)
				}
				top = fs.commit(at, spare)
				continue
			}
			r := fin(&at.h) // a leaf: finalised in place, never pushed
			*at = frame[H]{}
			acc(&top.h, r)
			continue
		}
		r := fin(&top.h)
		ks.kids = ks.kids[:top.start] // the node's segment, all taken
		if top = fs.pop(); top == nil {
			s.cycle.Reset()
			return r
		}
		depth--
		acc(&top.h, r)
	}
}

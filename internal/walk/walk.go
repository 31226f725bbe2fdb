// Package walk is the parallel engine behind fold.Run and tree.Walk: a
// depth-first fold over a tree given by a children function, run on the
// work-stealing core, with unvisited children handed to other participants
// on demand.
//
// # How one participant walks
//
// A walk keeps an explicit stack of frames — never the goroutine stack, so
// a 10^6-deep chain costs 10^6 frames of heap memory and nothing else. A
// frame is a node in progress: its heap H and the segment of a shared
// buffer that holds its children, collected when the node is entered
// (after its Init). The walk takes the next unvisited child of the top
// frame and enters it; when a frame has no unvisited child left, it is
// finalised, popped (its heap is released at once), and its result is
// accumulated into the frame below. Children are therefore accumulated in
// the order the children function yields them, one at a time, on the
// goroutine that owns the heap: Accumulate never runs concurrently on one
// heap.
//
// # How work moves
//
// At every node the walk asks the core whether another participant wants
// work (Worker.WorkRequested: one load of the worker's own memory). If so,
// it gives away the LAST unvisited child of the OLDEST frame that has one
// (the biggest piece of work it holds, like a thief stealing from the top
// of a deque): the frame's range shrinks by one and the child goes into a
// "pub" record, appended to the frame's list of published children and
// pushed to the worker's deque. Since it always takes the last unvisited
// child, the published children of a frame have increasing indices after
// all of its own ones, and the list is kept in that order.
//
// When a frame has visited its own children it turns to its published ones,
// in order. Each pub is claimed exactly once with a CAS: by a thief that
// took the task, which walks the child's subtree on its own stack and
// stores the result; or by the frame's owner, which finds it unclaimed and
// simply enters the child like an own child (no recursion). If a thief has
// it, the owner helps with other work until the thief completes it, then
// accumulates its result. Either way the results reach the heap in child
// order.
//
// # Failure
//
// A panic in a callback unwinds the walk; a deferred clean-up records it
// as the run's failure (before anyone can see the run cancelled), cancels
// the run and, for every pub of this walk that a thief claimed, waits for the
// thief to finish (so no callback of the run runs after the run returns),
// then lets the panic continue to the core's task boundary. A thief's walk
// that fails marks its pub failed; the owner then aborts too. Cancellation
// reaches a walk through WorkRequested, which unwinds it the same way.
package walk

import (
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/forkjoin"
)

// Ops are a fold's callbacks and the children function.
type Ops[N, H, R any] struct {
	Init       func(n N) H
	Accumulate func(h *H, child R)
	Finalize   func(h *H) R
	Children   func(n N, yield func(child N) bool)
}

// Run folds the tree below root on w's run, sharing it with the other
// participants of the pool, and returns the root's result.
func Run[N, H, R any](w *forkjoin.Worker, ops *Ops[N, H, R], root N) R {
	return walk(w, ops, root)
}

// pub is a published child: a task a thief may run, or its owner take back.
type pub[N, H, R any] struct {
	task   forkjoin.Task // first field: *forkjoin.Task converts back to *pub
	ops    *Ops[N, H, R]
	node   N
	res    R
	claim  atomic.Bool // set once, by whoever walks the child
	failed atomic.Bool
	done   forkjoin.Completion
	next   *pub[N, H, R]
}

type frame[N, H, R any] struct {
	h      H
	base   int           // start of this frame's children in the buffer
	lo, hi int           // unvisited own children: kids[lo:hi]
	pubs   *pub[N, H, R] // published children, in child order
}

type state[N, H, R any] struct {
	ops    *Ops[N, H, R]
	kids   []N
	frames []frame[N, H, R]
	low    int // frames below low have no unvisited child
	yield  func(N) bool
	ticks  uint32
	leaf   H // the heap of the leaf being finalised
}

// ctxEvery is how many nodes a walk visits between two looks at its run's
// context. The core learns of a done context from a goroutine that may wait
// for a free processor while every worker is busy; looking every few
// hundred nodes bounds the delay to a few microseconds for ~20 ns.
const ctxEvery = 256

func walk[N, H, R any](w *forkjoin.Worker, ops *Ops[N, H, R], root N) (result R) {
	st := &state[N, H, R]{ops: ops}
	st.yield = func(c N) bool {
		st.kids = append(st.kids, c)
		return true
	}
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
			top.lo++
			if r, leaf := st.enter(c); leaf {
				ops.Accumulate(&top.h, r) // no frame was pushed: top is valid
			}
			continue
		}
		if p := top.pubs; p != nil {
			top.pubs = p.next
			if p.claim.CompareAndSwap(false, true) {
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
		st.kids = st.kids[:top.base]
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

// enter starts node n: Init, then its children into the buffer, then a
// frame on top. A leaf gets no frame: it is finalised at once and its
// result returned with leaf true, for the caller to accumulate.
func (st *state[N, H, R]) enter(n N) (r R, leaf bool) {
	h := st.ops.Init(n)
	base := len(st.kids)
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
	st.frames = append(st.frames, frame[N, H, R]{h: h, base: base, lo: base, hi: len(st.kids)})
	return r, false
}

// offer publishes the last unvisited child of the oldest frame that has
// one (for the top frame, only if it has two or more: the next one is
// about to be visited anyway).
func (st *state[N, H, R]) offer(w *forkjoin.Worker) {
	top := len(st.frames) - 1
	i := st.low
	for i <= top && st.frames[i].lo >= st.frames[i].hi {
		i++
	}
	st.low = i
	if i > top || (i == top && st.frames[i].hi-st.frames[i].lo < 2) {
		return
	}
	f := &st.frames[i]
	f.hi--
	p := &pub[N, H, R]{ops: st.ops, node: st.kids[f.hi]}
	p.task.Init(runPub[N, H, R])
	// Published children of one frame are taken from the end of its range,
	// so each new one precedes all earlier ones: prepend.
	p.next = f.pubs
	f.pubs = p
	w.Push(&p.task)
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
	}()
	if w.Cancelled() {
		return
	}
	p.res = walk(w, p.ops, p.node)
	ok = true
}

// abandon runs while a panic (a callback's, or the core's unwinding on
// cancellation) leaves the walk: cancel the run, and wait for every pub a
// thief claimed, so that nothing of this walk runs after it is gone.
func (st *state[N, H, R]) abandon(w *forkjoin.Worker) {
	w.Cancel(nil)
	for i := range st.frames {
		for p := st.frames[i].pubs; p != nil; p = p.next {
			if !p.claim.CompareAndSwap(false, true) {
				w.Wait(&p.done)
			}
		}
		st.frames[i] = frame[N, H, R]{}
	}
}

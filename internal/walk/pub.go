package walk

import (
	"unsafe"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
)

// This file is a published child's life: the task a thief runs (runPub,
// runRange), and what the owner does when a walk fails (abandon, takeBack).

// runPub is a pub's task: walk the child on this worker, unless its owner
// took it back first.
func runPub[N, H, R any](w *forkjoin.Worker, t *forkjoin.Task) {
	p := (*pub[N, H, R])(unsafe.Pointer(t)) // unsafe.Pointer rule (1): t is pub's first field
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
	if w.Canceled() {
		return // the pub fails, and its owner aborts when it finds it so
	}
	if err := w.Context().Err(); err != nil || p.ops.stopped.Load() {
		// The run is to be canceled, and the core may not have learnt it
		// yet (see ctxEvery and Ops.Stop): cancel it for everyone.
		w.Cancel(err)
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
			st.checkRun(w) // as the loop does: its look does not come for leaves
		}
		r, done := st.descend(p.nodes[lo], -1)
		if !done {
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

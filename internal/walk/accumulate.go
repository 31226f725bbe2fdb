package walk

import (
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
)

// This file is how results reach a frame's heap in child order once some of
// its children are published: deliver, the res window of results that wait,
// the step of a frame with pubs, and flush.

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
		if r, done := st.descend(c, int(f.lo-1)); done {
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
			if p.results != nil { // a dealt range's, never written
				st.keepResults(p.results)
				p.results = nil
			}
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
		if r, done := st.descend(c, p.first); done {
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
const maxSpareResults = 16

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

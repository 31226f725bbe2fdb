package walk

import (
	"context"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
)

// This file is how a walk hands work out: answering a request (answer,
// offer, dealHeld), sharing a node's children while they are being listed
// (stream, share, endStream), and the Schedule that tests use to force
// deals.

// Schedule forces hand-offs: the walks of a fold run under a context made
// by WithSchedule deal work without waiting for another participant to ask.
// Its methods are called from every participant of the run, concurrently.
type Schedule interface {
	// Deal is called at the top of the walk's loop, about once per node,
	// when no participant is asking for work; if it returns true the walk
	// deals the first unstarted child (or range of children) of its oldest
	// frame that has any, as if a participant had asked.
	Deal() bool
	// Dealt is called after such a deal, before the walk goes on, with
	// taken, which reports whether another participant has taken the
	// dealt work. It may wait, boundedly, until taken returns true, so
	// that the work really moves; work nobody took is walked by its owner
	// later, as always.
	Dealt(taken func() bool)
}

// scheduleKey is the context key of WithSchedule.
type scheduleKey struct{}

// WithSchedule returns a copy of ctx under which every walk of a fold run
// (fold.RunCtx, and the folds of tree's walks that take a context) follows
// s. The dealt work goes through the same hand-off path as work a thief
// asked for, whatever the parallelism, so that tests force that path
// instead of leaving it to how fast a thief wakes up. fold/foldtest runs
// its checks under it.
func WithSchedule(ctx context.Context, s Schedule) context.Context {
	return context.WithValue(ctx, scheduleKey{}, s)
}

// scheduleOf returns the Schedule of ctx, or nil.
func scheduleOf(ctx context.Context) Schedule {
	s, _ := ctx.Value(scheduleKey{}).(Schedule)
	return s
}

// forceDeal answers as if a participant had asked for work, and lets the
// run's Schedule wait for a taker of what was dealt.
func (st *state[N, H, R]) forceDeal(w *forkjoin.Worker) {
	st.dealt = nil
	st.answer(w)
	if p := st.dealt; p != nil {
		st.dealt = nil
		st.ops.sched.Dealt(p.claim.Load)
	}
}

// noteDealt remembers the pub offer is about to push, for forceDeal; only
// under a Schedule, so that no finished pub stays reachable otherwise.
func (st *state[N, H, R]) noteDealt(p *pub[N, H, R]) {
	if st.ops.sched != nil {
		st.dealt = p
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
			// looking (dry) until there is. A request that a fork's slow
			// path answered with a private fork does not stand: the next
			// one may find another.
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
	f.hi = f.base + 1 // the frame was just pushed: not ranged yet
	f.pubs = ps
	f.base |= rangedBit
	st.streamed, st.lastStreamed = nil, nil
}

// offer publishes the first unstarted children of the oldest frame that has
// some (for the top frame, only if it has two or more: the next one is
// about to be visited anyway, unless inChild says that the top frame's
// child is being listed), and reports whether it found any.
//
// Children are dealt from the front, in child order: the frame's results
// are accumulated in child order, so whatever a thief is given right after
// the child the owner is walking can be accumulated as soon as both are
// done, while the owner goes on with the next ones (their results wait in
// the frame's res meanwhile). Dealing from the back would leave the
// accumulation of everything the thieves made for the end, one result
// after another, once the owner's own part is done: where Accumulate is
// the costly callback, that serial tail is what the run waits for. One
// child is dealt at a time unless many are left: then an eighth of them,
// as one range, which its taker may split again (see dealSize).
//
// On a wide node (backFrom children or more left) the range is dealt from
// the back instead: it becomes the first of the frame's ahead pubs, and
// the owner goes on with its own range in order, accumulating each result
// as it comes, with nothing waiting in res; the range's results are
// accumulated when the owner gets to it. Dealt from the front, every one
// of the many own results after it would wait in res, and on a node of
// cheap leaves that bookkeeping costs the owner more than the thief saves
// it.
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
		own := int(f.hi) - first
		k := dealSize(own)
		back := own >= backFrom // a wide node's range: its last k (see above)
		if back {
			first = int(f.hi) - k
		}
		if k == 1 {
			p = &pub[N, H, R]{ops: st.ops, node: st.kids[first]}
			var zero N
			st.kids[first] = zero
			p.task.Init(runPub[N, H, R])
		} else {
			p = newRangePub(st.ops, st.kids[first:first+k:first+k], st.results(k))
			f.base |= rangedBit
		}
		p.first, p.end = first, first+k
		if back {
			f.hi -= pos(k)
			p.next, ps.ahead = ps.ahead, p // ahead of the own range
		} else {
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
		}
	} else if p = st.dealHeld(w, ps); p == nil {
		return true // the whole tail was pushed
	}
	st.ops.pending.Add(1)
	st.noteDealt(p)
	core.Push(w, &p.task)
	return true
}

// dealHeld deals from the held tail of a frame whose pubs are ps: its first
// children become a new pub, returned for offer to push, placed just before
// the tail among the ahead pubs; or, if the tail is small, the tail itself
// is pushed whole (it counts in pending since share) and dealHeld returns
// nil.
func (st *state[N, H, R]) dealHeld(w *forkjoin.Worker, ps *pubs[N, H, R]) *pub[N, H, R] {
	t := ps.held
	n := len(t.nodes)
	k := dealSize(n)
	if k == n {
		ps.held = nil
		t.results = st.results(n) // a range now
		st.noteDealt(t)
		core.Push(w, &t.task)
		return nil
	}
	var p *pub[N, H, R]
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
	return p
}

// rangeMin is the number of unstarted children from which offer deals a
// range rather than a single child, and dealDiv the part of them it deals.
const (
	rangeMin = 16
	dealDiv  = 8
)

// backFrom is the number of unstarted children of a frame from which offer
// deals a range from the back of them rather than from the front (a wide
// node; see offer). A node of a few dozen children keeps the front deal.
const backFrom = 128

// dealSize is how many of n unstarted children offer deals at once.
func dealSize(n int) int {
	if n < rangeMin {
		return 1
	}
	return n / dealDiv
}

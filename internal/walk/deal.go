package walk

import (
	"context"

	"github.com/forkjoin-go/forkjoin/forkjoin"
)

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

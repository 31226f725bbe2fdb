package walk

import (
	"reflect"
	"slices"
	"sync"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
)

// This file keeps walk states for reuse, per type.

// States are reused through a sync.Pool per type, so that a walk's buffers
// grow once and then stay: a deep chain costs its frames once, not once
// per run, and not once per pool either (a pool's workers, and their
// per-participant storage, go when the pool is closed; Seq keeps its
// stacks the same way). A walk nested in another on the same participant
// (a range it took back, a task it helps with while it waits) takes
// another state. A state is put back only after a walk that returned
// normally, cleared (putState); buffers above maxKept entries are not
// kept.
var statePools sync.Map // reflect.Type of state[N, H, R] -> *sync.Pool

const maxKept = 1 << 22

func statePoolOf[N, H, R any]() *sync.Pool {
	t := reflect.TypeFor[state[N, H, R]]()
	if p, ok := statePools.Load(t); ok {
		return p.(*sync.Pool)
	}
	p, _ := statePools.LoadOrStore(t, new(sync.Pool))
	return p.(*sync.Pool)
}

func getState[N, H, R any](w *forkjoin.Worker, ops *Ops[N, H, R]) *state[N, H, R] {
	st, _ := statePoolOf[N, H, R]().Get().(*state[N, H, R])
	if st == nil {
		st = &state[N, H, R]{}
		st.yield = func(c N) bool {
			st.kids = append(st.kids, c)
			if (len(st.kids)-st.listing)%streamEvery == 0 && st.poll.WorkRequested() {
				st.stream()
			}
			return true
		}
		st.foldYield = newFoldYield(st)
		st.open = make([]H, 1, 8) // open[0]: a descent's own child
	}
	st.ops = ops
	st.init, st.acc, st.fin, st.children, st.sched = ops.Init, ops.Accumulate, ops.Finalize, ops.Children, ops.sched
	st.w, st.poll = w, core.PollOf(w)
	st.word = st.poll.Word()
	return st
}

// putState gives back a state whose walk finished normally: every frame
// was popped (and zeroed) and every child reference cleared.
func putState[N, H, R any](st *state[N, H, R]) {
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
	st.ops, st.w, st.poll, st.word, st.dealt = nil, nil, core.Poll[forkjoin.Worker]{}, nil, nil
	st.init, st.acc, st.fin, st.children, st.sched = nil, nil, nil, nil, nil
	st.kids = st.kids[:0]
	st.frames.reset()
	st.low, st.ticks, st.dry, st.forced, st.deep = 0, 0, false, false, false
	st.cycle.Reset()
	statePoolOf[N, H, R]().Put(st)
}

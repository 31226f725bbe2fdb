package walk

import (
	"reflect"
	"slices"
	"sync"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
)

// This file keeps walk states for reuse, per participant and type.

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
	st.ops, st.w, st.poll, st.word, st.dealt = nil, nil, core.Poll[forkjoin.Worker]{}, nil, nil
	st.init, st.acc, st.fin, st.children, st.sched = nil, nil, nil, nil, nil
	st.kids = st.kids[:0]
	st.frames.reset()
	st.low, st.ticks, st.dry, st.forced, st.deep = 0, 0, false, false, false
	st.cycle.Reset()
	ss := stackOf[N, H, R](w)
	ss.free = append(ss.free, st)
}

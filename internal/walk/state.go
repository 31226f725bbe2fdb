package walk

import (
	"reflect"
	"slices"
	"sync"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"github.com/forkjoin-go/forkjoin/internal/typepool"
)

// This file keeps walk states for reuse, per participant and type.

// States are reused, so that a walk's buffers grow once and then stay: a
// deep chain costs its frames once, not once per run. Each participant
// keeps a stack of free states per type (core.Local), which no collection
// empties; a walk nested in another on the same participant (a range it
// took back, a task it helps with while it waits) takes another one. When
// the pool is closed, the states its participants kept go to a sync.Pool
// per type (Release), where the participants of a later pool find them:
// a new pool need not make a deep chain's frames anew either (Seq keeps
// its stacks in a sync.Pool too). A state is kept only after a walk that
// returned normally, cleared (putState); buffers above maxKept entries
// are not kept.
var stateKeys sync.Map // reflect.Type of state[N, H, R] -> *stateKey

type stateKey struct{ _ byte }

// stateStack is a participant's free states of one type.
type stateStack[N, H, R any] struct{ free []*state[N, H, R] }

// Release gives the stack's states to the type's sync.Pool; the core calls
// it when the participant's pool is closed, every task being over.
func (ss *stateStack[N, H, R]) Release() {
	for i, st := range ss.free {
		statePoolOf[N, H, R]().Put(st)
		ss.free[i] = nil
	}
	ss.free = nil
}

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

func statePoolOf[N, H, R any]() *sync.Pool { return typepool.For[state[N, H, R]]() }

func getState[N, H, R any](w *forkjoin.Worker, ops *Ops[N, H, R]) *state[N, H, R] {
	ss := stackOf[N, H, R](w)
	var st *state[N, H, R]
	if n := len(ss.free); n > 0 {
		st = ss.free[n-1]
		ss.free[n-1] = nil
		ss.free = ss.free[:n-1]
	} else {
		st, _ = statePoolOf[N, H, R]().Get().(*state[N, H, R])
	}
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
	st.init, st.acc, st.fin, st.children, st.slice, st.sched = ops.Init, ops.Accumulate, ops.Finalize, ops.Children, ops.Slice, ops.sched
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
	st.init, st.acc, st.fin, st.children, st.slice, st.sched = nil, nil, nil, nil, nil, nil
	st.kids = st.kids[:0]
	st.frames.reset()
	// ticks goes on counting: a participant that walks many small pubs,
	// one after the other with this state, still looks at its run every
	// ctxEvery nodes (checkRun).
	st.low, st.dry, st.forced, st.deep = 0, false, false, false
	st.cycle.Reset()
	ss := stackOf[N, H, R](w)
	ss.free = append(ss.free, st)
}

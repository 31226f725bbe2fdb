package forkjoin

// Catching Pool.Close called from inside a run of the pool, which would
// wait for itself.

import (
	"reflect"
	"runtime"

	"github.com/forkjoin-go/forkjoin/internal/goroutine"
)

// errCloseInRun is Pool.Close's panic when called on a goroutine that is
// inside a run of the pool (pool.Close itself catches the pool's workers).
const errCloseInRun = "forkjoin: Pool.Close called from inside a run of the pool (a Run's root, a For body, a fold callback, or a task helped with in Join or Wait): Close waits for that work, so it would wait for itself"

// runInProgress reports whether some caller is inside a run of s now.
func (s *scheduler) runInProgress() bool {
	for _, w := range *s.participants.Load() {
		if w.poolIndex < 0 && w.inUse.Load() {
			return true
		}
	}
	return false
}

// onParticipant reports whether the calling goroutine is a participant
// whose goroutine is known (Worker.goid): a compensating goroutine, or a
// Group's Wait (the pool's own workers are caught by pool.Close itself).
func (s *scheduler) onParticipant() bool {
	me := goroutine.ID()
	for _, w := range *s.participants.Load() {
		if w.goid.Load() == me {
			return true
		}
	}
	return false
}

// runOnEntry is the entry address of runOn, where every run on a caller's
// goroutine (Run, RunCtx, a fold, Join and Wait's helping) starts.
var runOnEntry = runtime.FuncForPC(reflect.ValueOf(runOn).Pointer()).Entry()

// onRunStack reports whether the calling goroutine is inside a run: a
// frame of runOn is on its stack. It compares the entry of each frame's
// function with runOn's (runOn is never inlined, so it has frames of its
// own; FuncForPC gives a frame of a function inlined into runOn runOn's
// entry too), never the text of a name. It walks the whole stack: for
// Close only.
// It cannot tell which pool the run is on: Close of a pool called inside a
// run of another pool, while a third goroutine runs on the first, is taken
// for a Close from inside (closing a pool under a run in progress is a
// misuse in any case).
func onRunStack() bool {
	pcs := make([]uintptr, 64)
	for {
		n := runtime.Callers(2, pcs)
		if n < len(pcs) {
			pcs = pcs[:n]
			break
		}
		pcs = make([]uintptr, 2*len(pcs))
	}
	for _, pc := range pcs {
		// pc is a return address: pc-1 lies in the call's own function.
		if f := runtime.FuncForPC(pc - 1); f != nil && f.Entry() == runOnEntry {
			return true
		}
	}
	return false
}

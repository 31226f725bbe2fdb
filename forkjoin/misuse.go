package forkjoin

import "runtime"

// Catching a Worker used by the wrong goroutine.
//
// A *Worker belongs to the goroutine running the task that received it.
// Go gives a goroutine no cheap identity, so the checks use what the
// worker's state says:
//
//   - checkActive, on the slow paths of forks (answerRequest, a Future
//     misuse), at every closure Join, Push, Wait (internal/core), Spawn, Scope,
//     For and Reduce, in every build: a worker whose owner is parked (waiting for a
//     stolen fork, a Completion or the tasks of a Scope, with nothing to
//     help with) cannot be the caller's, as its owner is asleep. This
//     catches the usual mistake, the outer Worker captured by a spawned
//     task or a Join's branch that another worker runs while the outer
//     one waits;
//   - checkCaller, at Spawner.Spawn, Scope, For and Reduce, adds in
//     race builds a comparison of the calling goroutine's id, read from
//     runtime.Stack, with the owner's (recorded when a Run or a pool
//     worker takes the worker): every use of those from another goroutine
//     is caught, whatever the owner is doing. runtime.Stack costs time in
//     proportion to the depth of the stack, so the fork paths, which run
//     at every level of a deep recursion, do without it.
//
// A use from another goroutine while the owner runs code (is not parked),
// through Join or a fork, is not caught in a normal build; under the race
// detector, the detector reports the data race.

const errForeignWorker = "forkjoin: Worker used outside the task it was given to: " +
	"it belongs to the goroutine running that task (inside a spawned task, a Join's " +
	"branch or a nested Scope, use the *Worker that function received, not an outer one; " +
	"never pass a *Worker to another goroutine)"

// claim records the calling goroutine as w's owner (race builds only).
func (w *Worker) claim() {
	if raceChecks {
		w.owner.Store(w.goroutineID())
	}
}

// checkOwner panics if w's owner is parked: the caller is someone else.
func (w *Worker) checkOwner() {
	if w.parked.Load() {
		panic(errForeignWorker)
	}
}

// checkCaller is checkActive and, in race builds, a comparison of the
// calling goroutine with w's owner (see the file comment).
func (w *Worker) checkCaller() {
	w.checkActive()
	if raceChecks {
		if g := w.owner.Load(); g != 0 && g != w.goroutineID() {
			panic(errForeignWorker)
		}
	}
}

// goroutineID returns the calling goroutine's id, read from the first line
// of its stack ("goroutine 42 [running]:"), or 0. It costs about a
// microsecond, more on a deep stack: race builds only. The buffer is w's,
// taken and given back through an atomic swap (runtime.Stack makes a
// buffer escape), so a check allocates nothing in steady state; two
// goroutines checking w at once (a misuse) use a buffer each.
func (w *Worker) goroutineID() int64 {
	bp := w.stackBuf.Swap(nil)
	if bp == nil {
		bp = new([64]byte)
	}
	b := bp[:runtime.Stack(bp[:], false)]
	const prefix = "goroutine "
	var id int64
	if len(b) > len(prefix) && string(b[:len(prefix)]) == prefix {
		for _, c := range b[len(prefix):] {
			if c < '0' || c > '9' {
				break
			}
			id = id*10 + int64(c-'0')
		}
	}
	w.stackBuf.Store(bp)
	return id
}

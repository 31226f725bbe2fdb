package forkjoin

import (
	"sync"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestWakeAbsorbedByRescan: the pool's one worker, the last searcher,
// leaves the scheduler, and before its rescan a task is spawned: the
// spawn's wakeCheck sees nobody in the scheduler and sets waking, and the
// pool answers that a worker will come (the worker is between its job and
// its park). The rescan finds the task, and the worker stays to run it;
// the task blocks until a second task runs. The second spawn comes while
// the worker is held up: its wakeCheck must not find waking still set by
// the first (it would return without a wake-up or the monitor), but find
// every worker busy and arm the monitor, whose compensator runs the
// second task. A waking bit the rescan did not absorb hangs this test.
func TestWakeAbsorbedByRescan(t *testing.T) {
	defer leakcheck.Check(t)
	p := pool.New(2) // one worker besides the caller
	defer p.Close()
	schedulerOf(p) // the scheduler exists before the hook runs

	release := make(chan struct{})
	started := make(chan struct{})
	var first *Handle[int]
	var once sync.Once
	testHookLeft = func(w *Worker) {
		once.Do(func() {
			first = Spawn(p, func(*Worker) (int, error) {
				close(started)
				<-release
				return 1, nil
			})
		})
	}
	t.Cleanup(func() { testHookLeft = nil })

	// Wake the worker once, so that it searches, finds nothing and leaves.
	Spawn(p, func(*Worker) (int, error) { return 0, nil }).Join()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatalf("the task spawned between the worker's leave and its rescan never started; the scheduler: %s", SchedulerState(p))
	}
	testHookLeft = nil
	second := Spawn(p, func(*Worker) (int, error) {
		close(release)
		return 2, nil
	})
	// Done, unlike Join, does not help: only the pool may run the task.
	select {
	case <-second.Done():
	case <-time.After(30 * time.Second):
		close(release) // let Close finish if the fix is missing
		t.Fatalf("the second task never ran while the first blocked the only worker; the scheduler: %s", SchedulerState(p))
	}
	<-first.Done()
}

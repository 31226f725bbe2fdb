package forkjoin

import (
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestDrainHelperWokenByLastTask: Close's drain takes part in the work
// when it thinks no worker can run the tasks (helpWanted, set when a task
// was submitted while no worker was alive). Helping, it parks when there
// is nothing left to take, while a worker runs the last task. The end of
// that task, which brings pending to zero, must wake it: if only the
// drain's other way of waiting were notified, Close would hang for good
// (as it can inside TestCloseWithConcurrentSpawns under -race).
func TestDrainHelperWokenByLastTask(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	s := schedulerOf(p)
	started, release := make(chan struct{}), make(chan struct{})
	h := Spawn(p, func(*Worker) (int, error) {
		close(started)
		<-release
		return 1, nil
	})
	<-started // on the pool's worker: nobody else runs tasks
	s.helpWanted.Store(true)
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		p.Close()
	}()
	if !testcheck.PollUntil(func() bool { return s.joinParked.Load() == 1 }) {
		t.Fatal("Close's drain never parked while it helped")
	}
	close(release)
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("Close still waits a minute after its last task ended")
	}
	if v, err := h.Join(); v != 1 || err != nil {
		t.Errorf("Join = %d, %v; want 1, nil", v, err)
	}
}

package pool_test

import (
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/poolcore"
	"github.com/forkjoin-go/forkjoin/pool"
)

func TestWakeOneEntersPinnedJob(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(4)
	defer p.Close()

	// A job that returns at once: the worker parks again after each entry.
	var entered atomic.Int64
	quick := &dispatch.Job{Call: func(unsafe.Pointer, int) { entered.Add(1) }}
	(*poolcore.Pool)(p).Pin(quick)
	if !(*poolcore.Pool)(p).WakeOne() {
		t.Fatal("WakeOne reported that no worker will enter")
	}
	if !pollUntil(func() bool { return entered.Load() == 1 }) {
		t.Fatalf("after WakeOne: %d entries into the pinned job, want 1", entered.Load())
	}
	if st := p.Stats(); st.WorkersStarted != 1 {
		t.Fatalf("WakeOne with no parked worker started %d workers, want 1", st.WorkersStarted)
	}
	if !pollUntil(func() bool { return pool.ParkedWorkers(p) == 1 }) {
		t.Fatal("the worker did not park after the job returned")
	}
	if !(*poolcore.Pool)(p).WakeOne() {
		t.Fatal("WakeOne with a parked worker reported that none will enter")
	}
	if !pollUntil(func() bool { return entered.Load() == 2 }) {
		t.Fatalf("after the second WakeOne: %d entries, want 2", entered.Load())
	}
	if st := p.Stats(); st.WorkersStarted != 1 || st.Wakeups < 1 {
		t.Fatalf("the second WakeOne should wake the parked worker, not start one: %d started, %d wake-ups", st.WorkersStarted, st.Wakeups)
	}
	(*poolcore.Pool)(p).Unpin()
	if !pollUntil(func() bool { return pool.ParkedWorkers(p) == 1 }) {
		t.Fatal("the worker did not park after Unpin")
	}

	// A job that holds each worker until released: WakeOne must start a
	// second worker when the only one is busy.
	var in, out atomic.Int64
	release := make(chan struct{})
	holding := &dispatch.Job{Call: func(unsafe.Pointer, int) {
		in.Add(1)
		<-release
		out.Add(1)
	}}
	(*poolcore.Pool)(p).Pin(holding)
	(*poolcore.Pool)(p).WakeOne() // wakes the parked worker
	if !pollUntil(func() bool { return in.Load() == 1 }) {
		t.Fatalf("%d workers in the holding job, want 1", in.Load())
	}
	(*poolcore.Pool)(p).WakeOne() // none parked: starts one
	if !pollUntil(func() bool { return in.Load() == 2 }) {
		t.Fatalf("%d workers in the holding job, want 2", in.Load())
	}
	if st := p.Stats(); st.WorkersStarted != 2 {
		t.Fatalf("WorkersStarted = %d, want 2", st.WorkersStarted)
	}

	mustPanicWith(t, "Dispatch while pinned", func() {
		(*poolcore.Pool)(p).Dispatch(&dispatch.Job{Call: func(unsafe.Pointer, int) {}}, nil)
	}, "pinned")

	// Unpin latches: it returns only after both workers left the job.
	var unpinned atomic.Bool
	var outAtUnpin atomic.Int64
	go func() {
		(*poolcore.Pool)(p).Unpin()
		outAtUnpin.Store(out.Load())
		unpinned.Store(true)
	}()
	// A window in which a broken latch would let Unpin return; a correct
	// one cannot return before the release below, whatever the scheduling.
	time.Sleep(20 * time.Millisecond)
	if unpinned.Load() {
		t.Fatal("Unpin returned while workers were inside the pinned job")
	}
	close(release)
	if !pollUntil(unpinned.Load) {
		t.Fatal("Unpin still latched after the workers left")
	}
	if got := outAtUnpin.Load(); got != 2 {
		t.Fatalf("Unpin returned when %d of 2 workers had left the job", got)
	}
	if (*poolcore.Pool)(p).WakeOne() != true {
		t.Fatal("WakeOne with live workers reported that none will enter")
	}
}

func TestWakeOneWithoutWorkers(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(1) // the caller alone
	defer p.Close()
	(*poolcore.Pool)(p).Pin(&dispatch.Job{Call: func(unsafe.Pointer, int) {}})
	if (*poolcore.Pool)(p).WakeOne() {
		t.Fatal("WakeOne on a pool of parallelism 1 reported that a worker will enter")
	}
	(*poolcore.Pool)(p).Unpin()

	failing := pool.New(3, pool.WithSpawn(func(func()) error { return errInjected }))
	defer failing.Close()
	(*poolcore.Pool)(failing).CountRun()
	(*poolcore.Pool)(failing).Pin(&dispatch.Job{Call: func(unsafe.Pointer, int) {}})
	if (*poolcore.Pool)(failing).WakeOne() {
		t.Fatal("WakeOne reported success although the spawn failed")
	}
	(*poolcore.Pool)(failing).Unpin()
	if st := failing.Stats(); st.SpawnFailures != 1 {
		t.Fatalf("SpawnFailures = %d, want 1", st.SpawnFailures)
	}
}

package forkjoin

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
	"pgregory.net/rapid"
)

// slotWatch installs the LIFO slot's test hooks for one test: it counts
// slot runs, moves at the cap, slot runs beyond the cap while the queue
// held tasks, and participants that went idle with a task in their slot.
type slotWatch struct {
	runs, caps, overCap, idleFull atomic.Int64
}

func watchSlots(t testing.TB) *slotWatch {
	sw := &slotWatch{}
	testHookSlotRun = func(w *Worker, inRow, queued int) {
		sw.runs.Add(1)
		if inRow > lifoCap && queued > 0 {
			sw.overCap.Add(1)
		}
	}
	testHookSlotCap = func(*Worker) { sw.caps.Add(1) }
	testHookIdle = func(w *Worker) {
		if w.slot.held.Load() != nil {
			sw.idleFull.Add(1)
		}
	}
	t.Cleanup(func() { testHookSlotRun, testHookSlotCap, testHookIdle = nil, nil, nil })
	return sw
}

// slotsEmpty reports an error if a participant of s holds a task in its
// slot.
func slotsEmpty(s *scheduler) error {
	for _, w := range *s.participants.Load() {
		if w.slot.held.Load() != nil {
			return fmt.Errorf("participant %d has a task in its slot", w.id)
		}
	}
	return nil
}

// TestSlotCapOrder: at parallelism 1 (the caller alone), a Scope spawns R,
// then the head of a chain in which each task spawns the next. The chain's
// tasks run from the slot, LIFO, ahead of R, but only lifoCap of them: then
// R, which waited in the queue, runs. Without the slot the order is FIFO.
func TestSlotCapOrder(t *testing.T) {
	leakcheck.Check(t)
	for _, on := range []bool{true, false} {
		func() {
			var opts []pool.Option
			if on {
				opts = append(opts, pool.WithLIFOSlot())
			}
			p := pool.New(1, opts...)
			defer p.Close()
			var (
				mu    sync.Mutex // a compensator may run tasks beside the caller
				order []string
			)
			record := func(s string) {
				mu.Lock()
				order = append(order, s)
				mu.Unlock()
			}
			var link func(i int) func(w *Worker)
			var sp *Spawner
			link = func(i int) func(w *Worker) {
				return func(w *Worker) {
					record(fmt.Sprint("C", i))
					if i < 10 {
						sp.Spawn(w, link(i+1))
					}
				}
			}
			Run(p, func(w *Worker) {
				Scope(w, func(s *Spawner) {
					sp = s
					s.Spawn(w, func(*Worker) { record("R") })
					s.Spawn(w, link(0))
				})
			})
			at := -1
			for i, s := range order {
				if s == "R" {
					at = i
				}
			}
			want := lifoCap // C0 .. C2 from the slot, then R
			if !on {
				want = 0
			}
			if len(order) == 12 && p.Stats().CompensatorsStarted != 0 {
				// The run looked stalled (the machine took the caller's
				// processor for milliseconds) and a compensator took
				// tasks beside it: the order is two participants'.
				t.Logf("slot %v: a compensator ran: order %v", on, order)
				return
			}
			if at != want || len(order) != 12 {
				t.Fatalf("slot %v: order %v: R at %d, want %d", on, order, at, want)
			}
		}()
	}
}

// TestSlotBlockedOwner: a task spawns a child (into its participant's
// slot) and blocks until the child has run. The owner never comes back to
// its slot; another participant must take the child from it.
func TestSlotBlockedOwner(t *testing.T) {
	leakcheck.Check(t)
	for _, n := range []int{2, 3} {
		p := pool.New(n, pool.WithLIFOSlot())
		for round := 0; round < 30; round++ {
			done := make(chan struct{})
			go func() {
				defer close(done)
				Run(p, func(w *Worker) {
					Scope(w, func(s *Spawner) {
						s.Spawn(w, func(w *Worker) {
							ch := make(chan struct{})
							s.Spawn(w, func(*Worker) { close(ch) })
							<-ch
						})
					})
				})
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("parallelism %d, round %d: the child in the blocked owner's slot never ran", n, round)
			}
		}
		p.Close()
	}
}

// TestSlotGraphChain: a Graph whose nodes form a chain runs each node
// from the slot of the participant that finished its predecessor.
func TestSlotGraphChain(t *testing.T) {
	leakcheck.Check(t)
	sw := watchSlots(t)
	p := pool.New(2, pool.WithLIFOSlot())
	defer p.Close()
	const n = 200
	g := NewGraph()
	var prev Dep
	var got []int
	for i := 0; i < n; i++ {
		var deps []Dep
		if prev != nil {
			deps = []Dep{prev}
		}
		prev = AddNode(g, func(*Worker) (int, error) { got = append(got, i); return i, nil }, deps)
	}
	if err := g.Run(p); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("node %d ran as %d-th", v, i)
		}
	}
	if len(got) != n || sw.runs.Load() == 0 {
		t.Fatalf("ran %d nodes, %d from a slot", len(got), sw.runs.Load())
	}
}

// TestPropSlotExactlyOnce: random spawn trees (tasks spawning tasks, some
// through nested Scopes that they wait for, of random priorities), random
// parallelism, with panics and cancellation: every spawned task runs at
// most once, exactly once when nothing failed; the pool's counters add up;
// no slot run passes over the queue more than lifoCap times in a row; no
// participant goes idle, and no pool closes, with a task in a slot.
func TestPropSlotExactlyOnce(t *testing.T) {
	leakcheck.Check(t)
	sw := watchSlots(t)
	rapid.Check(t, func(rt *rapid.T) {
		p := pool.New(rapid.IntRange(1, 16).Draw(rt, "parallelism"), pool.WithLIFOSlot())
		s := schedulerOf(p)
		nodes := rapid.IntRange(1, 3000).Draw(rt, "nodes")
		fanout := rapid.IntRange(1, 6).Draw(rt, "fanout")
		panicAt := rapid.IntRange(-1, nodes-1).Draw(rt, "panicAt")
		cancelAt := rapid.IntRange(-1, nodes-1).Draw(rt, "cancelAt")
		nestEvery := rapid.IntRange(0, 5).Draw(rt, "nestEvery")
		prios := rapid.SliceOfN(rapid.IntRange(0, numPriorities-1), nodes, nodes).Draw(rt, "prios")
		ran := make([]atomic.Int32, nodes)
		var next atomic.Int64 // ids handed out
		next.Store(1)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var body func(id int, s *Spawner) func(w *Worker)
		spawnKids := func(w *Worker, s *Spawner) {
			for k := 0; k < fanout; k++ {
				id := int(next.Add(1) - 1)
				if id >= nodes {
					return
				}
				s.Spawn(w, body(id, s), WithPriority(Priority(prios[id])))
			}
		}
		body = func(id int, s *Spawner) func(w *Worker) {
			return func(w *Worker) {
				ran[id].Add(1)
				if id == cancelAt {
					cancel()
				}
				if nestEvery > 0 && id%nestEvery == 0 {
					// Spawn, then wait for what was spawned.
					_ = ScopeCtx(ctx, w, func(s *Spawner) { spawnKids(w, s) })
				} else {
					spawnKids(w, s)
				}
				if id == panicAt {
					panic("boom")
				}
			}
		}
		var err error
		Run(p, func(w *Worker) {
			err = ScopeCtx(ctx, w, func(s *Spawner) { body(0, s)(w) })
		})
		failed := panicAt >= 0 || cancelAt >= 0
		var pe *PanicError
		if !failed && err != nil || err != nil && !errors.As(err, &pe) && !errors.Is(err, context.Canceled) {
			rt.Fatalf("Scope: %v", err)
		}
		p.Close()
		total := int64(0)
		for id := range ran {
			c := ran[id].Load()
			total += int64(c)
			if c > 1 || !failed && c != 1 && int64(id) < next.Load() {
				rt.Fatalf("task %d ran %d times", id, c)
			}
		}
		// Every id below handed was spawned, but the root (id 0), which
		// runs as the Scope's function; every task that ran either
		// completed or panicked, every other one was skipped.
		handed := min(next.Load(), int64(nodes))
		st := p.Stats()
		if st.Submitted != handed-1 || st.Completed+st.Panicked != total-1 ||
			st.Submitted != st.Completed+st.Panicked+st.Canceled {
			rt.Fatalf("stats: submitted %d of %d spawned, completed %d, panicked %d, canceled %d, ran %d",
				st.Submitted, handed-1, st.Completed, st.Panicked, st.Canceled, total-1)
		}
		if err := slotsEmpty(s); err != nil {
			rt.Fatalf("after Close: %v", err)
		}
		if n := sw.overCap.Load(); n != 0 {
			rt.Fatalf("%d slot runs beyond the cap while the queue held tasks", n)
		}
		if n := sw.idleFull.Load(); n != 0 {
			rt.Fatalf("%d times a participant went idle with a task in its slot", n)
		}
	})
	if sw.runs.Load() == 0 || sw.caps.Load() == 0 {
		t.Fatalf("slot runs %d, moves at the cap %d: the slot was not exercised", sw.runs.Load(), sw.caps.Load())
	}
}

// TestSlotFlushedWhenAsked: a participant asked for work (a thief set its
// poll flag) moves its slot's task to its queue, where thieves see it, at
// its next fork.
func TestSlotFlushedWhenAsked(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(1, pool.WithLIFOSlot())
	defer p.Close()
	var inSlot, afterFork, queued int
	Run(p, func(w *Worker) {
		Scope(w, func(s *Spawner) {
			s.Spawn(w, func(*Worker) {})
			if w.slot.held.Load() != nil {
				inSlot++
			}
			w.ask() // as a thief that found nothing does
			Join(w, func(*Worker) {}, func(*Worker) {})
			if w.slot.held.Load() != nil {
				afterFork++
			}
			queued = w.queues[Normal].Len()
		})
	})
	if inSlot != 1 || afterFork != 0 || queued != 1 {
		t.Fatalf("in the slot after the spawn: %d; after the asked fork: %d; queued: %d (want 1, 0, 1)",
			inSlot, afterFork, queued)
	}
}

// TestSlotFlushedLeavingWait: a task run while its participant waits (in
// an inner Scope's Wait) spawns a task of the outer Scope into the slot and
// ends the wait; the participant goes back to the code that waited with
// that task moved to its queue, not hidden in the slot while that code
// runs on.
func TestSlotFlushedLeavingWait(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(1, pool.WithLIFOSlot())
	defer p.Close()
	var afterWait, queued int
	Run(p, func(w *Worker) {
		Scope(w, func(s *Spawner) {
			Scope(w, func(inner *Spawner) {
				inner.Spawn(w, func(w *Worker) {
					s.Spawn(w, func(*Worker) {})
				})
			})
			if w.slot.held.Load() != nil {
				afterWait++
			}
			queued = w.queues[Normal].Len()
		})
	})
	if afterWait != 0 || queued != 1 {
		t.Fatalf("in the slot after the wait: %d; queued: %d (want 0, 1)", afterWait, queued)
	}
}

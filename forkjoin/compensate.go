package forkjoin

// Compensation: extra goroutines while the participants are held up in
// tasks that block.
//
// Go code blocks as a matter of course: a task waits on its group's
// context until a sibling fails, on a channel that a sibling feeds, on a
// WaitGroup, on I/O. A pool of n participants in which n tasks wait for a
// task still queued would wait for ever. The core cannot tell a task that
// blocks from one that computes, so it watches for the symptom instead, as
// .NET's thread pool does for starvation and Go's own scheduler does for a
// system call that does not return: work is queued, and no participant
// has started a task for a while. Then it adds goroutines that run the
// queued tasks (compensators), and retires each as soon as it finds
// nothing to do.
//
// The monitor. A timer per pool watches, and only while it may be needed:
// it is armed when work is made visible while every pool worker is busy
// (wakeCheck could wake nobody), and it stops at the first tick that finds
// no work queued. Its function (monitorTick) runs on a goroutine of its
// own for the length of a tick's look. So an idle pool has no timer
// running and no goroutine beyond its parked workers, and a pool whose
// workers keep up never arms it. Every tick (compTick) it reads every
// participant's beat: it sets each to 1, and a participant clears its own
// when a task it ran is over (execute), so a beat still set at the next
// tick means that participant finished nothing since: a compensator that
// takes a task which blocks in turn is no progress. (A spawn clears the
// beat too: a participant that spawns a burst of tasks moves on.) The pool
// is stalled when work is queued, nobody searches for work, and no beat
// was cleared: every participant is inside a task (or waits, unable to
// run what is queued) and none has moved on.
//
// How many to add. A stall of one tick is let be (a participant stopped
// for a moment by the collector or a busy machine looks the same). From
// the second tick, while processors are to spare (the runtime's count of
// running and runnable goroutines is below the pool's parallelism and
// GOMAXPROCS: the participants are blocked, not computing), it adds
// compensators in a geometric series: one per spare processor, then
// sixteen times as many at each tick the stall lasts (up to compBurst a
// tick; compensators on their way to a task count as spare processors and
// queued tasks taken).
// Unwinding thousands of tasks that wait for the last one takes a few
// ticks, not thousands; a participant held up for a moment (on a
// contended lock, say) brings one or two, not one per queued task. A stall
// whose processors are all busy (long computations, or other goroutines of
// the program) gets one compensator per tick once it has lasted
// compBusyStalls ticks, at a tick that doubles up to compTickMax while it
// lasts: a task that blocks is still freed in the end, and computations
// are not drowned in goroutines.
//
// A compensator is a participant at its top level, like a pool worker: it
// may run any task, any group's included. The tick that starts a burst
// hands its compensators the participants it saw holding tasks (victims),
// and each takes one task: from its own places, the injector, the group
// lane or, on its first look only, one of the victims. Never a batch (it
// would sit behind a task that blocks) and never a look at every
// participant: a burst of thousands costs each compensator a constant,
// going up and coming down, and what is left waiting is the next tick's
// business (and the pool workers'). Each takes a Worker as a Run's caller
// does and gives it back when it retires; the list of participants drops
// the Workers nobody uses (participants.go), so that a burst of thousands
// does not make every later look for work read thousands of empty queues.
//
// Lost arms. The monitor stops only after it stored running = false and
// then found no work; a producer makes its work visible and then loads
// running (wakeCheck). sync/atomic is sequentially consistent, so either
// the monitor's look sees the work (and it arms itself again) or the
// producer sees running = false (and arms).

import (
	"context"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
	"github.com/forkjoin-go/forkjoin/internal/deque"
	"github.com/forkjoin-go/forkjoin/internal/goroutine"
)

const (
	compTick    = time.Millisecond      // the monitor's tick while nothing stalls
	compTickMax = 64 * time.Millisecond // the longest tick of a stall on busy processors
	compBurst   = 4096                  // the most compensators one tick starts
	compGrowth  = 4                     // a stall's bursts grow 2^compGrowth times a tick
	// compBusyStalls is how many ticks a stall with no processor to spare
	// lasts before a compensator is added.
	compBusyStalls = 10
)

// compensation is the scheduler's state for compensating goroutines.
type compensation struct {
	// running is read by every spawn while the workers are busy (arm):
	// a line of its own, apart from what compensators write.
	running atomic.Bool // the monitor is armed (its timer runs or its tick does)
	_       cacheline.Pad
	alive   atomic.Int64 // compensators running
	fresh   atomic.Int64 // compensators started and not yet past their first look
	started atomic.Int64 // compensators ever started (pool.Stats)

	retired    atomic.Int64 // compensators' Workers retired and not yet collected (participants.go)
	collecting atomic.Bool  // a retiring compensator collects them

	mu      sync.Mutex
	stopped bool        // Close: no monitor or compensator starts any more
	timer   *time.Timer // the monitor's: its function is a tick (made on the first arm)
	tick    time.Duration
	cache   []*Worker // retired Workers kept for later compensators, under the scheduler's mu
	spare   sync.Pool // more retired Workers, until the collector takes them
	stalls  int       // stalled ticks in a row
	spared  int       // of those, the last ones in a row with processors to spare
	victims []*Worker // the tick's list of participants holding tasks (reused)
	// wg counts the armed monitor (one, from arm to the tick that ends
	// it) and the compensators running, for Close.
	wg sync.WaitGroup
}

// arm starts the monitor unless it is armed. Called after work was made
// visible while every pool worker was busy (wakeCheck); costs one load
// when the monitor is armed, and allocates nothing but the first time.
func (s *scheduler) arm() {
	c := &s.comp
	if c.running.Load() || !c.running.CompareAndSwap(false, true) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return // running stays true: nothing starts after Close
	}
	c.wg.Add(1)
	c.tick, c.stalls, c.spared = compTick, 0, 0
	s.setBeats()
	if c.timer == nil {
		c.timer = time.AfterFunc(compTick, s.monitorTick)
	} else {
		c.timer.Reset(compTick)
	}
}

// stopCompensation is Close's: it stops the monitor and waits for it and
// for every compensator. Called once every spawned task is over (drain),
// when compensators find nothing and retire.
func (s *scheduler) stopCompensation() {
	c := &s.comp
	c.mu.Lock()
	c.stopped = true
	if c.timer != nil && c.timer.Stop() {
		c.wg.Done() // the armed monitor's tick will not come
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// monitorTick is the monitor's tick, run by its timer on a goroutine of
// its own (see the file comment): it starts compensators if the pool is
// stalled, and sets the timer again while work is queued.
func (s *scheduler) monitorTick() {
	c := &s.comp
	if n, victims := s.queued(true, c.victims[:0]); n > 0 {
		if s.progressed() {
			c.tick, c.stalls, c.spared = compTick, 0, 0
		} else {
			c.stalls++
			s.compensate(n, victims)
		}
		clear(victims)
		c.victims = victims[:0]
		s.setBeats()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped && s.workQueued() {
		c.timer.Reset(c.tick)
		return
	}
	c.running.Store(false)
	if !c.stopped && s.workQueued() && c.running.CompareAndSwap(false, true) {
		c.timer.Reset(c.tick) // work came meanwhile, and nobody armed
		return
	}
	c.wg.Done()
}

// setBeats sets every participant's beat (see the file comment).
func (s *scheduler) setBeats() {
	for _, w := range *s.participants.Load() {
		if w.beat.Load() == 0 {
			w.beat.Store(1)
		}
	}
}

// progressed reports whether the pool moved on since the last setBeats:
// some participant finished a task or spawned one, or some pool worker
// looks for work.
func (s *scheduler) progressed() bool {
	if searching(s.state.Load()) != 0 {
		return true
	}
	for _, w := range *s.participants.Load() {
		if w.beat.Load() == 0 {
			return true
		}
	}
	return false
}

// workQueued reports whether some task waits where a participant at its
// top level would take it. It reads every queue: for the monitor's tick.
func (s *scheduler) workQueued() bool {
	n, _ := s.queued(false, nil)
	return n > 0
}

// queued counts the tasks waiting in the lane, the injector and the
// participants' deques, queues and slots (a snapshot of counts that move
// meanwhile), and, if collect is set, appends to victims the participants
// that hold some.
func (s *scheduler) queued(collect bool, victims []*Worker) (int, []*Worker) {
	n := s.groups.n.Load()
	for p := range s.injector.queued {
		n += s.injector.queued[p].Load()
	}
	for _, w := range *s.participants.Load() {
		k := int64(w.deque.Len())
		for _, q := range w.queues {
			k += int64(q.Len())
		}
		if w.slot.held.Load() != nil {
			k++
		}
		if k > 0 {
			n += k
			if collect {
				victims = append(victims, w)
			}
		}
	}
	return int(max(n, 0)), victims
}

// goroutineSamples reads the runtime's counts of running and runnable
// goroutines (spareProcessors).
var goroutineSamples = sync.Pool{New: func() any {
	return &[2]metrics.Sample{
		{Name: "/sched/goroutines/running:goroutines"},
		{Name: "/sched/goroutines/runnable:goroutines"},
	}
}}

// compensate starts compensators for a stall that has lasted c.stalls
// ticks, with n tasks queued, victims the participants holding some (see
// the file comment). A stall of one tick is let be. From the second,
// while processors are to spare, it adds compensators in a geometric
// series: one per spare processor, then 2^compGrowth times as many at
// each tick the stall lasts. With no processor to spare it adds one per tick from
// the compBusyStalls-th, at a tick that doubles while the stall lasts.
func (s *scheduler) compensate(n int, victims []*Worker) {
	c := &s.comp
	if c.stalls < 2 {
		return
	}
	// Compensators started and not yet at their first task are on their
	// way to a queued task each.
	n -= int(c.fresh.Load())
	if n <= 0 {
		return
	}
	if spare := s.spareProcessors() + int(c.fresh.Load()); spare > 0 {
		k := spare << (compGrowth * min(c.spared, 8))
		c.spared++
		s.startCompensators(min(k, n, compBurst), victims)
		c.tick = compTick
		return
	}
	if c.stalls >= compBusyStalls {
		s.startCompensators(1, victims)
		c.tick = min(2*c.tick, compTickMax)
	}
}

// spareProcessors returns how many more goroutines could run at once than
// do now, within the pool's parallelism: min(GOMAXPROCS, parallelism) less
// the goroutines running or waiting to run, the calling one (the
// monitor's tick) not counted. Where the runtime does not give the counts,
// it returns 1. Other goroutines of the program count as well: a pool
// beside busy goroutines sees fewer processors to spare, and compensates
// slowly (see the file comment).
func (s *scheduler) spareProcessors() int {
	ss := goroutineSamples.Get().(*[2]metrics.Sample)
	defer goroutineSamples.Put(ss)
	metrics.Read(ss[:])
	if ss[0].Value.Kind() != metrics.KindUint64 || ss[1].Value.Kind() != metrics.KindUint64 {
		return 1
	}
	busy := int(ss[0].Value.Uint64()+ss[1].Value.Uint64()) - 1
	return min(runtime.GOMAXPROCS(0), s.maxWorkers+1) - busy
}

// startCompensators starts k compensating goroutines. It takes their
// first tasks itself, from the injector and the group lane in priority
// order, with one lock of each for all of them (thousands of goroutines
// taking one task each would queue on those locks); those it finds none
// for look for one in the participants in victims (a copy is kept: the
// caller reuses its slice).
func (s *scheduler) startCompensators(k int, victims []*Worker) {
	if k <= 0 {
		return
	}
	c := &s.comp
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.wg.Add(k)
	c.mu.Unlock()
	c.alive.Add(int64(k))
	c.fresh.Add(int64(k))
	c.started.Add(int64(k))
	firsts := make([]*task, 0, k)
	for p := High; p < numPriorities; p++ {
		firsts = s.injector.takeMany(p, k-len(firsts), firsts)
		if p == Normal {
			firsts = s.groups.takeMany(k-len(firsts), firsts)
		}
	}
	if len(firsts) < k {
		victims = slices.Clone(victims)
	}
	for i, w := range s.takeWorkers(k) {
		var t *task
		if i < len(firsts) {
			t = firsts[i]
		}
		go s.compensator(w, t, victims)
	}
}

// compensator is a compensating goroutine on the participant w: it runs
// t, if not nil, else what its first look finds (in victims too), then
// what it finds, and retires when it finds nothing.
func (s *scheduler) compensator(w *Worker, t *task, victims []*Worker) {
	c := &s.comp
	defer c.wg.Done()
	// A goroutine inherits its creator's labels: a compensator carries
	// none but those of the runs whose tasks it runs (observe.go).
	pprof.SetGoroutineLabels(context.Background())
	w.startOwned()
	w.prepareCaller()
	w.goid.Store(goroutine.ID())
	w.beat.Store(1) // it has finished nothing yet: no progress to show
	exiting := true // until the loop ends: a runtime.Goexit in a task leaves it set
	defer func() {
		if exiting && (w.dirty || w.forkTop != 0) {
			w.resetSlabs()
		}
		s.retireWorker(w)
	}()
	if t == nil {
		t = w.compLook(victims)
	}
	c.fresh.Add(-1)
	for ; t != nil; t = w.compLook(nil) {
		w.execute(t)
		w.settleTop()
	}
	exiting = false
}

// compLook is a compensator's look for its next task, one task at most
// from each place (see the file comment): its own places, the injector
// and the group lane in priority order, then the victims, starting at a
// random one.
func (w *Worker) compLook(victims []*Worker) *task {
	if t := w.scanOwn(); t != nil {
		return t
	}
	s := w.sched
	for p := High; p < numPriorities; p++ {
		if ts := s.injector.takeMany(p, 1, w.batchBuf[:0]); len(ts) > 0 {
			t := ts[0]
			clear(ts)
			return t
		}
		if p == Normal {
			if t := s.groups.take(famAny); t != nil {
				return t
			}
		}
	}
	if len(victims) == 0 {
		return nil
	}
	start := int(w.nextRand() % uint64(len(victims)))
	for i := range victims {
		if t := w.stealOne(victims[(start+i)%len(victims)]); t != nil {
			return t
		}
	}
	return nil
}

// stealOne takes one task from v, in priority order: from its queues, its
// published forks and its slot.
func (w *Worker) stealOne(v *Worker) *task {
	if v == w {
		return nil
	}
	for p := High; p < numPriorities; p++ {
		if p == Normal {
			if t := w.stealFork(v); t != nil {
				return t
			}
		}
		for {
			got, r := v.queues[p].StealUpTo(w.batchBuf[:0], 1)
			if r == deque.Contended {
				continue
			}
			if r == deque.Stolen {
				t := got[0]
				clear(got)
				w.counters.steals.Add(1)
				return t
			}
			break
		}
		if p == Normal {
			if t := v.slot.held.Load(); t != nil && v.slot.held.CompareAndSwap(t, nil) {
				w.counters.steals.Add(1)
				return t
			}
		}
	}
	return nil
}

// scanOwn looks at the participant's own places only: its deque, its slot
// and its queues, High first.
func (w *Worker) scanOwn() *task {
	for p := High; p < numPriorities; p++ {
		if p == Normal {
			if t := w.deque.Pop(); t != nil {
				return t
			}
			if t := w.takeSlot(0); t != nil {
				return t
			}
		}
		if t := w.queues[p].Pop(); t != nil {
			return t
		}
	}
	return nil
}

// settleTop is what a participant at its top level does between tasks:
// gives back slack, frees the slots a panic left, drops a request of its
// own frames, publishes its count of tasks run.
func (w *Worker) settleTop() {
	if w.holdsSlack() {
		w.flushSlack()
	}
	if w.dirty {
		w.resetSlabs()
	}
	if w.armed {
		w.clearAsked()
	}
	w.standing, w.armed = false, false
	w.publishTasks()
	if w.obsNow != nil {
		w.leaveObs() // no run's labels or region while it looks for work (observe.go)
	}
}

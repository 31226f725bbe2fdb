package forkjoin

// Scope tasks: their memory layout, their life, and their recycling.
//
// A scope task's struct is reused from task to task: Spawn takes a free one
// (getScopeTask), fills in what varies, and the task's end (over) clears
// that again and frees it (putScopeTask). Nothing touches a task once over
// has freed it: its forks were joined, and stopWhenDone waited for a
// cancellation in progress.
//
// Free tasks come from a per-participant list; surplus moves between
// participants in batches of spawnBatch through each participant's store
// of spare batches (spareTasks), so that a producer on one worker and a
// consumer on another pay one lock per batch, not per task. The pool keeps
// them, as it keeps its queues' rings: memory for the most scope tasks it
// ever had at once.

import (
	"errors"
	"sync"
)

// scopeTask is a task spawned in a Scope or a Group. Its Spawner is
// st.rs.fam.scope (its run's family is the Spawner's, family.go), which
// settleFor reads too: one pointer, not a copy of it here. The struct is
// 128 bytes, so that in the chunks getScopeTask allocates each task spans
// exactly two cache lines (TestScopeTaskSize and TestScopeTaskSpawnLine
// keep it there).
//
// A spawn writes one of those lines, not both, and reads neither (see
// the nil test in Spawn). What is the same for every task a struct will
// carry (its header's exec, after and run, its run's scheduler, its body)
// is set once, when the struct is made (makeFor); what varies (the run's
// context, prio, ctxDone, scope and fn) lies in the second line
// (TestScopeTaskSpawnLine); and over leaves the struct as makeFor did,
// clearing the rest. On a cold cache each line a spawn writes is a miss,
// which a locked instruction after it (the queue's atomic publication of
// the task) waits for: writing both lines makes Spawn the slowest part of
// a burst of small tasks.
type scopeTask struct {
	st spawnTask // first field
	fn func(w *Worker)
}

// makeFor sets the fields every task of s that t carries shares (see
// scopeTask). t is a new struct, never used before.
func (t *scopeTask) makeFor(s *scheduler) {
	t.st.hdr.exec, t.st.hdr.after, t.st.hdr.run = execSpawn, afterSpawn, &t.st.rs
	t.st.rs.sched, t.st.body = s, t
}

// run is the scope task's spawnBody: a task of a Scope that has failed is
// skipped (its run canceled, so afterSpawn reports ErrAborted); a Group's
// task always runs, as errgroup's do.
func (t *scopeTask) run(w *Worker) {
	if sp := t.st.rs.fam.scope; sp.failed.Load() && !sp.group {
		w.Cancel(ErrAborted)
		return
	}
	t.fn(w)
}

// over records the task's failure in its scope, frees the task and counts
// it out of the scope's pending as slack (slack.go).
func (t *scopeTask) over(w *Worker, err error) {
	sp := t.st.rs.fam.scope
	if err != nil && !errors.Is(err, ErrAborted) {
		// (ErrAborted: skipped because of an earlier failure, which is on
		// record.)
		sp.recordFailure(err)
	}
	// Back to what makeFor made, for the next Spawn to fill in: nothing
	// else touches the run once its task is over (its forks were joined,
	// stopWhenDone waited for a cancellation in progress).
	t.fn, t.st.rs.ctx, t.st.rs.fam = nil, nil, nil
	if t.st.rs.canceled.Load() || t.st.rs.failure.Load() != nil {
		t.st.rs.canceled.Store(false)
		t.st.rs.failure.Store(nil)
	}
	w.putScopeTask(t) // nothing touches t after over returns
	if sp.limit != nil {
		<-sp.limit // a Group's token (Group.SetLimit)
	}
	// Counted out of sp.pending as slack.
	w.useScope(sp)
	w.spawnState.scopeSlack++
}

// spawnBatch is how many free scope tasks move between participants at
// once.
const spawnBatch = 64

// refillScan is how many other participants' stores a participant out of
// free scope tasks looks at before it makes new ones.
const refillScan = 16

// spareTasks is a participant's store of free scope tasks beyond the two
// batches its own list keeps: the batches that a producer of tasks frees
// on one participant, for a consumer on another to take. The store keeps
// them until the pool is closed, as the participants' queues keep their
// grown rings. A new scope task is allocated only when the participant's
// list and every store are empty, so the free and busy tasks together
// never exceed what the pool's busiest moment had in use at once, plus
// two batches per participant (those in other participants' own lists).
// It is not a sync.Pool, which drops its contents at every other garbage
// collection: with bursts of many thousands of tasks separated by
// collections, every burst would allocate all its tasks again
// (BenchmarkZapSpawn/p2-gc is that case).
//
// Per participant, not per scheduler: the owner puts and takes its own
// newest batches (one uncontended lock per batch, memory its core touched
// last); a participant whose list and store are empty takes the oldest
// batch of another's store: the memory the other core touched longest ago,
// the least likely to be in that core's cache (its newest batch is memory
// that core is about to reuse; BenchmarkZapSpawn/p2 measures the choice).
type spareTasks struct {
	mu   sync.Mutex
	free []*scopeTask // free[head:] are free, the oldest first
	head int
}

// put moves ts (spawnBatch tasks at most) into the store.
func (s *spareTasks) put(ts []*scopeTask) {
	s.mu.Lock()
	if s.head > 0 && len(s.free)+len(ts) > cap(s.free) {
		n := copy(s.free, s.free[s.head:])
		clear(s.free[n:])
		s.free, s.head = s.free[:n], 0
	}
	s.free = append(s.free, ts...)
	s.mu.Unlock()
}

// take appends up to spawnBatch free tasks from the store to dst: the
// newest for the owner, the oldest for another participant (the memory
// the owner touched longest ago, likely out of its core's caches).
func (s *spareTasks) take(dst []*scopeTask, own bool) []*scopeTask {
	s.mu.Lock()
	if n := len(s.free) - s.head; n > 0 {
		k := min(n, spawnBatch)
		var lo int
		if own {
			lo = len(s.free) - k
			dst = append(dst, s.free[lo:]...)
			clear(s.free[lo:])
			s.free = s.free[:lo]
		} else {
			lo = s.head
			dst = append(dst, s.free[lo:lo+k]...)
			clear(s.free[lo : lo+k])
			s.head += k
		}
		if s.head == len(s.free) {
			s.free, s.head = s.free[:0], 0
		}
	}
	s.mu.Unlock()
	return dst
}

// release drops the store's tasks (the pool is closed).
func (s *spareTasks) release() {
	s.mu.Lock()
	s.free, s.head = nil, 0
	s.mu.Unlock()
}

// getScopeTask returns a free scope task from w's list, refilled from w's
// store of spare batches, else from another participant's (of refillScan
// of them, from a random one: a pool may have thousands of participants
// after a burst of compensators), else with new tasks (a batch of
// spawnBatch at once, in chunks of scopeTaskChunk).
func (w *Worker) getScopeTask() *scopeTask {
	l := &w.spawnState
	if len(l.free) == 0 {
		l.free = w.spareTasks.take(l.free, true)
		if len(l.free) == 0 {
			parts := *w.sched.participants.Load()
			start := int(w.nextRand() % uint64(max(len(parts), 1)))
			for i := range min(len(parts), refillScan) {
				if o := parts[(start+i)%len(parts)]; o != w {
					if l.free = o.spareTasks.take(l.free, false); len(l.free) > 0 {
						break
					}
				}
			}
		}
	}
	if len(l.free) == 0 {
		w.sched.scopeChunks.Add(spawnBatch / scopeTaskChunk)
		for range spawnBatch / scopeTaskChunk {
			chunk := new([scopeTaskChunk]scopeTask)
			for i := range chunk {
				chunk[i].makeFor(w.sched)
				l.free = append(l.free, &chunk[i])
			}
		}
	}
	n := len(l.free)
	t := l.free[n-1]
	l.free[n-1] = nil
	l.free = l.free[:n-1]
	return t
}

// scopeTaskChunk is how many scope tasks getScopeTask allocates together:
// 512 bytes, the largest object the Go runtime allocates without a header
// in front (an 8-byte header above that would shift every task by 8 bytes
// and make it straddle three cache lines). Objects of one size class lie at
// multiples of their size from a page boundary, so each task starts on a
// line (TestScopeTaskSpawnLine).
const scopeTaskChunk = 4

// putScopeTask returns t to w's free list, moving a batch to w's store of
// spare batches when the list holds two.
func (w *Worker) putScopeTask(t *scopeTask) {
	l := &w.spawnState
	l.free = append(l.free, t)
	if len(l.free) < 2*spawnBatch {
		return
	}
	k := len(l.free) - spawnBatch
	w.spareTasks.put(l.free[k:])
	clear(l.free[k:])
	l.free = l.free[:k]
}

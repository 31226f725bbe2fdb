package forkjoin

// The LIFO slot: where a participant keeps the Normal task it spawned last.
//
// A task that a running task spawns (Spawner.Spawn, a Graph node made ready
// by the node that ends) is usually what its participant should run next:
// its data was just written and is in this core's cache, and in message
// passing (each task spawns its successor and ends) or spawn-then-wait (a
// task spawns one child and waits for it) it is the only work there is. So,
// on a pool made with the slot (pool.WithLIFOSlot), a spawn puts the task into the
// participant's slot, one task, instead of its queue; the task the slot
// held goes to the queue. The participant looks at the slot before its
// queue of the same priority (Worker.scan), so the newest spawn
// runs first. The takes, the flushes and the last looks below do not
// depend on the option: on a pool without it, every slot stays empty.
//
// Priorities. Only Normal tasks use the slot; High and Background tasks go
// to their queues. The slot is looked at in the Normal step of the order
// in which a participant looks for work (priority.go): after every High
// queue it can see, before any Background one. So a High task never waits
// behind the slot, and the slot never runs before a High task nor after a
// Background one. (High tasks stay out of it because every High queue is
// counted in injector.high, which lets participants skip the scan of the
// others' High queues; a slot would escape that count.)
//
// The cap. A chain of slot runs would keep the tasks in the queue waiting
// for ever. After lifoCap slot runs in a row, if the participant's Normal
// queue holds tasks, the slot's task is moved to that queue and the
// queue's oldest task runs instead (takeSlot). A run from anywhere but the
// slot starts the count again.
//
// Who may take it. The slot is an atomic pointer: the owner takes its task
// with a compare-and-swap, and so may any other participant. Others look
// at slots only in their last look for work, the one before a searcher
// leaves the scheduler (scheduler.leave) or a helper parks (park):
// a slot's task is what its owner runs next, and taking it earlier would
// move a chain of tasks from core to core for nothing. That last look is
// what keeps a slot's task from being stranded when its owner does not
// come back to it (a task that spawns, then blocks on a channel for what
// it spawned): every put is followed by the wake-up decision every spawn
// makes (wakeForNew), so a worker comes, searches, and takes the task in
// its last look. The owner also empties its slot into its queue, where
// searchers see it at once, whenever it stops looking for work while its
// slot may hold a task: when it leaves helpUntil back to the code that
// called it, when its Run ends, when a Goexit ends its goroutine, and when
// a thief asked it for work (at its next fork). A pool worker
// leaves the scheduler only after its scan found nothing, that is, with
// an empty slot; a task in a slot is counted in the scheduler's and its
// Scope's pending counters (it was counted in before it was put there), so
// neither Close nor a Scope can end while a slot holds one.
//
// Memory ordering (sync/atomic is sequentially consistent). The owner
// writes a task's fields, then puts it with a Swap; whoever takes it does so
// with a compare-and-swap from the task to nil that observes that Swap (or
// a later one), so the put is synchronized before the take and the taker
// sees the fields. Each put is taken at most once: every take is a CAS of
// the slot from the task to nil, or the owner's Swap that replaces it (the
// displaced task, which goes to the queue), and only one of those can
// succeed on one put. A taker reads nothing of the task before its CAS has
// succeeded: a task struct is recycled (a Scope's), and may come back into
// the same slot; a CAS that then succeeds takes the newer put, a valid task
// (the ABA case is harmless because nothing was read of the older one).

import "sync/atomic"

// lifoCap is the most slot runs in a row while the participant's Normal
// queue holds tasks.
const lifoCap = 3

// lifoSlot is a participant's slot (see the file comment).
type lifoSlot struct {
	held atomic.Pointer[task]
	// runs: tasks taken from the slot in a row. Owner only.
	runs int
}

// putSlot puts t, a Normal spawned task counted in, into w's slot; the task
// the slot held goes to w's Normal queue. Owner only. The caller makes the
// wake-up decision (wakeForNew).
func (w *Worker) putSlot(t *task) {
	if old := w.slot.held.Swap(t); old != nil {
		w.queues[Normal].Push(old, pooledTask(old))
	}
}

// pooledTask reports whether t, a spawned task its caller holds, is a
// Scope's or a Group's task (see deque.SpawnQueue.Push).
func pooledTask(t *task) bool { return (*spawnTask)(taskPointer(t)).scopeOf() != nil }

// takeSlot returns the slot's task for its owner, or, at the cap (see the
// file comment), moves it to the Normal queue and returns that queue's
// oldest task; nil if the slot is empty. runs is the count of slot runs in
// a row before this look (the callers reset it to zero for every other
// task).
func (w *Worker) takeSlot(runs int) *task {
	t := w.slot.held.Load()
	if t == nil || !w.slot.held.CompareAndSwap(t, nil) {
		return nil // empty, or a thief took it
	}
	q := w.queues[Normal]
	if runs >= lifoCap && q.Len() > 0 {
		q.Push(t, pooledTask(t))
		if testHookSlotCap != nil {
			testHookSlotCap(w)
		}
		w.sched.wakeCheckQuiet() // a task is in the queue: see stealQueue
		return q.PopOldest()
	}
	w.slot.runs = runs + 1
	if testHookSlotRun != nil {
		testHookSlotRun(w, runs+1, q.Len())
	}
	return t
}

// flushSlot moves the slot's task, if any, to w's Normal queue, where
// thieves see it, and makes the wake-up decision. Owner only.
func (w *Worker) flushSlot() {
	if w.slot.held.Load() == nil {
		return
	}
	if t := w.slot.held.Swap(nil); t != nil {
		w.queues[Normal].Push(t, pooledTask(t))
		w.sched.wakeCheckQuiet()
	}
}

// stealSlots takes the task of another participant's slot, scanning them
// from start, for a look that may run the spawned tasks of the family fam
// (family.go; nil for none). For a last look before leaving or parking
// only (see the file comment). A task taken that fam may not run (whose
// task it is can be read only once it is taken) goes to w's own queue,
// where the others see it.
func (w *Worker) stealSlots(parts []*Worker, start int, fam *family) *task {
	if fam == nil {
		return nil
	}
	n := len(parts)
	for k := 0; k < n; k++ {
		v := parts[(start+k)%n]
		if v == w || fam != famAny && !v.famNow.Load().within(fam) {
			continue // see stealPriority
		}
		if t := v.slot.held.Load(); t != nil && v.slot.held.CompareAndSwap(t, nil) {
			w.counters.stealAttempts.Add(1)
			w.counters.steals.Add(1)
			if !mayRun(t, fam) {
				w.queues[Normal].Push(t, pooledTask(t))
				w.sched.wakeCheckQuiet()
				continue
			}
			return t
		}
	}
	return nil
}

// Test hooks (nil outside tests): a slot run, with the number in a row and
// the size of the Normal queue then; a move of the slot's task to the
// queue at the cap; a participant about to leave the scheduler or park
// (serve, helpUntil).
var (
	testHookSlotRun func(w *Worker, inRow, queued int)
	testHookSlotCap func(w *Worker)
	testHookIdle    func(w *Worker)
	testHookLeft    func(w *Worker) // scheduler.leave, after the last searcher's decrement
)

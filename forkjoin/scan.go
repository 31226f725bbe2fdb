package forkjoin

// Where a participant looks for its next task: one scan (Worker.scan), in
// priority order, over every place a task can wait, parameterised by what
// the one who looks may take.
//
// For each priority, High, then Normal, then Background, the scan looks at
//
//  1. the participant's own places: at Normal its fork deque (at its top
//     level only), then its LIFO slot; then its queue of that priority;
//  2. at Normal, for a participant that waits for a stolen fork h: the
//     deque of h's thief, which holds what the waiter waits for;
//  3. the injector's queue of that priority (a fair share of it: the rest
//     goes to the participant's own queue, where others may steal it);
//  4. at Normal, at the top level: the group lane;
//  5. the other participants' queues of that priority, starting at a
//     random one (for Normal: their published forks first, then their
//     spawned tasks);
//  6. at Normal, in a last look only: the other participants' LIFO slots,
//
// so a participant never starts a lower-priority task while a
// higher-priority one waits anywhere it may take from.
//
// Three kinds of look differ in what they may take:
//
//   - lookTop: a participant at its top level (a pool worker in serve, a
//     compensating goroutine), no frame of its own below what it runs. It
//     takes from everywhere, any group's task included (step 4).
//   - lookHelp: a participant that waits (the stolen half of a join, a
//     Wait for a Completion) and runs other tasks on its own stack
//     meanwhile (helpUntil). It never takes a fork from its own deque:
//     those belong to the frames below it, which join them. Of the spawned
//     tasks it runs only those of the family it is given (family.go: its
//     Scope's, Group's, Handle's or Graph's, and their descendants; none
//     for a join). It looks at the group lane first for that family's
//     tasks, because those are what it waits for. A spawned task it takes
//     and may not run (from its own slot or queue, or in a batch stolen
//     from another's queue: whose task it is can be read only once it is
//     taken) goes to its own queue, where the others find it.
//   - lookLast: the last look before a searcher leaves the scheduler
//     (scheduler.leave) or a helper parks (park). It skips steps 1 and 2:
//     the own places are written only by their owner, who has pushed
//     nothing since its previous look found them empty. It adds step 6:
//     a slot's task is what its owner runs next, so others take it only
//     when they would otherwise sleep (lifo.go). Then it looks at the
//     group lane for the family it is given.
//
// The others' High queues (step 5 at High) are looked at only while a
// counter shared by every High queue (injector.high, never below the
// number of tasks in them) is not zero, except in the last look: the scan
// runs before every task, and the High queues are almost always empty, so
// reading every other participant's queue there would put lines that
// other cores write on every task's path. The last look, once before a
// participant sleeps, reads them all.
//
// Own queues come before the injector to keep work local; a top-level look
// takes from the injector first once every injectInterval local tasks, so
// that a stream of local tasks does not starve the tasks submitted from
// outside (priority.go).

import "github.com/forkjoin-go/forkjoin/internal/deque"

// look is the kind of a look for work: what the scan may take (see the
// file comment).
type look uint8

const (
	lookTop  look = iota // a pool worker at its top level
	lookHelp             // a participant waiting for a join or a Completion
	lookLast             // the last look before leaving the scheduler or parking
)

// scan returns the next task that a look of kind k may take, in the order
// of the file comment, or nil. h is the stolen fork a helper waits for, or
// nil. fam is the family whose spawned tasks the look may take (family.go):
// famAny at the top level and in a pool worker's last look; in a helper's
// looks, the family it was given (nil for none: a join's helper, or a
// walk's). The scan runs before every task: steps 1 and 2 are written out
// here rather than in a function of their own, which would cost a call
// per priority.
func (w *Worker) scan(k look, h *task, fam *family) *task {
	s := w.sched
	runs := 0
	if k != lookLast {
		if k == lookHelp {
			if t := s.groups.take(fam); t != nil {
				return t
			}
		}
		runs = w.slot.runs // slot runs in a row: only takeSlot continues them
		w.slot.runs = 0
	}
	var parts []*Worker // loaded when the look has to steal
	start := 0
	for p := High; p < numPriorities; p++ {
		if k != lookLast { // steps 1 and 2
			if k == lookTop && w.localRun >= w.injectInterval {
				w.localRun = 0 // the injector first, for fairness
				if t := w.takeInjected(p, fam); t != nil {
					return t
				}
			}
			var t *task
			if p == Normal && k == lookTop {
				t = w.deque.Pop()
			}
			if fam != nil { // spawned tasks: none for a helper of no family
				if t == nil && p == Normal {
					t = w.takeSlot(runs) // lifo.go
				}
				if t == nil {
					t = w.queues[p].Pop()
				}
				if t != nil && k == lookHelp && !mayRun(t, fam) {
					w.queues[p].Push(t, pooledTask(t)) // not this helper's to run
					t = nil
				}
			}
			if t != nil {
				if k == lookTop {
					w.localRun++
				}
				return t
			}
			if k == lookHelp && p == Normal && h != nil {
				if thief := h.thief.Load(); thief != nil {
					if t = w.stealFork(thief); t != nil {
						return t
					}
				}
			}
		}
		if fam != nil {
			if t := w.takeInjected(p, fam); t != nil {
				return t
			}
		}
		if p == Normal && k == lookTop {
			if t := w.takeLaneShare(); t != nil {
				return t
			}
		}
		if p == High && k != lookLast && s.injector.high.Load() == 0 {
			continue // nothing in anyone's High queue
		}
		if parts == nil {
			parts = *s.participants.Load()
			start = int(w.nextRand() % uint64(max(len(parts), 1)))
		}
		if t := w.stealPriority(p, parts, start, fam); t != nil {
			return t
		}
		if p == Normal && k == lookLast {
			if t := w.stealSlots(parts, start, fam); t != nil { // lifo.go
				return t
			}
		}
	}
	if k == lookLast {
		return s.groups.take(fam)
	}
	return nil
}

// takeInjected takes a fair share of priority p from the injector
// (takeShare), or returns nil if its queue looks empty. fam is the family
// whose tasks the look may take (famAny at the top level). It is small
// enough to inline: every look for work passes here once per priority,
// and the injector is usually empty.
func (w *Worker) takeInjected(p Priority, fam *family) *task {
	if w.sched.injector.queued[p].Load() == 0 {
		return nil
	}
	return w.takeShare(p, fam)
}

// takeShare takes a fair share of priority p from the injector, of the
// tasks at its head that the family fam may run: it returns the first
// task and keeps the rest in its own queue (visible to thieves).
func (w *Worker) takeShare(p Priority, fam *family) *task {
	s := w.sched
	t, rest := s.injector.take(p, s.maxWorkers+1, fam, w.batchBuf[:0])
	if t == nil {
		return nil
	}
	w.queues[p].PushMany(rest)
	clear(rest)
	w.batchBuf = rest[:0]
	if len(rest) > 0 {
		s.wakeCheckQuiet() // t is taken: a spawn panic must not lose it
	}
	return t
}

// takeLaneShare takes a share of the group lane's tasks for a participant
// at its top level: it returns the first and keeps the rest in its own
// queue, where the others (and the groups' Waits) may steal them. The
// share is small (laneShare at most): a Group's task may block, and those
// kept behind it wait for a thief meanwhile.
func (w *Worker) takeLaneShare() *task {
	s := w.sched
	n := s.groups.n.Load()
	if n == 0 {
		return nil
	}
	k := int(min(max(n/int64(s.maxWorkers+1), 1), laneShare))
	got := s.groups.takeMany(k, w.batchBuf[:0])
	if len(got) == 0 {
		return nil
	}
	t := got[0]
	if len(got) > 1 {
		w.queues[Normal].PushMany(got[1:])
		s.wakeCheckQuiet() // t is taken: a spawn panic must not lose it
	}
	clear(got)
	w.batchBuf = got[:0]
	return t
}

// laneShare is the most group tasks a participant takes from the lane at
// once (takeLaneShare).
const laneShare = 8

// stealPriority scans the other participants once for a task of priority
// p (for Normal: published forks first, then spawned tasks), of which it
// may run the spawned tasks of the family fam (stealQueue).
func (w *Worker) stealPriority(p Priority, parts []*Worker, start int, fam *family) *task {
	n := len(parts)
	for k := 0; k < n; k++ {
		v := parts[(start+k)%n]
		if v == w {
			continue
		}
		if p == Normal {
			if t := w.stealFork(v); t != nil {
				return t
			}
		}
		if fam != famAny && !v.famNow.Load().within(fam) {
			// A helper takes spawned tasks only from a participant that
			// runs its family's: those in its queue are likely its too
			// (whose a task is can be read only once it is taken).
			continue
		}
		if t := w.stealQueue(v, p, fam); t != nil {
			return t
		}
	}
	return nil
}

// stealFork takes the oldest published fork from v's deque, or returns
// nil. If v's deque is empty and v is in use, it asks v to publish (sets
// v's poll flag, unless a request already stands): v then publishes its
// oldest private fork at its next fork and wakes a worker. A steal that
// lost a race is tried again, as in stealQueue. It takes nothing from
// w's own deque.
func (w *Worker) stealFork(v *Worker) *task {
	if v == w {
		return nil
	}
	for {
		t, r := v.deque.Steal()
		if r == deque.Stolen {
			w.counters.stealAttempts.Add(1)
			w.counters.steals.Add(1)
			return t
		}
		if r == deque.Empty {
			if v.inUse.Load() && !v.asked() {
				v.ask()
			}
			return nil
		}
		w.counters.stealAttempts.Add(1)
	}
}

// stealQueue takes up to half of v's queue of priority p at once: it runs
// the oldest and keeps the rest in its own queue of the same priority
// (where others may steal them in turn). A steal that lost a race is
// tried again: the queue may still hold tasks, and this may be the last
// look of a searcher about to leave or of a helper about to park, which
// must not take a lost race for an empty queue. Each lost race is someone
// else's progress, so this ends.
//
// A helper runs only the tasks of its family fam (family.go), and whose
// task it is can be read only once it is taken (until then another
// participant may run it and reuse its memory): it runs the oldest of its
// family's among those it took, if any, and keeps the rest, for itself or
// for others to steal. A helper of no family (nil: a join's) runs no
// spawned task, so it takes none.
func (w *Worker) stealQueue(v *Worker, p Priority, fam *family) *task {
	if fam == nil {
		return nil
	}
	for {
		got, r := v.queues[p].Steal(w.batchBuf[:0])
		if r == deque.Empty {
			return nil
		}
		w.counters.stealAttempts.Add(1)
		if r == deque.Contended {
			continue
		}
		w.counters.steals.Add(1)
		all := got // to clear: the batch buffer keeps no task reachable
		i := 0
		if fam != famAny {
			for i < len(got) && !mayRun(got[i], fam) {
				i++
			}
		}
		var t *task
		if i < len(got) {
			t = got[i]
			got = append(got[:i], got[i+1:]...)
		}
		if len(got) > 0 {
			w.queues[p].PushMany(got)
			w.sched.wakeCheckQuiet() // t is taken: a spawn panic must not lose it
		}
		clear(all)
		w.batchBuf = all[:0]
		return t
	}
}

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
//   - lookTop: a pool worker at its top level (serve, search), no frame of
//     its own below what it runs. It takes from everywhere, and any
//     group's task from the group lane (step 4).
//   - lookHelp: a participant that waits (the stolen half of a join, a
//     Wait for a Completion) and runs other tasks on its own stack
//     meanwhile (helpUntil). It never takes a fork from its own deque:
//     those belong to the frames below it, which join them. It takes from
//     the group lane only the tasks of the lane it is given (a Group's
//     Wait: that group's tasks; Close's drain: any), before anything else,
//     because those are what it waits for (grouplane.go says why no other
//     waiter may run a Group's task).
//   - lookLast: the last look before a searcher leaves the scheduler
//     (scheduler.leave) or a helper parks (park). It skips steps 1 and 2:
//     the own places are written only by their owner, who has pushed
//     nothing since its previous look found them empty. It adds step 6:
//     a slot's task is what its owner runs next, so others take it only
//     when they would otherwise sleep (lifo.go). Then it looks at the
//     group lane for the lane it is given.
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
// nil. lane is the group lane's queue the look may take from: laneAny at
// the top level and in a pool worker's last look; in a helper's looks,
// the lane it was given (a Group's Spawner, laneAny for Close's drain, nil
// for none). The scan runs before every task: steps 1 and 2 are written
// out here rather than in a function of their own, which would cost a
// call per priority.
func (w *Worker) scan(k look, h *task, lane *Spawner) *task {
	s := w.sched
	runs := 0
	if k != lookLast {
		if k == lookHelp {
			if t := s.groups.take(lane); t != nil {
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
				if t := w.takeInjected(p); t != nil {
					return t
				}
			}
			var t *task
			if p == Normal {
				if k == lookTop {
					t = w.deque.Pop()
				}
				if t == nil {
					t = w.takeSlot(runs) // lifo.go
				}
			}
			if t == nil {
				t = w.queues[p].Pop()
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
		if t := w.takeInjected(p); t != nil {
			return t
		}
		if p == Normal && k == lookTop {
			if t := s.groups.take(lane); t != nil {
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
		if t := w.stealPriority(p, parts, start); t != nil {
			return t
		}
		if p == Normal && k == lookLast {
			if t := w.stealSlots(parts, start); t != nil { // lifo.go
				return t
			}
		}
	}
	if k == lookLast {
		return s.groups.take(lane)
	}
	return nil
}

// takeInjected takes a fair share of priority p from the injector
// (takeShare), or returns nil if its queue looks empty. It is small enough
// to inline: every look for work passes here once per priority, and the
// injector is usually empty.
func (w *Worker) takeInjected(p Priority) *task {
	if w.sched.injector.queued[p].Load() == 0 {
		return nil
	}
	return w.takeShare(p)
}

// takeShare takes a fair share of priority p from the injector: it returns
// the first task and keeps the rest in its own queue (visible to thieves).
func (w *Worker) takeShare(p Priority) *task {
	s := w.sched
	t, rest := s.injector.take(p, s.maxWorkers+1, w.batchBuf[:0])
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

// stealPriority scans the other participants once for a task of priority
// p (for Normal: published forks first, then spawned tasks).
func (w *Worker) stealPriority(p Priority, parts []*Worker, start int) *task {
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
		if t := w.stealQueue(v, p); t != nil {
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
func (w *Worker) stealQueue(v *Worker, p Priority) *task {
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
		t := got[0]
		if len(got) > 1 {
			w.queues[p].PushMany(got[1:])
			w.sched.wakeCheckQuiet() // t is taken: a spawn panic must not lose it
		}
		clear(got)
		w.batchBuf = got[:0]
		return t
	}
}

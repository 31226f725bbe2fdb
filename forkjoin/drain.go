package forkjoin

// Close's drain, and the seal that refuses submissions once it is over.
//
// Pool.Close first drains: it waits until the scheduler's pending counter
// (every spawned task not yet over, plus slack, slack.go) is zero, running
// tasks itself if no worker can. When it returns, the injector is sealed:
// a task submitted from outside the pool's tasks (Spawn, Submit,
// SubmitBatch from a goroutine that is not running one) would never run,
// so it is refused with a panic.
//
// Why no task is lost or refused wrongly: the seal is set under the
// injector's lock and the group lane's, after pending is seen zero under
// them; a submission from outside counts itself in pending, then looks at
// the seal under one of those locks (the injector's for Spawn and Submit,
// the lane's for a Group's Go). So either its count came first, the drain sees pending not zero
// and waits for the task; or the drain's look came first, and the
// submission, taking the lock after, sees the seal and counts itself out
// (refuse). A task that spawns while it runs is counted in pending itself,
// so while it could spawn, pending is not zero and there is no seal: tasks
// spawned by tasks are never refused.

// inject counts st in and queues it on the injector: a task submitted from
// outside the pool's tasks. It panics if Close has sealed the injector.
func (s *scheduler) inject(st *spawnTask) {
	if !s.tryInject(st) {
		s.refuse(st.prio, 1)
	}
}

// tryInject is inject that leaves the refusal to its caller: false means
// the injector was sealed, and the caller must call refuse.
func (s *scheduler) tryInject(st *spawnTask) bool {
	s.pending.Add(1) // before the look at the seal
	s.spawned.submitted[st.prio].Add(1)
	return s.injector.push(st.prio, &s.sealed, &st.hdr)
}

// refuse counts out n tasks of priority p submitted from outside the
// pool's tasks after the drain sealed the injector, and panics.
func (s *scheduler) refuse(p Priority, n int64) {
	s.spawned.submitted[p].Add(-n)
	if s.pending.Add(-n) == 0 {
		s.pendingOver()
	}
	panic(errSealed)
}

// pendingOver is called by whoever brought pending to zero: it wakes
// Close's drain, which waits for that either on drained or, when it takes
// part in the work (see drain), parked as a participant on joinWake. The
// helper counts itself in joinParked before its last look at pending, and
// the load of joinParked here follows the decrement to zero: one of the
// two sees the other, so a parked helper is always woken.
func (s *scheduler) pendingOver() {
	s.drained.NotifyAll()
	if s.joinParked.Load() != 0 {
		s.joinWake.NotifyAll()
	}
}

// errSealed is the panic of a submission refused by the seal.
const errSealed = "forkjoin: Spawn or Submit on a closed pool (its Close had already run every task)"

// drain runs from Pool.Close: it waits until every spawned task is over,
// running tasks on the calling goroutine if the pool has no worker to, and
// seals the injector (see the file comment).
func (s *scheduler) drain() {
	for {
		if s.pending.Load() == 0 {
			s.injector.mu.Lock()
			s.groups.mu.Lock() // the lane's submissions look at the seal under its lock
			sealed := s.pending.Load() == 0
			if sealed {
				s.sealed, s.groups.sealed = true, true
			}
			s.groups.mu.Unlock()
			s.injector.mu.Unlock()
			if sealed {
				return
			}
			continue
		}
		tok := s.drained.Prepare()
		if s.pending.Load() == 0 {
			continue // to seal
		}
		if s.maxWorkers == 0 || s.pool.WorkersAlive() == 0 || s.helpWanted.Load() {
			// Nobody else may run them: take part until they are done.
			_ = run(nil, s.pool, "pool.Close", func(w *Worker) error {
				w.helpUntil(func() bool { return s.pending.Load() == 0 }, nil, famAny)
				return nil
			})
			continue
		}
		s.wakeCheck()
		s.drained.Wait(tok)
	}
}

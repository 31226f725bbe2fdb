package poolcore

// The methods the layer built on a pool (package forkjoin) uses, which are
// not pool.Pool's: a layer reaches them by converting its *pool.Pool,
// (*poolcore.Pool)(p).

import "github.com/forkjoin-go/forkjoin/internal/dispatch"

// Dispatch runs job on the pool's workers while the calling goroutine runs
// body: it publishes job, starts or wakes every worker, runs body, then
// seals the job and waits until no worker is inside it (see package
// dispatch). When it returns, no worker touches job or its data. Each
// worker calls job.Call at most once per wake-up, possibly not at all.
// Dispatches on one pool take turns. A panic in body, or in a worker's call
// (as a *dispatch.Recovered), is re-raised after the latch. Dispatch panics
// on a closed pool, or while a job is pinned.
func (p *Pool) Dispatch(job *dispatch.Job, body func()) {
	p.checkOpen("Dispatch")
	p.runs.Add(1)
	p.disp.Dispatch(job, p.wakeAll, body)
}

// Pin publishes job for a layer that runs its own scheduler on the workers
// until Unpin: workers enter it whenever they are woken (WakeOne) and leave
// it when it returns. It waits for a Dispatch in progress to end, and
// panics on a closed pool.
func (p *Pool) Pin(job *dispatch.Job) {
	p.checkOpen("Pin")
	p.disp.Pin(job)
}

// Unpin seals and latches the pinned job; when it returns no worker is
// inside it.
func (p *Pool) Unpin() {
	p.check()
	p.disp.Unpin()
}

// LIFOSlot reports whether the pool was made with pool.WithLIFOSlot:
// whether the work-stealing core puts a spawned task in its participant's
// LIFO slot. It never changes.
func (p *Pool) LIFOSlot() bool {
	p.check()
	return p.lifoSlot
}

// CountRun records that a run began (for the pool's Stats, and for
// retrying failed worker starts). A layer that runs work on a pinned job
// calls it once per run.
func (p *Pool) CountRun() {
	p.check()
	p.runs.Add(1)
}

// WakeOne makes one more worker enter the published job: it wakes a parked
// worker or, if none is parked and fewer than n-1 are running, starts one.
// It reports whether some worker will enter the job as a result (false only
// when no worker is running and none could be started).
func (p *Pool) WakeOne() bool {
	p.check()
	if p.wake.Waiters() > 0 {
		p.wake.NotifyOne()
		return true
	}
	if int(p.alive.Load()) < p.maxWorkers && p.startWorkers(1) > 0 {
		return true
	}
	// Every running worker is busy or between a job and its park: moving
	// the epoch makes the latter enter again instead of parking.
	p.wake.NotifyOne()
	return p.alive.Load() > 0
}

// Attach returns the attachment stored under key, creating it with create
// on first use; the lookup is lock-free. key must be comparable; use a
// type of your own, like a context key. While the pool's Close runs,
// existing attachments are still found (their Close may run work that
// looks them up) but no new one is created: Attach panics, as it does on a
// closed pool.
func (p *Pool) Attach(key any, create func(p *Pool) Attachment) Attachment {
	p.checkOpen("Attach")
	if as := p.attached.Load(); as != nil {
		for _, a := range *as {
			if a.key == key {
				return a.val
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closing || p.closed.Load() {
		panic("pool: Attach on a closed pool")
	}
	var old []attachment
	if as := p.attached.Load(); as != nil {
		old = *as
		for _, a := range old {
			if a.key == key {
				return a.val
			}
		}
	}
	v := create(p)
	next := append(append([]attachment(nil), old...), attachment{key, v})
	p.attached.Store(&next)
	return v
}

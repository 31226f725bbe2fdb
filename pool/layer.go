package pool

import (
	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/internal/poolcore"
)

// layer is a Pool seen by the layers built on it (package forkjoin): the
// methods of poolcore.Pool, which users do not call. See package poolcore
// for what each does.
type layer Pool

func init() {
	poolcore.Register(func(p *Pool) poolcore.Pool[Pool] {
		p.check()
		return (*layer)(p)
	})
}

func (l *layer) pool() *Pool { return (*Pool)(l) }

func (l *layer) Dispatch(job *dispatch.Job, body func()) {
	p := l.pool()
	p.checkOpen("Dispatch")
	p.runs.Add(1)
	p.disp.Dispatch(job, p.wakeAll, body)
}

func (l *layer) Pin(job *dispatch.Job) {
	p := l.pool()
	p.checkOpen("Pin")
	p.disp.Pin(job)
}

func (l *layer) Unpin() { l.disp.Unpin() }

func (l *layer) LIFOSlot() bool { return l.lifoSlot }

func (l *layer) CountRun() { l.runs.Add(1) }

func (l *layer) WakeOne() bool {
	p := l.pool()
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

func (l *layer) Attach(key any, create func(p *Pool) poolcore.Attachment) poolcore.Attachment {
	p := l.pool()
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

package forkjoin

import (
	"fmt"

	"github.com/forkjoin-go/forkjoin/pool"
)

// SchedulerState describes p's scheduler for a test that failed to see
// work end: the state word, the monitor's, the queued tasks and the
// participants.
func SchedulerState(p *pool.Pool) string {
	s := schedulerOf(p)
	c := &s.comp
	st := s.state.Load()
	n, victims := s.queued(true, nil)
	c.mu.Lock()
	stalls, spared, tick, stopped := c.stalls, c.spared, c.tick, c.stopped
	c.mu.Unlock()
	parts := *s.participants.Load()
	inUse, beats := 0, 0
	for _, w := range parts {
		if w.inUse.Load() {
			inUse++
		}
		if w.beat.Load() != 0 {
			beats++
		}
	}
	return fmt.Sprintf("searching %d active %d waking %v; pending %d; monitor running %v stalls %d spared %d tick %v stopped %v; "+
		"compensators alive %d fresh %d started %d retired %d; queued %d in %d participants, lane %d, injector %d/%d/%d; "+
		"participants %d (in use %d, beat set %d); spare processors %d; progressed %v",
		searching(st), active(st), st&wakingBit != 0, s.pending.Load(),
		c.running.Load(), stalls, spared, tick, stopped,
		c.alive.Load(), c.fresh.Load(), c.started.Load(), c.retired.Load(),
		n, len(victims), s.groups.n.Load(),
		s.injector.queued[High].Load(), s.injector.queued[Normal].Load(), s.injector.queued[Background].Load(),
		len(parts), inUse, beats, s.spareProcessors(), s.progressed())
}

// ScopeTaskChunks is the number of chunks of scope tasks p's scheduler
// has allocated.
func ScopeTaskChunks(p *pool.Pool) int64 { return schedulerOf(p).scopeChunks.Load() }

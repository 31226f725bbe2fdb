package forkjoin

// The engine of ForIter and ReduceIter (iter.go). An iter.Seq cannot be
// split: it runs on the goroutine that called the loop, the producer,
// which copies its values into a buffer; only the calls of the body are
// shared, a whole buffer at a time.
//
// The producer fills its own buffer, cur. When cur is full it either
// processes it itself (runs the body over it), or lends it: it swaps it
// into a free slot of a ring of nslot slots, where helpers take it, and
// goes on with the buffer the slot held. It lends while a helper runs and
// a slot is free, and processes otherwise: so it never waits for a helper
// before its iterator is done, and while nobody helps, the loop is a
// sequential loop that copies its values through a buffer.
//
// The ring. Lent buffer k (k = 0, 1, …) lives in slot k % nslot. Three
// counters split the buffers ever lent, each no greater than the next:
//
//	retired ≤ taken ≤ produced ≤ retired + nslot
//
// [taken, produced) wait for a processor, [retired, taken) are being
// processed or are done, and below retired the slots are free again. The
// producer alone lends (produced++) into the slot of produced, which is
// free, and retires (retired++), in order, the buffers whose done flag is
// set. Any processor, the producer included, takes the oldest waiting
// buffer by a CAS on taken, which gives each buffer to exactly one
// processor; it sets the slot's done flag once it has run the body over
// it, and touches the slot no more. The producer writes a slot again only
// after it saw that flag (sync/atomic is sequentially consistent: the
// processor's reads of the buffer come before its store of the flag, the
// producer's writes after its load), and a processor reads a slot only
// after its CAS, which follows its load of produced, which follows the
// producer's writes to the slot.
//
// Order. ReduceIter combines the buffers' results in the order the
// iterator yielded their values, whoever computed them: a lent buffer's
// result waits in its slot until it is retired; the result of a buffer
// the producer processed itself goes straight into the accumulated result
// if no lent buffer is pending, else it is combined into the "after"
// result of the last buffer lent, which retiring that buffer combines in
// after the buffer's own (the typed layer keeps these; iter.go).
//
// Helpers. The producer looks at its poll flag at every full buffer; when
// another participant asks, it forks a helper (Fork.Start, which
// publishes it for the one who asked): a loop that takes buffers from the
// ring until the producer has lent its last one, or until it has found
// none for as long as a searcher looks for work (keepLooking), or the run
// is canceled. The helpers are Futures on the producer's fork stack: the
// producer joins those that have ended (from the newest, as Futures nest)
// when it wants to fork a new one, and all of them at the end, after it
// has taken back and processed the buffers no helper took; a panic or a
// cancellation that unwinds the producer leaves them to the task
// boundary, which waits for the ones other participants have.
//
// The buffer size. With buf 0 it adapts as For's chunk does (adapt): it
// doubles while filling and processing a buffer take under chunkFast and
// halves above chunkSlow, so that a request for work is answered, and the
// last buffers' imbalance lasts, a fraction of a millisecond, and the
// cost of a buffer's hand-off (a few atomic operations and clock reads)
// is spread over many elements when they are cheap. It starts at
// iterFirstChunk and stays within iterMaxBytes of memory per buffer.

import (
	"sync/atomic"
	"time"

	"github.com/klauspost/cpuid/v2"
)

const (
	iterFirstChunk = 16
	iterMaxBytes   = 256 << 10
)

// iterCoolBytes is how many bytes of spare buffers a lent buffer waits
// behind before the producer fills it again (iterBufs): twice the size of
// a core's L2 cache as cpuid reads it, or 1 MiB if it reads none.
var iterCoolBytes = uintptr(max(2*cpuid.CPU.Cache.L2, 1<<20))

// iterRestTime is the body's time per value, in ns, from which a lent
// buffer is filled again without resting (iterBufs).
const iterRestTime = 16

// iterCore is the part of a loop over an iter.Seq that does not depend on
// the element type. The typed layer (iter.go) embeds it first and sets the
// hooks.
type iterCore struct {
	w     *Worker // the producer's
	nslot int64

	produced atomic.Int64
	taken    atomic.Int64
	retired  int64         // producer only
	done     []atomic.Bool // per slot: its buffer is processed
	closed   atomic.Bool   // the producer has lent its last buffer

	// The typed layer's hooks. tail records that the producer's buffer
	// holds n values; lend puts the producer's buffer in slot s, letting
	// the slot's buffer rest if rest is set (iterBufs); own runs the body over the producer's buffer, with
	// after the slot of the last buffer lent and not yet retired (-1:
	// none), and returns its length; proc runs the body over lent buffer k
	// and returns its length; retire is called by the producer, in order,
	// for every lent buffer before its slot is reused (nil: nothing to
	// do).
	tail   func(n int)
	lend   func(s int, rest bool)
	own    func(w *Worker, after int) int
	proc   func(w *Worker, k int64) int
	retire func(k int64)

	helpers    []iterHelp   // the producer's helper forks, oldest first
	maxHelpers int          // parallelism - 1
	running    atomic.Int32 // helpers begun and not yet ended

	chunk     int // the next buffer's size
	maxChunk  int
	adaptive  bool
	elemTime  atomic.Int64 // the last buffer's processing time per element, in ns/1024
	fillStart time.Time    // producer only: when the current buffer began to fill
}

// iterHelper is one helper fork's argument: a loop over the ring's buffers
// (runIterHelper).
type iterHelper struct {
	c      *iterCore
	began  atomic.Bool
	exited atomic.Bool
}

type iterHelp struct {
	h   *iterHelper
	fut Future[*iterHelper, struct{}]
}

var iterHelperFork = NewFork(runIterHelper)

// init prepares c for a loop on w: buffers of buf elements (0: adaptive;
// at most maxChunk either way) of elemSize bytes each.
func (c *iterCore) init(w *Worker, buf int, elemSize uintptr) {
	c.w = w
	c.maxHelpers = w.Parallelism() - 1
	c.nslot = int64(2*c.maxHelpers + 2)
	c.done = make([]atomic.Bool, c.nslot)
	c.maxChunk = chunkMax
	if elemSize > 0 {
		c.maxChunk = max(1, min(chunkMax, int(iterMaxBytes/elemSize)))
	}
	if buf > 0 {
		c.chunk = min(buf, c.maxChunk)
	} else {
		c.adaptive = true
		c.chunk = min(iterFirstChunk, c.maxChunk)
	}
	c.fillStart = time.Now()
}

// start begins the loop: a request for work that stands already is
// answered now (and a canceled run unwinds before the first value is
// processed).
func (c *iterCore) start(w *Worker) {
	if w.asked() {
		c.answer(w)
	}
}

// slot returns lent buffer k's slot.
func (c *iterCore) slot(k int64) int { return int(k % c.nslot) }

// full is the producer's step once its buffer is full: answer a request
// for work, retire what is done, then lend the buffer if a helper runs
// and a slot is free, else process it (after the lent buffers that no
// helper took, if none runs any more), and adapt the buffer size.
func (c *iterCore) full(w *Worker) {
	fill := time.Since(c.fillStart)
	if w.asked() {
		c.answer(w)
	}
	c.retireDone()
	if c.running.Load() > 0 && c.produced.Load()-c.retired < c.nslot {
		c.lend(c.slot(c.produced.Load()), c.elemTime.Load() < iterRestTime*1024)
		c.produced.Add(1)
	} else {
		if c.running.Load() == 0 {
			c.drain(w) // helpers that ended left these
			c.retireDone()
		}
		c.processOwn(w)
	}
	if c.adaptive {
		est := fill + time.Duration(int64(c.chunk)*c.elemTime.Load()/1024)
		c.chunk = min(adapt(c.chunk, est), c.maxChunk)
	}
	c.fillStart = time.Now()
}

// finish ends the loop once the iterator has returned, with n values in
// the producer's buffer: it processes them, takes back and processes the
// lent buffers no helper took, joins the helpers, and retires every
// buffer.
func (c *iterCore) finish(w *Worker, n int) {
	c.closed.Store(true)
	if n > 0 {
		c.tail(n)
		c.processOwn(w)
	}
	c.drain(w)
	for i := len(c.helpers) - 1; i >= 0; i-- {
		c.helpers[i].fut.Join(w)
		c.helpers[i] = iterHelp{}
	}
	c.helpers = c.helpers[:0]
	c.retireDone()
}

// processOwn runs the body over the producer's buffer.
func (c *iterCore) processOwn(w *Worker) {
	after := -1
	if p := c.produced.Load(); p > c.retired {
		after = c.slot(p - 1)
	}
	var start time.Time
	if c.adaptive {
		start = time.Now()
	}
	n := c.own(w, after)
	c.measure(start, n)
}

// take takes the oldest lent buffer that waits for a processor, if any.
func (c *iterCore) take() (int64, bool) {
	for {
		k := c.taken.Load()
		if k >= c.produced.Load() {
			return 0, false
		}
		if c.taken.CompareAndSwap(k, k+1) {
			return k, true
		}
	}
}

// drain processes every lent buffer that waits.
func (c *iterCore) drain(w *Worker) {
	for {
		k, ok := c.take()
		if !ok {
			return
		}
		c.process(w, k)
	}
}

// process runs the body over lent buffer k, which the caller took, and
// marks it done. A panic in the body leaves it not done: the run is
// canceled, and the producer unwinds at its next look at its poll flag.
func (c *iterCore) process(w *Worker, k int64) {
	var start time.Time
	if c.adaptive {
		start = time.Now()
	}
	n := c.proc(w, k)
	c.measure(start, n)
	c.done[c.slot(k)].Store(true)
}

// measure records the processing time per element of a buffer of n
// elements whose processing began at start, for the buffer size.
func (c *iterCore) measure(start time.Time, n int) {
	if c.adaptive && n > 0 {
		c.elemTime.Store(int64(time.Since(start)) * 1024 / int64(n))
	}
}

// retireDone retires, in order, the lent buffers that are done.
func (c *iterCore) retireDone() {
	end := c.taken.Load()
	for c.retired < end {
		d := &c.done[c.slot(c.retired)]
		if !d.Load() {
			return
		}
		d.Store(false)
		if c.retire != nil {
			c.retire(c.retired)
		}
		c.retired++
	}
}

// answer answers a request for work (the producer's poll flag is set):
// it forks a helper if one more may run, else takes the request as a
// fork's slow path does (answerRequest: it publishes the oldest private
// fork, if any, and unwinds if the run is canceled); a participant still
// idle asks again.
func (c *iterCore) answer(w *Worker) {
	// Join the helpers that have ended, from the newest: a Future is
	// joined only once the ones forked after it are.
	for n := len(c.helpers); n > 0 && c.helpers[n-1].h.exited.Load(); n-- {
		c.helpers[n-1].fut.Join(w)
		c.helpers[n-1] = iterHelp{}
		c.helpers = c.helpers[:n-1]
	}
	if c.mayFork() {
		h := &iterHelper{c: c}
		c.helpers = append(c.helpers, iterHelp{h, iterHelperFork.Start(w, h)})
		return
	}
	w.answerRequest()
}

// mayFork reports whether the producer may fork another helper: fewer
// than maxHelpers run, every helper forked has begun (one that has not
// is still there for whoever asks), and the stack of helper forks, ended
// ones below running ones included, stays short.
func (c *iterCore) mayFork() bool {
	if c.closed.Load() || int(c.running.Load()) >= c.maxHelpers || len(c.helpers) >= 2*c.maxHelpers {
		return false
	}
	for _, h := range c.helpers {
		if !h.h.began.Load() {
			return false
		}
	}
	return true
}

// runIterHelper is a helper: it processes the ring's buffers until the
// producer has lent its last one and none waits, or none came for as long
// as a searcher looks for work, or the run is canceled. Run by the
// producer itself (a helper nobody took, joined at the end), it does not
// wait for buffers: only the producer could lend them.
func runIterHelper(_ *Fork[*iterHelper, struct{}], w *Worker, h *iterHelper) struct{} {
	c := h.c
	c.running.Add(1)
	h.began.Store(true)
	idle := 0
	var since time.Time
	for !w.Canceled() {
		if k, ok := c.take(); ok {
			c.process(w, k)
			idle, since = 0, time.Time{}
			continue
		}
		if c.closed.Load() || w == c.w || !keepLooking(idle, &since) {
			break
		}
		idle++
	}
	c.running.Add(-1)
	h.exited.Store(true)
	return struct{}{}
}

package forkjoin

// Slabs: where a fork's argument and result are kept.
//
// Each worker keeps one slab per (A, R) pair: a LIFO stack of
// forkSlot{header, arg, result} stored in chunks that are never moved or
// freed, so a pointer to a slot stays valid for thieves. Slots are reused
// in LIFO order, so steady state allocates nothing. The (A, R) pair gets a
// small integer id when the first Fork of that pair is created; a worker
// finds its slab with one index into a slice, without a type assertion.

import (
	"reflect"
	"sync"
	"unsafe"
)

// slabChunk is the number of slots in a chunk of a slab.
const slabChunk = 128

// forkSlot holds a fork's argument and, once it ran, its result; its
// header is what the worker's stack and deque hold of it.
type forkSlot[A, R any] struct {
	hdr  task        // first: *task converts back to *forkSlot
	fork *Fork[A, R] // the Fork whose exec is in hdr.exec
	arg  A
	res  R
}

// forkSlab is a worker's LIFO stack of slots for the forks of one (A, R)
// pair.
type forkSlab[A, R any] struct {
	cur      []forkSlot[A, R] // chunks[curIndex]
	used     int              // slots in use in cur
	curIndex int              // the index of cur in chunks
	chunks   [][]forkSlot[A, R]
	owner    *Worker
	// free holds the slots of published word forks, which are taken and
	// given back in publication and join order, not LIFO.
	free []*forkSlot[A, R]
}

// takeFree returns a slot for a word fork being published.
func (s *forkSlab[A, R]) takeFree() *forkSlot[A, R] {
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
		return slot
	}
	slot := new(forkSlot[A, R])
	slot.hdr.owner = s.owner
	return slot
}

// giveFree takes back a published word fork's slot once its join is over.
func (s *forkSlab[A, R]) giveFree(slot *forkSlot[A, R]) {
	var zero forkSlot[A, R]
	slot.arg, slot.res = zero.arg, zero.res
	s.free = append(s.free, slot)
}

// push returns the next free slot, in a new chunk if cur is full.
func (s *forkSlab[A, R]) push() *forkSlot[A, R] {
	if s.used == len(s.cur) {
		s.nextChunk()
	}
	slot := &s.cur[s.used]
	s.used++
	return slot
}

// pop frees the slot push returned last, moving back a chunk when cur
// is emptied.
func (s *forkSlab[A, R]) pop() {
	s.used--
	if s.used == 0 && s.curIndex > 0 {
		s.curIndex--
		s.cur = s.chunks[s.curIndex]
		s.used = len(s.cur)
	}
}

// nextChunk moves cur to the next chunk, allocating it the first time.
func (s *forkSlab[A, R]) nextChunk() {
	if s.cur != nil {
		s.curIndex++
	}
	if s.curIndex == len(s.chunks) {
		c := make([]forkSlot[A, R], slabChunk)
		for i := range c {
			c[i].hdr.owner = s.owner
		}
		s.chunks = append(s.chunks, c)
	}
	s.cur = s.chunks[s.curIndex]
	s.used = 0
}

// reset frees every slot and clears the arguments and results they hold.
func (s *forkSlab[A, R]) reset() {
	var zero forkSlot[A, R]
	for _, c := range s.chunks {
		for i := range c {
			c[i].arg, c[i].res, c[i].fork = zero.arg, zero.res, nil
			c[i].hdr.exec = nil
		}
	}
	s.curIndex, s.used, s.cur = 0, 0, nil
	clear(s.free) // slots of abandoned publications are simply dropped
	s.free = s.free[:0]
}

// dropUsed clears the slots used since the last dropUsed or reset: their
// arguments and results, and their Fork, which marks a slot as used. Slots
// are taken in order from the first, so the used ones are a prefix of the
// chunks, and the first slot without a Fork ends it. Called only where no
// frame holds a slot (see Worker.dropStale).
func (s *forkSlab[A, R]) dropUsed() {
	var zero forkSlot[A, R]
	for _, c := range s.chunks {
		for i := range c {
			if c[i].fork == nil {
				return
			}
			c[i].arg, c[i].res, c[i].fork = zero.arg, zero.res, nil
			c[i].hdr.exec, c[i].hdr.run = nil, nil
		}
	}
}

// slabResetter is what a worker needs of its slabs of every (A, R): reset
// after a panic, dropUsed after a run.
type slabResetter interface {
	reset()
	dropUsed()
}

// slab ids: one per (A, R) pair, bounded by the number of pairs a program
// uses, so creating Forks freely does not grow the workers' slab tables.
var (
	slabIDs   sync.Map // reflect.Type of forkSlot[A, R] -> int
	slabIDsMu sync.Mutex
	slabCount = 1 // 0 is no slab's: a zero Fork's sid finds none
)

func slabIDFor[A, R any]() int {
	key := reflect.TypeFor[forkSlot[A, R]]()
	if id, ok := slabIDs.Load(key); ok {
		return id.(int)
	}
	slabIDsMu.Lock()
	defer slabIDsMu.Unlock()
	if id, ok := slabIDs.Load(key); ok {
		return id.(int)
	}
	id := slabCount
	slabCount++
	slabIDs.Store(key, id)
	return id
}

// slabOf returns w's slab for (A, R), given its id. w.slabs holds each
// slab as an unsafe.Pointer, a pointer the collector sees; the conversion
// back is unsafe.Pointer's rule (1) (the slab of id was made for (A, R)).
func slabOf[A, R any](w *Worker, id int) *forkSlab[A, R] {
	if id < len(w.slabs) {
		if p := w.slabs[id]; p != nil {
			return (*forkSlab[A, R])(p)
		}
	}
	return newSlab[A, R](w, id)
}

func newSlab[A, R any](w *Worker, id int) *forkSlab[A, R] {
	for len(w.slabs) <= id {
		w.slabs = append(w.slabs, nil)
	}
	s := &forkSlab[A, R]{owner: w}
	w.slabs[id] = unsafe.Pointer(s)
	w.resetters = append(w.resetters, s)
	return s
}

// dropStale drops what the worker's private structures still hold of work
// that is over, so that data a run used becomes garbage when the run
// returns, not when the same memory happens to be used again: the fork
// entries above the stack's top (a Future fork's entry keeps its pointer
// argument, typed), the slots its slabs used, and the taken slots of its
// queues. Entries are written in order from the first, so the stale ones
// are a prefix, ended by the first empty entry. The cost is the depth of
// the forks, the slots used, and the size of the rings of the queues
// pushed to since their last clearing. Called by the owner at its
// top level (forkTop == 0, no frame holding a slot): at the end of a caller's
// Run, and when a pool worker leaves the scheduler.
func (w *Worker) dropStale() {
	for i := range w.forks {
		e := &w.forks[i]
		if e.wf == nil && e.hdr == nil && e.ptr == nil {
			break
		}
		*e = forkEntry{}
	}
	for _, s := range w.resetters {
		s.dropUsed()
	}
	w.deque.DropTaken()
	for _, q := range w.queues {
		q.DropTaken()
	}
}

// resetSlabs frees every slot of every slab: called only where no frame of
// this worker holds a slot (its top level), after a panic left some behind.
func (w *Worker) resetSlabs() {
	for _, s := range w.resetters {
		s.reset()
	}
	clear(w.forks[:w.forkTop])
	w.forkTop, w.published, w.dirty = 0, 0, false
}

package fold

import (
	"reflect"
	"sync"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"github.com/forkjoin-go/forkjoin/tree"
)

// Run's sequential path keeps one seqFolder per participant and type
// (core.Local), so that the explicit stacks below the recursion's depth
// grow once and then stay: a deep chain costs its frames once per
// participant, not once per run. A fold nested in another on the same
// participant makes its own.
var seqKeys sync.Map // reflect.Type of seqFolder[N, H, R] -> *seqKey

type seqKey struct{ _ byte }

// maxSpareFrames bounds the frames (and listed children) of a spare
// seqFolder's explicit stacks.
const maxSpareFrames = 1 << 22

type seqSpare[N, H, R any] struct{ s *seqFolder[N, H, R] }

func seqSpareOf[N, H, R any](w *forkjoin.Worker) *seqSpare[N, H, R] {
	t := reflect.TypeFor[seqFolder[N, H, R]]()
	k, ok := seqKeys.Load(t)
	if !ok {
		k, _ = seqKeys.LoadOrStore(t, new(seqKey))
	}
	return core.Local(w, k, func() any { return new(seqSpare[N, H, R]) }).(*seqSpare[N, H, R])
}

// takeSeqFolder returns w's spare seqFolder set up for f and g, or a new
// one.
func takeSeqFolder[N, H, R any](w *forkjoin.Worker, f Fold[N, H, R], g tree.Treeish[N]) *seqFolder[N, H, R] {
	sp := seqSpareOf[N, H, R](w)
	s := sp.s
	if s == nil {
		return newSeqFolder(f, g)
	}
	sp.s = nil
	s.set(f, g)
	return s
}

// putSeqFolder keeps s, whose fold returned normally (its stacks are
// empty and cleared), as w's spare, dropping its references to the fold.
func putSeqFolder[N, H, R any](w *forkjoin.Worker, s *seqFolder[N, H, R]) {
	if !s.release() {
		return
	}
	sp := seqSpareOf[N, H, R](w)
	if sp.s == nil {
		sp.s = s
	}
}

// Seq keeps spare seqFolders in a sync.Pool per type, so that the
// explicit stacks of a deep tree are made once, not at every call.
var seqPools sync.Map // reflect.Type of seqFolder[N, H, R] -> *sync.Pool

func seqPoolOf[N, H, R any]() *sync.Pool {
	t := reflect.TypeFor[seqFolder[N, H, R]]()
	if p, ok := seqPools.Load(t); ok {
		return p.(*sync.Pool)
	}
	p, _ := seqPools.LoadOrStore(t, new(sync.Pool))
	return p.(*sync.Pool)
}

// set makes s, a spare seqFolder, fold with f and g.
func (s *seqFolder[N, H, R]) set(f Fold[N, H, R], g tree.Treeish[N]) {
	s.init, s.acc, s.fin, s.g = f.Init, f.Accumulate, f.Finalize, g
	if s.deep != nil {
		s.deep.init, s.deep.acc, s.deep.fin, s.deep.g = f.Init, f.Accumulate, f.Finalize, g
	}
}

// release drops the references of s, whose fold returned normally, to the
// fold, and reports whether s is small enough to keep as a spare.
func (s *seqFolder[N, H, R]) release() bool {
	s.init, s.acc, s.fin, s.g, s.poll = nil, nil, nil, nil, nil
	d := s.deep
	if d == nil {
		return true
	}
	d.init, d.acc, d.fin, d.g, d.poll = nil, nil, nil, nil, nil
	return len(d.fs.chunks) <= maxSpareFrames/maxChunk && cap(d.ks.kids) <= maxSpareFrames
}

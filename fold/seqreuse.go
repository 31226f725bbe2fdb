package fold

import (
	"sync"

	"github.com/forkjoin-go/forkjoin/internal/typepool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// Seq, and Run on a pool of parallelism 1, keep spare seqFolders in a
// sync.Pool per type, so that the explicit stacks of a deep tree are made
// once, not at every call (nor for every new pool). A fold nested in
// another takes its own.
func seqPoolOf[N, H, R any]() *sync.Pool { return typepool.For[seqFolder[N, H, R]]() }

// maxSpareFrames bounds the frames (and listed children) of a spare
// seqFolder's explicit stacks.
const maxSpareFrames = 1 << 22

// takeSeqFolder returns a spare seqFolder set up for f and g, or a new
// one.
func takeSeqFolder[N, H, R any](f Fold[N, H, R], g tree.Treeish[N]) *seqFolder[N, H, R] {
	s, _ := seqPoolOf[N, H, R]().Get().(*seqFolder[N, H, R])
	if s == nil {
		return newSeqFolder(f, g)
	}
	s.set(f, g)
	return s
}

// putSeqFolder keeps s, whose fold returned normally (its stacks are
// empty and cleared), as a spare, dropping its references to the fold.
func putSeqFolder[N, H, R any](s *seqFolder[N, H, R]) {
	if s.release() {
		seqPoolOf[N, H, R]().Put(s)
	}
}

// set makes s, a spare seqFolder, fold with f and g.
func (s *seqFolder[N, H, R]) set(f Fold[N, H, R], g tree.Treeish[N]) {
	s.init, s.acc, s.fin, s.g, s.slice = f.Init, f.Accumulate, f.Finalize, g, g.SliceFunc()
	if s.deep != nil {
		s.deep.init, s.deep.acc, s.deep.fin, s.deep.g, s.deep.slice = f.Init, f.Accumulate, f.Finalize, g, g.SliceFunc()
	}
}

// release drops the references of s, whose fold returned normally, to the
// fold, and reports whether s is small enough to keep as a spare.
func (s *seqFolder[N, H, R]) release() bool {
	s.init, s.acc, s.fin, s.g, s.slice, s.w, s.canceled = nil, nil, nil, tree.Treeish[N]{}, nil, nil, nil
	d := s.deep
	if d == nil {
		return true
	}
	d.init, d.acc, d.fin, d.g, d.slice, d.w, d.canceled = nil, nil, nil, tree.Treeish[N]{}, nil, nil, nil
	return len(d.fs.chunks) <= maxSpareFrames/maxChunk && cap(d.ks.kids) <= maxSpareFrames
}

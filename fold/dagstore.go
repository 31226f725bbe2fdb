package fold

// The per-key state of RunDAG and where it lives.
//
// Each distinct key has one dagNode. Nodes are carved out of chunks that
// belong to the shard of the key map their key is in, and lists of
// children out of chunks that a participant's task allocates for itself
// (dagArena), so that a key costs no allocation of its own: a run's
// allocations grow with the number of chunks, not of keys. A node is found
// by its key through the map, split into shards, each behind its own mutex
// (dagKeys): the participant that inserts a key is the only one that
// creates its node and lists its children. The mutex is held only around the map operation
// (no user code runs under it; the key was computed before), and released
// by a deferred call, so that a key the map cannot hash (an interface
// holding a slice) panics without leaving the shard locked.

import (
	"hash/maphash"
	"math/bits"
	"sync"
	"sync/atomic"
)

// dagNode is the state of one key. node and kids are written by the
// participant that claimed the key, in discovery; parent, more and pos by
// the caller in the check; pending is the fold's counter, res its result.
type dagNode[N, R any] struct {
	node N
	res  R
	kids []*dagNode[N, R] // one per occurrence, in g's order

	// parent is the first parent occurrence the check reaches, which is
	// the parent the check's depth-first search descended from; more
	// lists the others.
	parent *dagNode[N, R]
	more   *dagLink[N, R]

	// pos is the check's state: 0 before it reaches the node, 1 + the
	// index of the next child to visit while the node is on the search's
	// path, -1 once it is finished.
	pos int

	// pending counts the child occurrences not yet folded; a node is
	// ready when it reaches 0.
	pending atomic.Int64
}

// dagLink is an additional parent occurrence of a node, in a list.
type dagLink[N, R any] struct {
	parent *dagNode[N, R]
	next   *dagLink[N, R]
}

// dagLinks hands out links from chunks of arenaMax, for the check (one
// goroutine).
type dagLinks[N, R any] struct {
	free []dagLink[N, R]
}

// add puts p in front of e's list of additional parents.
func (ls *dagLinks[N, R]) add(e, p *dagNode[N, R]) {
	if len(ls.free) == 0 {
		ls.free = make([]dagLink[N, R], arenaMax)
	}
	l := &ls.free[0]
	ls.free = ls.free[1:]
	l.parent, l.next = p, e.more
	e.more = l
}

// dagShard is one part of the key map, padded to its own cache lines. Its
// map holds the position of each key's node among the shard's nodes,
// which live in chunks (a chunk number and an index in the chunk, below
// arenaMax): so the map holds no pointer for the garbage collector to
// follow when the keys hold none.
type dagShard[N, R any, K comparable] struct {
	mu     sync.Mutex
	m      map[K]int
	chunks [][]dagNode[N, R]
	used   int // of the last chunk
	_      [88]byte
}

// node returns the node at position v.
func (sh *dagShard[N, R, K]) node(v int) *dagNode[N, R] {
	return &sh.chunks[v>>arenaShift][v&(arenaMax-1)]
}

// add returns a new zero node and its position.
func (sh *dagShard[N, R, K]) add() (int, *dagNode[N, R]) {
	last := len(sh.chunks) - 1
	if last < 0 || sh.used == len(sh.chunks[last]) {
		size := arenaFirst
		if last >= 0 {
			size = nextChunk(len(sh.chunks[last]))
		}
		sh.chunks = append(sh.chunks, make([]dagNode[N, R], size))
		last++
		sh.used = 0
	}
	v := last<<arenaShift | sh.used
	sh.used++
	return v, &sh.chunks[last][v&(arenaMax-1)]
}

// dagKeys maps each key to its node. With one shard no hash is computed.
type dagKeys[N, R any, K comparable] struct {
	shards []dagShard[N, R, K]
	mask   uint64
	seed   maphash.Seed
}

// init makes the shards: one for a pool of parallelism 1, else 8 per
// participant (a power of two, at most 256), so that two participants
// rarely want the same shard at once.
func (ks *dagKeys[N, R, K]) init(parallelism int) {
	n := 1
	if parallelism > 1 {
		n = 1 << min(bits.Len(uint(8*parallelism-1)), 8)
		ks.seed = maphash.MakeSeed()
	}
	ks.shards = make([]dagShard[N, R, K], n)
	ks.mask = uint64(n - 1)
}

// claim returns the node of k, creating it for n if k has none yet
// (claimed true).
func (ks *dagKeys[N, R, K]) claim(k K, n N) (e *dagNode[N, R], claimed bool) {
	sh := &ks.shards[0]
	if ks.mask != 0 {
		sh = &ks.shards[maphash.Comparable(ks.seed, k)&ks.mask]
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if v, ok := sh.m[k]; ok {
		return sh.node(v), false
	}
	if sh.m == nil {
		sh.m = make(map[K]int)
	}
	v, e := sh.add()
	e.node = n
	sh.m[k] = v
	return e, true
}

// dagArena hands out child lists from chunks owned by one participant's
// task. A chunk is twice the size of the one before, from arenaFirst up to
// arenaMax elements (the shards' node chunks grow the same way), so a
// short task wastes little and a long one allocates rarely. Handed-out
// memory is never reused within a run: the chunks live as long as the
// nodes that point into them.
type dagArena[N, R any] struct {
	kids     []*dagNode[N, R] // the unused rest of the current chunk
	kidChunk int
}

const (
	arenaFirst = 16
	arenaShift = 12
	arenaMax   = 1 << arenaShift
)

func nextChunk(last int) int {
	if last == 0 {
		return arenaFirst
	}
	return min(2*last, arenaMax)
}

// keep returns a copy of kids that lives as long as the run. A list
// longer than a chunk is kept as it is, and the caller gets nil back as
// its new buffer (it must not write to the kept list again).
func (a *dagArena[N, R]) keep(kids []*dagNode[N, R]) (kept, buf []*dagNode[N, R]) {
	n := len(kids)
	if n == 0 {
		return nil, kids
	}
	if n > arenaMax {
		return kids[:n:n], nil
	}
	if len(a.kids) < n {
		a.kidChunk = nextChunk(a.kidChunk)
		for a.kidChunk < n {
			a.kidChunk = nextChunk(a.kidChunk)
		}
		a.kids = make([]*dagNode[N, R], a.kidChunk)
	}
	kept = a.kids[:n:n]
	copy(kept, kids)
	a.kids = a.kids[n:]
	return kept, kids[:0]
}

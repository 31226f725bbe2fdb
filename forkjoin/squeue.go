package forkjoin

// spawnQueue is a participant's queue of spawned tasks of one priority: a
// Chase–Lev deque (see deque.go) whose thieves take up to half of it at
// once, so that a participant that runs out of work takes a share of a busy
// one's queue with one CAS instead of coming back for every task.
//
// Indices, ring, growth and the owner's push are deque's (ringQueue in
// deque.go). What differs:
//
//   - steal claims a range [t, t+k) of the oldest tasks with one CAS of top
//     from t to t+k, where k ≤ stealMax and k ≤ half of what it saw (at
//     least one).
//   - pop takes the newest task (index b, after storing bottom = b) without
//     a CAS only if b - t ≥ stealMax for the top t it loads after that
//     store; otherwise it takes the OLDEST task through the same CAS on top
//     a thief uses (so with fewer than stealMax+1 tasks the owner's order is
//     first-in first-out; spawned tasks promise no order within a
//     priority).
//
// Why no task is taken twice. Index b goes to the owner without a CAS only
// under b - t0 ≥ stealMax, t0 being the top it loaded after its store of
// bottom = b. Take a thief whose CAS of top from t to t+k succeeds. If the
// CAS came before the owner's load of top, t0 ≥ t+k, so b ≥ t+k lies above
// the thief's range. Otherwise the CAS came after that load, and top was
// still t at the CAS, so t ≥ t0. If the thief loaded bottom after the
// owner's store, it saw bottom ≤ b (or a later push, which put a new task
// at b after the owner's pop was over), so its range ends at or below b.
// If it loaded bottom before the owner's store, then its load of top came
// before the owner's load of top as well, so t ≤ t0, hence t = t0 (top
// never decreases), and its range [t0, t0+k) with k ≤ stealMax ≤ b - t0
// ends below b. Indices taken through the CAS of top go to exactly one
// taker, as in deque. All atomics are sequentially consistent, which is
// what "came before" refers to.
//
// Why a thief reads the right tasks. It reads the slots of [t, t+k) before
// its CAS; if the CAS succeeds top was t all along, and the owner writes
// only indices below t + ring size while top is t, so none of those slots
// was overwritten (after a growth a thief may read the old ring: it holds
// the same tasks at the same indices).

// stealMax is the most tasks one steal takes from a spawnQueue.
const stealMax = 32

type spawnQueue struct{ ringQueue }

func newSpawnQueue() *spawnQueue {
	q := &spawnQueue{}
	q.init()
	return q
}

// pushMany adds ts at the bottom in order (ts[0] first) with one
// publication. Owner only.
func (q *spawnQueue) pushMany(ts []*task) {
	if len(ts) == 0 {
		return
	}
	b := q.bottom.Load()
	r := q.buf.Load()
	n := int64(len(ts))
	if top := q.top.Load(); b+n-1-top > r.mask {
		r = q.growTo(r, top, b, b+n-top)
	}
	for i, t := range ts {
		r.slots[(b+int64(i))&r.mask].Store(t)
	}
	q.bottom.Store(b + n) // publish the slots
}

// pop removes a task: the newest while more than stealMax are queued,
// else the oldest; nil if the queue is empty. Owner only.
func (q *spawnQueue) pop() *task {
	b := q.bottom.Load() - 1
	if q.top.Load() > b {
		return nil // empty: only the owner adds tasks
	}
	r := q.buf.Load()
	q.bottom.Store(b) // claim slot b before looking at top (the fence)
	t := q.top.Load()
	if t > b {
		q.bottom.Store(b + 1)
		return nil
	}
	if b-t >= stealMax {
		return r.slots[b&r.mask].Load() // out of every thief's reach
	}
	q.bottom.Store(b + 1) // give slot b back; take from the top instead
	for ; t <= b; t = q.top.Load() {
		x := r.slots[t&r.mask].Load()
		if q.top.CompareAndSwap(t, t+1) {
			return x
		}
	}
	return nil
}

// steal takes up to half of the queue (at most stealMax, at least one
// task), oldest first, appending them to out. Any goroutine.
func (q *spawnQueue) steal(out []*task) ([]*task, stealResult) {
	t := q.top.Load()
	b := q.bottom.Load()
	n := b - t
	if n <= 0 {
		return out, empty
	}
	k := min((n+1)/2, stealMax)
	r := q.buf.Load()
	start := len(out)
	for i := int64(0); i < k; i++ {
		out = append(out, r.slots[(t+i)&r.mask].Load())
	}
	if !q.top.CompareAndSwap(t, t+k) {
		clear(out[start:])
		return out[:start], contended
	}
	return out, stolen
}

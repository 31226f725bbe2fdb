package main

import "sync"

// gqPool is the seed runtime's "global queue pool", written small: one
// mutex-guarded FIFO ring of tasks and a sync.Cond, a fixed set of worker
// goroutines taking the oldest task, no local queues and no stealing.
//
// A group is a fork-join scope on it. A goroutine waiting for its group runs
// that group's tasks that are still queued (newest first) instead of just
// blocking, which is what makes nested forks work with few workers: a waiter
// only ever waits for children that are either queued (then it runs them) or
// running elsewhere. It never runs another group's task, so the nesting on a
// goroutine's stack stays bounded by the depth of the computation.
type gqPool struct {
	mu     sync.Mutex
	cond   sync.Cond
	ring   []gqTask // a power-of-two ring: head is the oldest, n the count (holes included)
	head   int
	n      int
	closed bool
	wg     sync.WaitGroup
}

// gqTask is a queued closure; a taken-out slot in the middle of the ring is a
// hole (f == nil).
type gqTask struct {
	f func()
	g *gqGroup
}

// gqGroup counts the tasks of one scope that have not finished yet.
type gqGroup struct {
	p       *gqPool
	pending int  // guarded by p.mu
	waiting bool // guarded by p.mu: someone waits for pending == 0
}

// newGQPool starts workers background goroutines (the goroutine that waits
// on a group is one more participant).
func newGQPool(workers int) *gqPool {
	p := &gqPool{ring: make([]gqTask, 64)}
	p.cond.L = &p.mu
	p.wg.Add(workers)
	for i := 0; i < workers; i++ {
		go p.work()
	}
	return p
}

// close stops the workers once the queue is empty and waits for them.
func (p *gqPool) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cond.Broadcast()
	p.wg.Wait()
}

func (p *gqPool) group() *gqGroup { return &gqGroup{p: p} }

func (p *gqPool) scope() scope { return p.group() }

// push, pop and takeOwn need p.mu.
func (p *gqPool) push(t gqTask) {
	if p.n == len(p.ring) {
		bigger := make([]gqTask, 2*len(p.ring))
		for i := 0; i < p.n; i++ {
			bigger[i] = p.ring[(p.head+i)&(len(p.ring)-1)]
		}
		p.ring, p.head = bigger, 0
	}
	p.ring[(p.head+p.n)&(len(p.ring)-1)] = t
	p.n++
}

// pop takes the oldest task.
func (p *gqPool) pop() (gqTask, bool) {
	for p.n > 0 {
		t := p.ring[p.head]
		p.ring[p.head] = gqTask{}
		p.head = (p.head + 1) & (len(p.ring) - 1)
		p.n--
		if t.f != nil {
			return t, true
		}
	}
	return gqTask{}, false
}

// takeOwn takes the newest queued task of group g, leaving a hole.
func (p *gqPool) takeOwn(g *gqGroup) (gqTask, bool) {
	mask := len(p.ring) - 1
	for i := p.n - 1; i >= 0; i-- {
		slot := &p.ring[(p.head+i)&mask]
		if slot.g != g || slot.f == nil {
			continue
		}
		t := *slot
		*slot = gqTask{}
		for p.n > 0 && p.ring[(p.head+p.n-1)&mask].f == nil {
			p.n-- // trim holes at the tail
		}
		return t, true
	}
	return gqTask{}, false
}

// run runs t without the lock and accounts for it; it needs p.mu and holds it
// again on return.
func (p *gqPool) run(t gqTask) {
	p.mu.Unlock()
	t.f()
	p.mu.Lock()
	g := t.g
	g.pending--
	if g.pending == 0 && g.waiting {
		p.cond.Broadcast()
	}
}

func (p *gqPool) work() {
	defer p.wg.Done()
	p.mu.Lock()
	for {
		if t, ok := p.pop(); ok {
			p.run(t)
			continue
		}
		if p.closed {
			break
		}
		p.cond.Wait()
	}
	p.mu.Unlock()
}

// Go queues f in the group. Every sleeper is woken (there are at most P):
// the task may be for a worker or for the group's own waiter, and a Signal
// could wake a goroutine that cannot take it.
func (g *gqGroup) Go(f func()) {
	p := g.p
	p.mu.Lock()
	g.pending++
	p.push(gqTask{f: f, g: g})
	p.mu.Unlock()
	p.cond.Broadcast()
}

// Wait returns once every task of the group has finished, running the
// group's queued tasks itself while it waits.
func (g *gqGroup) Wait() {
	p := g.p
	p.mu.Lock()
	for g.pending > 0 {
		if t, ok := p.takeOwn(g); ok {
			p.run(t)
			continue
		}
		g.waiting = true
		p.cond.Wait()
	}
	g.waiting = false
	p.mu.Unlock()
}

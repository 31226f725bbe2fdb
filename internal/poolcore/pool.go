package poolcore

// How a worker lives.
//
// A worker is a goroutine that loops:
//
//	tok := wake.Prepare()
//	if stopping { exit }
//	if tok differs from the token of its last entry { Serve(); continue }
//	wake.Wait(tok) // park
//
// It enters the dispatcher (Serve) whenever the EventCount's epoch has moved
// since it last entered, and parks otherwise. Every NotifyOne/NotifyAll
// moves the epoch, so a notify that arrives while a worker is inside Serve
// makes it enter once more instead of parking: a worker that took its token
// before it last looked for work can never sleep through work announced
// after that look. The job decides what "work" is: for a raw Dispatch it is
// the one Job; for the work-stealing core it is a search of all deques that
// returns when it finds nothing, so that no worker ever parks inside a job.
//
// Workers start lazily, the first time work needs them (Dispatch starts all
// of them; WakeOne starts one when none is parked), through the spawn
// function, which may fail. A failed start is counted and tolerated: the
// work completes with the participants that exist, the caller alone if need
// be. After a failure, no new start is tried until the next run begins.
//
// Close stops the layers attached to the pool first (the core drains its
// tasks and unpins its job), waits for a Dispatch in progress, then sets
// stopping, wakes everyone and joins every worker goroutine.

import (
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/internal/goroutine"
)

// Pool is pool.Pool's implementation (see the package comment): a set of
// persistent worker goroutines plus the goroutine that uses it. All methods
// are safe for concurrent use.
type Pool struct {
	n          int
	maxWorkers int // n - 1
	spawn      func(run func()) error
	lifoSlot   bool // WithLIFOSlot: read by the layer above (LIFOSlot)

	disp dispatch.Dispatcher
	wake dispatch.EventCount

	stopping atomic.Bool
	closed   atomic.Bool

	mu             sync.Mutex
	workers        []*workerState // started workers, indexed by worker id; under mu
	alive          atomic.Int32   // workers started and not yet exited
	spawnBlockedAt int64          // run count at the last spawn failure, or -1; under mu
	closeDone      chan struct{}
	closing        bool
	closer         uint64 // the id of the goroutine running Close, until it returns; under mu
	wg             sync.WaitGroup

	attached atomic.Pointer[[]attachment] // copy-on-write; written under mu

	epoch         time.Time // the parked times' origin (parkClock)
	runs          atomic.Int64
	started       atomic.Int64
	spawnFailures atomic.Int64
	goexits       atomic.Int64 // workers a job ended with runtime.Goexit
}

// workerState holds one worker's counters; each on a line of its own.
type workerState struct {
	goid    atomic.Uint64 // the worker goroutine's id (internal/goroutine), for Close's check
	parks   atomic.Int64
	wakeups atomic.Int64
	parked  parkClock
	_       cacheline.Pad
}

type attachment struct {
	key any
	val Attachment
}

// New makes a pool of parallelism n ≥ 1 (pool.New has resolved 0 and
// refused a negative n); it starts no goroutine.
func New(n int, cfg Config) *Pool {
	return &Pool{
		n:              n,
		maxWorkers:     n - 1,
		spawn:          cfg.Spawn,
		lifoSlot:       cfg.LIFOSlot,
		spawnBlockedAt: -1,
		closeDone:      make(chan struct{}),
		epoch:          time.Now(),
	}
}

// Parallelism is pool.Pool.Parallelism.
func (p *Pool) Parallelism() int {
	p.check()
	return p.n
}

// Workers is pool.Pool.Workers.
func (p *Pool) Workers() int {
	p.check()
	return p.maxWorkers
}

func (p *Pool) check() {
	if p == nil {
		panic("pool: method called on a nil *Pool")
	}
}

func (p *Pool) checkOpen(what string) {
	p.check()
	if p.closed.Load() {
		panic("pool: " + what + " on a closed pool")
	}
}

// wakeAll starts every worker not yet started and wakes every parked one.
func (p *Pool) wakeAll() {
	if int(p.alive.Load()) < p.maxWorkers {
		p.startWorkers(p.maxWorkers)
	}
	p.wake.NotifyAll()
}

// startWorkers starts up to k more workers and returns how many started.
func (p *Pool) startWorkers(k int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closing || p.stopping.Load() {
		return 0
	}
	if p.spawnBlockedAt == p.runs.Load() {
		return 0 // a start failed during this run: retry in the next one
	}
	n := 0
	for n < k && len(p.workers) < p.maxWorkers {
		id := len(p.workers)
		ws := &workerState{}
		if err := p.spawnWorker(id, ws); err != nil {
			p.spawnFailures.Add(1)
			p.spawnBlockedAt = p.runs.Load()
			break
		}
		p.workers = append(p.workers, ws)
		p.started.Add(1)
		n++
	}
	return n
}

// spawnWorker counts a worker in and starts it. If the spawn function
// fails, or panics (a broken WithSpawn), the worker is counted out again so
// that Close does not wait for a goroutine that never started.
func (p *Pool) spawnWorker(id int, ws *workerState) (err error) {
	p.wg.Add(1)
	p.alive.Add(1)
	ok := false
	defer func() {
		if !ok {
			p.wg.Done()
			p.alive.Add(-1)
		}
	}()
	err = p.spawn(func() { p.workerLoop(id, ws) })
	ok = err == nil
	return err
}

func (p *Pool) workerLoop(id int, ws *workerState) {
	// A goroutine inherits the pprof labels of the one that started it,
	// here whichever caller first needed a worker: a worker carries none
	// of its own (the layers above set a run's while they run its work).
	pprof.SetGoroutineLabels(context.Background())
	ws.goid.Store(goroutine.ID())
	exited := true // until the loop returns: a runtime.Goexit in a job leaves it set
	defer func() {
		if exited {
			// The job reported the Goexit to whoever waits for it; the pool
			// gets its worker back. Started before this one counts out, so
			// that Close's wait never sees the count at zero in between.
			p.replaceWorker(id, ws)
		}
		p.alive.Add(-1)
		p.wg.Done()
	}()
	var last dispatch.Token
	entered := false
	for {
		tok := p.wake.Prepare()
		if p.stopping.Load() {
			exited = false
			return
		}
		if !entered || tok != last {
			entered, last = true, tok
			p.disp.Serve(id)
			continue
		}
		ws.parks.Add(1)
		ws.parked.park(p.clock())
		p.wake.Wait(tok)
		ws.parked.wake(p.clock())
		ws.wakeups.Add(1)
	}
}

// replaceWorker starts a goroutine to take the place of worker id, whose
// goroutine a job ended with runtime.Goexit, unless the pool is stopping.
// If it cannot be started, the pool goes on with one worker fewer (counted
// in Stats.SpawnFailures), as when a first start fails.
func (p *Pool) replaceWorker(id int, ws *workerState) {
	if p.stopping.Load() {
		p.goexits.Add(1) // counted all the same
		return
	}
	defer func() {
		if recover() != nil { // a broken WithSpawn: as an error
			p.spawnFailures.Add(1)
		}
		p.goexits.Add(1) // last: once it is seen, so is the replacement
	}()
	if p.spawnWorker(id, ws) != nil {
		p.spawnFailures.Add(1)
		return
	}
	p.started.Add(1)
}

// WorkersAlive is pool.Pool.WorkersAlive.
func (p *Pool) WorkersAlive() int {
	p.check()
	return int(p.alive.Load())
}

// Closed is pool.Pool.Closed.
func (p *Pool) Closed() bool {
	p.check()
	return p.closed.Load()
}

// Close is pool.Pool.Close (see there for what it guarantees).
func (p *Pool) Close() {
	p.check()
	me := goroutine.ID()
	p.mu.Lock()
	for _, ws := range p.workers {
		if ws.goid.Load() == me {
			p.mu.Unlock()
			panic(errCloseInside)
		}
	}
	if p.closing {
		closer := p.closer
		p.mu.Unlock()
		if closer == me {
			panic(errCloseInside) // a task the closing goroutine runs
		}
		<-p.closeDone
		return
	}
	p.closing, p.closer = true, me
	p.mu.Unlock()

	p.closeAttached()
	p.closed.Store(true)
	if p.disp.Pinned() == nil {
		// Wait for a Dispatch in progress: its turn ends after its latch.
		p.disp.Pin(&quiesceJob)
		p.disp.Unpin()
	}
	p.stopping.Store(true)
	p.wake.NotifyAll()
	p.wg.Wait()
	p.mu.Lock()
	p.closer = 0 // a Close after this one is a no-op, from any goroutine
	p.mu.Unlock()
	close(p.closeDone)
}

// errCloseInside is Close's panic when called from the pool's own work.
const errCloseInside = "pool: Close called from work running on the pool (a task, a fork, a callback, a Run's root): Close waits for that work, so it would wait for itself"

// closeAttached closes the attached layers, newest first. A layer's Close
// that panics (forkjoin's, called from inside one of its runs) leaves the
// pool open, as it found it.
func (p *Pool) closeAttached() {
	ok := false
	defer func() {
		if !ok {
			p.mu.Lock()
			p.closing, p.closer = false, 0
			p.mu.Unlock()
		}
	}()
	if as := p.attached.Load(); as != nil {
		for i := len(*as) - 1; i >= 0; i-- {
			(*as)[i].val.Close()
		}
	}
	ok = true
}

// quiesceJob is pinned for an instant by Close to wait for the end of a
// Dispatch in progress; workers that enter it return at once.
var quiesceJob = dispatch.Job{Call: func(unsafe.Pointer, int) {}}

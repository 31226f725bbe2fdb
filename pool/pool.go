package pool

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
	"fmt"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/internal/goroutine"
	"github.com/forkjoin-go/forkjoin/internal/poolcore"
)

// Pool is a set of persistent worker goroutines plus the goroutine that
// uses it: a pool of parallelism n has n-1 background workers, because the
// caller of a run works too.
//
// Create one with New (and Close it) or scope one with With. All methods
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
	val poolcore.Attachment
}

// statsAdder is an attachment that adds its counters to Stats.
type statsAdder interface {
	AddStats(s *Stats)
}

// New starts a pool of parallelism n: the goroutine that runs work on it
// plus n-1 background workers, started lazily when work first needs them.
// n == 0 means runtime.GOMAXPROCS(0). n < 0 panics.
//
// A pool must be closed with Close when it is no longer needed; With does
// that for a pool used in one scope.
func New(n int, opts ...Option) *Pool {
	if n < 0 {
		panic(fmt.Sprintf("pool: parallelism n = %d is negative; use 0 for the default (GOMAXPROCS)", n))
	}
	if n == 0 {
		n = DefaultParallelism()
	}
	cfg := config{spawn: goSpawn}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return &Pool{
		n:              n,
		maxWorkers:     n - 1,
		spawn:          cfg.spawn,
		lifoSlot:       cfg.lifoSlot,
		spawnBlockedAt: -1,
		closeDone:      make(chan struct{}),
		epoch:          time.Now(),
	}
}

// DefaultParallelism is the parallelism of a pool created with n == 0:
// runtime.GOMAXPROCS(0), which already reflects the process's CPU affinity
// and quota. The processor's physical core count (cpuid) is not used: on a
// machine with hyper-threads, GOMAXPROCS workers still run faster than one
// per physical core for fork-join work, and a user who wants one worker per
// core can pass PhysicalCores() explicitly.
func DefaultParallelism() int { return runtime.GOMAXPROCS(0) }

// With runs fn with a pool of parallelism n (see New) and closes the pool
// when fn returns or panics: every worker is stopped and joined before With
// returns, or before fn's panic continues with its original value.
func With(n int, fn func(p *Pool), opts ...Option) {
	if fn == nil {
		panic("pool: With called with a nil function")
	}
	p := New(n, opts...)
	defer p.Close()
	fn(p)
}

// Parallelism is the number of goroutines that can work on a run at once:
// the caller plus the background workers.
func (p *Pool) Parallelism() int {
	p.check()
	return p.n
}

// Workers is the number of background workers the pool may start, n-1.
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

// WorkersAlive reports how many background workers are running now (a
// snapshot: workers start lazily and stop only at Close).
func (p *Pool) WorkersAlive() int {
	p.check()
	return int(p.alive.Load())
}

// Closed reports whether the pool refuses new work: Close has finished
// the attached layers' work and is stopping the workers, or has stopped
// them. While Close drains (its layers' Close runs every submitted task),
// Closed is still false and work may still be given to the pool, which
// that Close then waits for: a goroutine that keeps submitting work until
// Closed holds Close up as long as it does so.
func (p *Pool) Closed() bool {
	p.check()
	return p.closed.Load()
}

// Close finishes the work on the pool and stops it: the packages that run
// work on it finish that work (submitted tasks run to completion), then
// every worker goroutine is stopped and joined. When Close
// returns no goroutine of the pool is left. Close is idempotent; a second
// call waits for the first to finish. After Close, what would give the
// pool work (the runs, folds, walks and spawns of the packages built on
// it) panics, saying the pool is closed; what only reports (Stats, Closed,
// Parallelism, Workers, WorkersAlive) still answers.
//
// Close must not be called from work running on the pool (a task, a fork,
// a callback of a fold, a Run's root): it waits for that work, so it would
// wait for itself. Such a call panics at once, saying so, and leaves the
// pool open: on one of the pool's workers, on the goroutine of a Close
// that is running the pool's remaining tasks, and (checked by the layer
// that runs work on the goroutine: forkjoin) on a goroutine inside a run of
// the pool. See docs/guarantees.md.
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

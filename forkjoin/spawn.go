package forkjoin

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/forkjoin-go/forkjoin/dispatch"
	"github.com/forkjoin-go/forkjoin/pool"
)

// spawnTask is the part every spawned task shares (a Handle's, a scope
// task's, a graph node's, a submitted Task's): the deque header, the task's
// own run (its forks, its context, its panic), its priority and what to do
// when it is over.
type spawnTask struct {
	hdr   task // first field
	rs    runState
	prio  Priority
	start time.Time
	body  spawnBody
}

// spawnBody is what a kind of spawned task does: run it, then learn how it
// ended (err is the task's panic as a *PanicError, or its context's error
// if it never ran, or nil).
type spawnBody interface {
	run(w *Worker)
	over(w *Worker, err error)
}

func (st *spawnTask) init(s *scheduler, prio Priority, ctx context.Context, body spawnBody) {
	prio.check()
	st.hdr.exec = execSpawn
	st.hdr.after = afterSpawn
	st.hdr.run = &st.rs
	st.hdr.state.Store(taskPending)
	st.rs = runState{ctx: ctx, sched: s}
	st.prio = prio
	st.body = body
}

// execSpawn runs a spawned task at a task boundary (Worker.execute).
func execSpawn(w *Worker, h *task) {
	st := (*spawnTask)(taskPointer(h))
	if ctx := st.rs.ctx; ctx != nil {
		if err := ctx.Err(); err != nil {
			st.rs.fail(err) // never started: afterSpawn reports ctx.Err()
			return
		}
		if ctx.Done() != nil {
			stop := context.AfterFunc(ctx, func() { st.rs.fail(ctx.Err()) })
			defer stop()
		}
	}
	// Task time feeds the injector interval; sampling one task in 16 keeps
	// two clock reads off most tasks.
	if w.timeTick++; w.timeTick%16 == 0 {
		st.start = time.Now()
	}
	st.body.run(w)
}

// afterSpawn is called by Worker.execute once the task is over, whether it
// returned, panicked or was skipped.
func afterSpawn(w *Worker, h *task) {
	st := (*spawnTask)(taskPointer(h))
	s := st.rs.sched
	if !st.start.IsZero() {
		w.noteTaskTime(time.Since(st.start))
		st.start = time.Time{}
	}
	err := st.rs.err()
	switch {
	case err == nil:
		s.spawned.completed[st.prio].Add(1)
	case dispatch.IsPanic(err):
		s.spawned.panicked[st.prio].Add(1)
	default:
		s.spawned.cancelled[st.prio].Add(1)
	}
	st.body.over(w, err)
	s.taskOver()
}

// submit queues st: on w's own queue if w is not nil (a task spawned by a
// task), else on the injector.
func (s *scheduler) submit(w *Worker, st *spawnTask) {
	s.pending.Add(1)
	s.spawned.submitted[st.prio].Add(1)
	if w != nil {
		w.pq[st.prio].push(&st.hdr)
	} else {
		s.inj.push(st.prio, &st.hdr)
	}
	s.wakeCheck()
	if s.maxWorkers == 0 || s.pool.WorkersAlive() == 0 {
		s.helpWanted.Store(true)
	}
}

// taskOver counts a spawned task out; the last one wakes a draining Close.
func (s *scheduler) taskOver() {
	if s.pending.Add(-1) == 0 {
		s.drained.NotifyAll()
	}
}

// SpawnOption configures a spawned task.
type SpawnOption func(*spawnConfig)

type spawnConfig struct {
	prio Priority
	ctx  context.Context
}

// WithPriority sets a spawned task's priority (default Normal).
func WithPriority(p Priority) SpawnOption {
	p.check()
	return func(c *spawnConfig) { c.prio = p }
}

// WithContext ties a spawned task to ctx: if ctx is done before the task
// starts, it is skipped and its handle reports ctx.Err(); once it runs, its
// Worker's Context is ctx and its forks stop when ctx is done.
func WithContext(ctx context.Context) SpawnOption {
	if ctx == nil {
		panic("forkjoin: WithContext(nil)")
	}
	return func(c *spawnConfig) { c.ctx = ctx }
}

func spawnOptions(opts []SpawnOption) spawnConfig {
	if len(opts) == 0 {
		return spawnConfig{prio: Normal}
	}
	return spawnOptionsSlow(opts)
}

// spawnOptionsSlow applies options; c escapes to them, so it is kept off
// the common path.
func spawnOptionsSlow(opts []SpawnOption) spawnConfig {
	c := spawnConfig{prio: Normal}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// Handle is the result of a spawned task, to be collected with Join or
// Wait, or watched with Done.
type Handle[T any] struct {
	st   spawnTask // first field
	p    *pool.Pool
	fn   func(w *Worker) (T, error)
	val  T
	err  error
	done Completion
	mu   sync.Mutex
	ch   chan struct{}
}

// Spawn runs fn as a task of its own on p's workers and returns at once
// with a handle to its result. It may be called from any goroutine. A panic
// in fn becomes the handle's error (a *PanicError with the value and
// stack); it never takes down a worker or the pool. Pool.Close (and the
// end of pool.With) waits for every spawned task, including the tasks
// they spawn.
func Spawn[T any](p *pool.Pool, fn func(w *Worker) (T, error), opts ...SpawnOption) *Handle[T] {
	if fn == nil {
		panic("forkjoin: Spawn with a nil function")
	}
	s := schedulerOf(p)
	c := spawnOptions(opts)
	h := &Handle[T]{p: p, fn: fn}
	h.st.init(s, c.prio, c.ctx, h)
	s.submit(nil, &h.st)
	return h
}

func (h *Handle[T]) run(w *Worker) { h.val, h.err = h.fn(w) }

func (h *Handle[T]) over(_ *Worker, err error) {
	if err != nil {
		var zero T
		h.val, h.err = zero, err
	}
	h.fn = nil
	h.mu.Lock()
	h.done.Complete()
	if h.ch != nil {
		close(h.ch)
	}
	h.mu.Unlock()
}

// Done returns a channel closed when the task is over. Waiting on it does
// not run tasks: on a pool whose workers could not start (or of
// parallelism 1), a task runs only when some goroutine Joins, Waits, runs
// work on the pool or closes it.
func (h *Handle[T]) Done() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ch == nil {
		h.ch = make(chan struct{})
		if h.done.Done() {
			close(h.ch)
		}
	}
	return h.ch
}

// Join waits for the task and returns its result: fn's value and error, or
// a *PanicError if fn panicked, or the context's error if it was cancelled
// before it started. While it waits, the calling goroutine helps run the
// pool's tasks (so Join works even on a pool whose workers could not
// start).
func (h *Handle[T]) Join() (T, error) {
	return h.Wait(context.Background())
}

// Wait is Join with a context: it returns ctx.Err() if ctx is done before
// the task is over (the task itself goes on).
func (h *Handle[T]) Wait(ctx context.Context) (T, error) {
	if !h.done.Done() {
		err := RunCtx(ctx, h.p, func(w *Worker) error {
			h.done.waiter.Store(w)
			w.helpUntil(func() bool { return h.done.Done() || ctx.Err() != nil }, nil)
			return nil
		})
		if !h.done.Done() {
			var zero T
			if err == nil {
				err = ctx.Err()
			}
			return zero, err
		}
	}
	return h.val, h.err
}

// Spawner spawns the tasks of a Scope.
type Spawner struct {
	sched   *scheduler
	ctx     context.Context
	pending atomic.Int64
	done    Completion
	failure atomic.Pointer[error]
	failed  atomic.Bool
}

// Scope runs fn, which spawns tasks with the Spawner it receives, and
// returns when fn and every task spawned in the scope (by fn or by those
// tasks, transitively) have finished; meanwhile the calling goroutine
// helps. If a task panics, the scope's tasks that have not started are
// skipped, and Scope re-panics with the first panic (a *PanicError) once
// everything is over.
func Scope(w *Worker, fn func(s *Spawner)) {
	if err := ScopeCtx(w.Context(), w, fn); err != nil {
		panic(err)
	}
}

// ScopeCtx is Scope with a context: tasks of the scope not yet started when
// ctx is done are skipped, running ones see ctx through their Worker. It
// returns the first failure: a task's panic (*PanicError) or ctx.Err().
func ScopeCtx(ctx context.Context, w *Worker, fn func(s *Spawner)) error {
	w.checkActive()
	if fn == nil {
		panic("forkjoin: Scope with a nil function")
	}
	sp := &Spawner{sched: w.sched, ctx: ctx}
	sp.pending.Add(1) // fn itself
	func() {
		defer sp.finishOne(nil)
		fn(sp)
	}()
	w.Wait(&sp.done)
	if p := sp.failure.Load(); p != nil {
		return *p
	}
	return nil
}

func (sp *Spawner) finishOne(err error) {
	if err != nil {
		sp.recordFailure(err)
	}
	if sp.pending.Add(-1) == 0 {
		sp.done.Complete()
	}
}

func (sp *Spawner) recordFailure(err error) {
	sp.failure.CompareAndSwap(nil, &err)
	sp.failed.Store(true)
}

type scopeTask struct {
	st spawnTask // first field
	sp *Spawner
	fn func(w *Worker)
}

func (t *scopeTask) run(w *Worker) {
	if t.sp.failed.Load() {
		w.Cancel(ErrAborted)
		return
	}
	t.fn(w)
}

func (t *scopeTask) over(_ *Worker, err error) {
	if errors.Is(err, ErrAborted) {
		err = nil // skipped because of an earlier failure, which is on record
	}
	sp := t.sp
	*t = scopeTask{}
	scopeTasks.Put(t) // nothing touches t after over returns
	sp.finishOne(err)
}

// scopeTasks recycles scope tasks: spawning in a scope allocates nothing
// in steady state but the caller's closure.
var scopeTasks = sync.Pool{New: func() any { return new(scopeTask) }}

// Spawn queues fn as a task of the scope on w, the Worker of the calling
// task (fn of Scope, or a task of the scope), from where other participants
// may take it.
func (sp *Spawner) Spawn(w *Worker, fn func(w *Worker), opts ...SpawnOption) {
	w.checkActive()
	if fn == nil {
		panic("forkjoin: Spawner.Spawn with a nil function")
	}
	c := spawnOptions(opts)
	ctx := sp.ctx
	if c.ctx != nil {
		ctx = c.ctx
	}
	t := scopeTasks.Get().(*scopeTask)
	t.sp, t.fn = sp, fn
	t.st.init(sp.sched, c.prio, ctx, t)
	sp.pending.Add(1)
	sp.sched.submit(w, &t.st)
}

// Submit queues an intrusive Task on p from any goroutine, with the given
// priority; some participant runs it once. Submitting allocates nothing.
// Pool.Close waits for submitted tasks. A panic in the task's function is
// kept (see Task.Panic) and counted; it does not affect other tasks.
func Submit(p *pool.Pool, t *Task, prio Priority) {
	s := schedulerOf(p)
	t.prepareSubmit(s, prio)
	s.submit(nil, &t.st)
}

// Batch collects intrusive Tasks to submit together: one lock of the
// injector and one wake-up decision for all of them. A Batch is reusable
// once submitted; it links the tasks through themselves and allocates
// nothing.
type Batch struct {
	head, tail *Task
	n          int
}

// Push adds t to the batch. t must have been initialised with Init and not
// be queued elsewhere.
func (b *Batch) Push(t *Task) {
	if t.fn == nil {
		panic("forkjoin: Batch.Push of a Task without Init")
	}
	t.next = nil
	if b.tail == nil {
		b.head = t
	} else {
		b.tail.next = t
	}
	b.tail = t
	b.n++
}

// Len is the number of tasks in the batch.
func (b *Batch) Len() int { return b.n }

// SubmitBatch submits every task of b with the given priority and empties
// b.
func SubmitBatch(p *pool.Pool, b *Batch, prio Priority) {
	s := schedulerOf(p)
	prio.check()
	if b.n == 0 {
		return
	}
	s.pending.Add(int64(b.n))
	s.spawned.submitted[prio].Add(int64(b.n))
	s.inj.mu.Lock()
	for t := b.head; t != nil; {
		next := t.next
		t.next = nil
		t.prepareSubmit(s, prio)
		s.inj.q[prio] = append(s.inj.q[prio], &t.st.hdr)
		t = next
	}
	s.inj.n[prio].Add(int64(b.n))
	s.inj.mu.Unlock()
	b.head, b.tail, b.n = nil, nil, 0
	s.wakeCheck()
	if s.maxWorkers == 0 || s.pool.WorkersAlive() == 0 {
		s.helpWanted.Store(true)
	}
}

func (t *Task) prepareSubmit(s *scheduler, prio Priority) {
	if t.fn == nil {
		panic("forkjoin: Submit of a Task without Init")
	}
	t.panic = nil
	t.st.init(s, prio, nil, (*submittedTask)(t))
}

// submittedTask is a Task seen as a spawnBody.
type submittedTask Task

func (t *submittedTask) run(w *Worker) { t.fn(w, (*Task)(t)) }

func (t *submittedTask) over(_ *Worker, err error) {
	if err != nil {
		t.panic = asPanic(err)
	}
}

// asPanic returns err's *PanicError, or nil. (Kept apart from the callers:
// errors.As makes its target escape, an allocation they avoid when err is
// nil.)
func asPanic(err error) *PanicError {
	var pe *PanicError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// Panic returns the panic of a submitted Task's last run, or nil.
func (t *Task) Panic() *PanicError { return t.panic }

// drain runs from Pool.Close: it waits until every spawned task is over,
// running tasks on the calling goroutine if the pool has no worker to.
func (s *scheduler) drain() {
	for s.pending.Load() != 0 {
		tok := s.drained.Prepare()
		if s.pending.Load() == 0 {
			return
		}
		if s.maxWorkers == 0 || s.pool.WorkersAlive() == 0 || s.helpWanted.Load() {
			// Nobody else may run them: take part until they are done.
			_ = run(nil, s.pool, func(w *Worker) error {
				w.helpUntil(func() bool { return s.pending.Load() == 0 }, nil)
				return nil
			})
			continue
		}
		s.wakeCheck()
		s.drained.Wait(tok)
	}
}

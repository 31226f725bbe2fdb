package forkjoin

// Intrusive Tasks: work that lives in the user's memory, submitted from any
// goroutine, alone (Submit) or in a Batch (SubmitBatch).
//
// A Task embeds a spawnTask, so a submitted Task is a spawned task like
// any other (spawn.go): it goes to the injector (drain.go, inject), runs at
// a task boundary, and its end is reported to it (submittedTask.over).
// Submitting allocates nothing: the task's run state lives in the Task.
// A Task pushed from inside a run (core.Push, plumbing.go) uses only the
// header and is run as part of that run.
//
// How a submitter learns that a submission is over: the end records the
// panic (an atomic store), then marks the Task over in done and closes the
// channel that Done made, if any. done holds nil for a Task never
// submitted, taskUnderWay from Submit until the end, and then closedDone,
// or the channel Done made meanwhile until the end swaps closedDone in and
// closes it. So a receive from Done's channel, or Pool.Close's return
// (Close waits for every submitted task), happens after the panic's store,
// and Panic, loaded then, sees it.

import (
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/pool"
)

// Task is an intrusive unit of work: embed a Task in your own struct, set
// its function with Init, and queue it on a pool with Submit or
// SubmitBatch, from any goroutine. Some participant of the pool calls the
// function exactly once, on its own goroutine, with its own *Worker.
// Submitting allocates nothing: the task lives in your memory.
//
// Wait for a submitted Task with Done, or with the pool's Close, which
// returns only once every submitted Task is over. A panic in the function
// is kept (Panic). A signal that the function itself sends (a channel it
// closes, a sync.WaitGroup it marks done, even in a deferred call) comes
// before the Task is over: it says the work is done, not that Panic is
// set.
type Task struct {
	st    spawnTask // first field: its header is the Task's header
	fn    func(w *Worker, t *Task)
	next  *Task                      // link in a Batch
	panic atomic.Pointer[PanicError] // of the last submission
	done  atomic.Pointer[chan struct{}]
}

// Sentinels of Task.done (see the file comment): the submission under way
// with no channel made yet, and the submission over.
var (
	taskUnderWay = new(chan struct{})
	closedDone   = func() *chan struct{} {
		c := make(chan struct{})
		close(c)
		return &c
	}()
)

// Init sets the function the Task runs. A submitted Task is the core's
// until it is over, just after its function returns, because its memory
// holds the state of that submission's run: submitting it again before
// then (from its own function, or on a signal that function sent) is a
// misuse that the core does not detect. Pool.Close returns only once every
// submitted Task is over.
func (t *Task) Init(fn func(w *Worker, t *Task)) {
	if fn == nil {
		panic("forkjoin: Task.Init with a nil function")
	}
	t.fn = fn
	t.st.hdr.exec = execIntrusive
}

// Panic returns the panic of the Task's last submission once that
// submission is over (see Done), or nil if its function returned. While
// the submission is under way it returns nil.
func (t *Task) Panic() *PanicError { return t.panic.Load() }

// Done returns a channel that is closed once the Task's last submission is
// over: its function has returned or panicked and Panic says which. For a
// Task that was never submitted the channel is closed already. Call Done
// after Submit: a Done of an earlier submission does not see the next one.
// Done allocates a channel the first time it is called for a submission
// still under way, and nothing otherwise.
func (t *Task) Done() <-chan struct{} {
	for {
		p := t.done.Load()
		switch p {
		case nil:
			return *closedDone
		case taskUnderWay:
			c := make(chan struct{})
			if t.done.CompareAndSwap(taskUnderWay, &c) {
				return c
			}
		default:
			return *p
		}
	}
}

// execIntrusive runs a user's Task. The header is the first field of
// Task's first field, so the conversion is exact.
func execIntrusive(w *Worker, h *task) {
	t := (*Task)(taskPointer(h))
	t.fn(w, t)
}

// Submit queues an intrusive Task on p from any goroutine; some
// participant runs it once. Of the options, WithPriority applies (default
// Normal); WithContext does not (a Task has no result to report a skip
// in) and panics. Submitting without options allocates nothing.
// Pool.Close waits for submitted tasks. A panic in the task's function is
// kept (see Task.Panic) and counted; it does not affect other tasks.
func Submit(p *pool.Pool, t *Task, opts ...SpawnOption) {
	if t == nil {
		panic("forkjoin: Submit of a nil *Task")
	}
	s := schedulerOf(p)
	prio := submitPriority("Submit", opts)
	t.prepareSubmit(s, prio)
	if !s.tryInject(&t.st) {
		t.done.Store(nil) // not submitted after all: Done is not kept waiting
		s.refuse(prio, 1)
	}
	s.wakeForNew()
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
	if t == nil {
		panic("forkjoin: Batch.Push of a nil *Task")
	}
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

// SubmitBatch submits every task of b and empties b. Its options are
// Submit's.
func SubmitBatch(p *pool.Pool, b *Batch, opts ...SpawnOption) {
	if b == nil {
		panic("forkjoin: SubmitBatch of a nil *Batch")
	}
	s := schedulerOf(p)
	prio := submitPriority("SubmitBatch", opts)
	if b.n == 0 {
		return
	}
	s.pending.Add(int64(b.n)) // before the look at the seal (drain.go)
	s.spawned.submitted[prio].Add(int64(b.n))
	s.injector.mu.Lock()
	if s.sealed {
		s.injector.mu.Unlock()
		s.refuse(prio, int64(b.n))
	}
	for t := b.head; t != nil; {
		next := t.next
		t.next = nil
		t.prepareSubmit(s, prio)
		s.injector.tasks[prio] = append(s.injector.tasks[prio], &t.st.hdr)
		t = next
	}
	s.injector.queued[prio].Add(int64(b.n))
	s.injector.mu.Unlock()
	b.head, b.tail, b.n = nil, nil, 0
	s.wakeForNew()
}

// prepareSubmit readies t's spawnTask for a submission at priority prio
// on s.
func (t *Task) prepareSubmit(s *scheduler, prio Priority) {
	if t.fn == nil {
		panic("forkjoin: Submit of a Task without Init")
	}
	t.panic.Store(nil)
	t.done.Store(taskUnderWay)
	t.st.init(s, prio, nil, nil, (*submittedTask)(t))
}

// submittedTask is a Task seen as a spawnBody.
type submittedTask Task

// run calls the Task's function.
func (t *submittedTask) run(w *Worker) { t.fn(w, (*Task)(t)) }

// over keeps the run's panic, if it failed with one, for Task.Panic, then
// marks the submission over and closes Done's channel. Nothing of t is
// touched after that: its owner may submit it again.
func (t *submittedTask) over(_ *Worker, err error) {
	if err != nil {
		t.panic.Store(asPanic(err))
	}
	if c := t.done.Swap(closedDone); c != taskUnderWay && c != closedDone && c != nil {
		close(*c)
	}
}

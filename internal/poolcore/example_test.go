package poolcore_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
	"github.com/forkjoin-go/forkjoin/internal/poolcore"
	"github.com/forkjoin-go/forkjoin/pool"
)

// squares is a parallel loop: the caller and the workers claim indexes
// until none is left, so it completes with whoever takes part.
type squares struct {
	out  []int64
	next atomic.Int64
}

func (s *squares) work() {
	for {
		i := int(s.next.Add(1) - 1)
		if i >= len(s.out) {
			return
		}
		s.out[i] = int64(i) * int64(i)
	}
}

// job wraps the loop in a two-word dispatch.Job for the workers.
func (s *squares) job() *dispatch.Job {
	return &dispatch.Job{
		Call: func(data unsafe.Pointer, worker int) { (*squares)(data).work() },
		Data: unsafe.Pointer(s),
	}
}

func (s *squares) sum() (total int64) {
	for _, v := range s.out {
		total += v
	}
	return total
}

// Dispatch publishes a job to the workers, runs the body on the caller and
// returns when nobody is inside the job any more, so its data can be
// reused at once.
func ExamplePool_Dispatch() {
	p := pool.New(2)
	defer p.Close()
	s := &squares{out: make([]int64, 100)}
	job := s.job()
	for run := 1; run <= 3; run++ {
		s.next.Store(0) // recycle the same state for the next run
		clear(s.out)
		(*poolcore.Pool)(p).Dispatch(job, s.work)
		fmt.Println("run", run, "sum", s.sum())
	}
	// Output:
	// run 1 sum 328350
	// run 2 sum 328350
	// run 3 sum 328350
}

// A layer with its own scheduler pins a job and wakes workers into it one
// at a time; Unpin seals and latches it.
func ExamplePool_Pin() {
	p := pool.New(3)
	defer p.Close()
	var entries atomic.Int32
	(*poolcore.Pool)(p).Pin(&dispatch.Job{Call: func(unsafe.Pointer, int) { entries.Add(1) }})
	(*poolcore.Pool)(p).WakeOne() // starts a worker, which enters the pinned job
	for entries.Load() == 0 {
		runtime.Gosched()
	}
	(*poolcore.Pool)(p).Unpin() // no worker is inside the job after this
	fmt.Println("entries:", entries.Load(), "started:", p.Stats().WorkersStarted)
	// Output: entries: 1 started: 1
}

func ExamplePool_Unpin() {
	p := pool.New(2)
	defer p.Close()
	(*poolcore.Pool)(p).Pin(&dispatch.Job{Call: func(unsafe.Pointer, int) {}})
	(*poolcore.Pool)(p).Unpin()
	s := &squares{out: make([]int64, 4)}
	(*poolcore.Pool)(p).Dispatch(s.job(), s.work) // Dispatch works again once unpinned
	fmt.Println(s.sum())
	// Output: 14
}

// WakeOne reports whether a worker will enter the published job; a pool of
// parallelism 1 has none to wake.
func ExamplePool_WakeOne() {
	p := pool.New(1)
	defer p.Close()
	(*poolcore.Pool)(p).Pin(&dispatch.Job{Call: func(unsafe.Pointer, int) {}})
	fmt.Println((*poolcore.Pool)(p).WakeOne())
	(*poolcore.Pool)(p).Unpin()
	// Output: false
}

func ExamplePool_CountRun() {
	p := pool.New(2)
	defer p.Close()
	(*poolcore.Pool)(p).CountRun() // a layer running work on a pinned job counts each run
	(*poolcore.Pool)(p).CountRun()
	fmt.Println(p.Stats().Runs)
	// Output: 2
}

// scheduler stands for a layer's per-pool state, such as the work-stealing
// core's.
type scheduler struct{ tasks int64 }

func (s *scheduler) Close()                  { fmt.Println("scheduler closed") }
func (s *scheduler) AddStats(st *pool.Stats) { st.Tasks += s.tasks }

type schedulerKey struct{}

func ExamplePool_Attach() {
	p := pool.New(2)
	create := func(*poolcore.Pool) poolcore.Attachment {
		fmt.Println("scheduler created")
		return &scheduler{tasks: 42}
	}
	a := (*poolcore.Pool)(p).Attach(schedulerKey{}, create)
	b := (*poolcore.Pool)(p).Attach(schedulerKey{}, create) // found, not created again
	fmt.Println(a == b, p.Stats().Tasks)
	p.Close() // closes the attachments first
	// Output:
	// scheduler created
	// true 42
	// scheduler closed
}

// layer is the per-pool state of a layer above the pool: it reports its
// counter through AddStats and is closed by the pool's Close.
type layer struct {
	name  string
	tasks int64
}

func (l *layer) Close()                  { fmt.Println("close", l.name) }
func (l *layer) AddStats(st *pool.Stats) { st.Tasks += l.tasks }

// layerKey keys a layer's attachment; an unexported key type keeps other
// packages from colliding with it.
type layerKey string

// Each layer keeps its state on the pool as an Attachment. Stats adds up
// what every layer reports, and Close closes the layers in reverse order of
// attachment, before it stops the workers.
func ExampleAttachment() {
	p := pool.New(2)
	for _, name := range []string{"first", "second"} {
		(*poolcore.Pool)(p).Attach(layerKey(name), func(*poolcore.Pool) poolcore.Attachment {
			return &layer{name: name, tasks: 5}
		})
	}
	fmt.Println("tasks:", p.Stats().Tasks)
	p.Close()
	// Output:
	// tasks: 10
	// close second
	// close first
}

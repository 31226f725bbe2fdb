package forkjoin

import (
	"fmt"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestTaskDoneAndPanic: a submitter that waits for a Task through a
// channel that the Task's function closes in a deferred call, then reads
// Panic. The function's own signal comes before the Task is over, so Panic
// may still say nil then, but reading it is no data race (the race
// detector checks the read against the Task's end); after a receive from
// Done, Panic always has the panic. Then the same for a Task that returns,
// a Task never submitted (its Done is closed) and a Submit refused by a
// closed pool (its Done is closed too, not left waiting).
func TestTaskDoneAndPanic(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	rounds := 2000
	if raceEnabled {
		rounds = 500
	}
	var task Task
	early := 0
	for i := range rounds {
		signal := make(chan struct{})
		task.Init(func(*Worker, *Task) {
			defer close(signal)
			panic(i)
		})
		Submit(p, &task)
		<-signal
		if pe := task.Panic(); pe != nil {
			if pe.Value != i {
				t.Fatalf("round %d: Panic before Done = %v, want nil or %d", i, pe.Value, i)
			}
			early++
		}
		<-task.Done()
		if pe := task.Panic(); pe == nil || pe.Value != i {
			t.Fatalf("round %d: Panic after Done = %v, want the panic %d", i, pe, i)
		}
	}
	t.Logf("Panic read right after the function's own signal had the panic in %d of %d rounds", early, rounds)

	ran := make(chan struct{})
	task.Init(func(*Worker, *Task) { close(ran) })
	Submit(p, &task)
	<-task.Done()
	<-ran
	if pe := task.Panic(); pe != nil {
		t.Fatalf("a Task that returned: Panic = %v, want nil", pe)
	}

	var never Task
	select {
	case <-never.Done():
	default:
		t.Fatal("the Done of a Task never submitted is not closed")
	}

	p.Close()
	var refused Task
	refused.Init(func(*Worker, *Task) {})
	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		Submit(p, &refused)
		return ""
	}()
	if msg == "" || msg == "<nil>" {
		t.Fatal("Submit on a closed pool did not panic")
	}
	select {
	case <-refused.Done():
	default:
		t.Fatal("the Done of a Task whose Submit was refused is not closed")
	}
}

// TestTaskDoneRaces: several goroutines call Done while the Task ends, some
// before it ends and some as it does; every channel they get must close
// (a channel made by a Done that lost the race with the end would never
// close, and its waiter would hang: each wait is bounded).
func TestTaskDoneRaces(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	rounds := 1000
	if raceEnabled {
		rounds = 200
	}
	const waiters = 4
	var task Task
	for i := range rounds {
		release := make(chan struct{})
		task.Init(func(*Worker, *Task) { <-release })
		Submit(p, &task)
		got := make(chan (<-chan struct{}), waiters)
		for range waiters {
			go func() { got <- task.Done() }()
		}
		if i%2 == 0 {
			close(release) // the end races with the Done calls
		}
		chans := make([]<-chan struct{}, 0, waiters)
		for range waiters {
			chans = append(chans, <-got)
		}
		if i%2 == 1 {
			close(release) // every Done came first
		}
		for _, c := range chans {
			select {
			case <-c:
			case <-time.After(testcheck.StuckAfter):
				t.Fatalf("round %d: a channel from Done never closed", i)
			}
		}
	}
}

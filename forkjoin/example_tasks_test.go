package forkjoin_test

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

func ExampleSpawn() {
	pool.With(2, func(p *pool.Pool) {
		h := forkjoin.Spawn(p, func(w *forkjoin.Worker) (string, error) {
			return "hello from a task", nil
		})
		fmt.Println(h.Join())
	})
	// Output: hello from a task <nil>
}

func ExampleHandle_Wait() {
	pool.With(2, func(p *pool.Pool) {
		h := forkjoin.Spawn(p, func(w *forkjoin.Worker) (int, error) { return 7, nil },
			forkjoin.WithPriority(forkjoin.High))
		v, err := h.Wait(context.Background())
		fmt.Println(v, err)
	})
	// Output: 7 <nil>
}

func ExampleScope() {
	pool.With(2, func(p *pool.Pool) {
		var n atomic.Int64
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.Spawner) {
				for i := 0; i < 10; i++ {
					s.Spawn(w, func(w *forkjoin.Worker) {
						n.Add(1)
						s.Spawn(w, func(*forkjoin.Worker) { n.Add(1) }) // tasks may spawn more
					})
				}
			})
			fmt.Println(n.Load()) // Scope waited for all 20
		})
	})
	// Output: 20
}

func ExampleGraph() {
	g := forkjoin.NewGraph()
	a := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return 20, nil }, nil)
	b := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return 1, nil }, nil)
	sum := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
		return a.Value() + b.Value(), nil // dependencies are done
	}, []forkjoin.Dep{a, b})
	twice := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
		return 2 * sum.Value(), nil
	}, []forkjoin.Dep{sum})
	pool.With(2, func(p *pool.Pool) {
		fmt.Println(g.Run(p), twice.Value())
	})
	// Output: <nil> 42
}

// A Graph built once and run for each input: every run starts afresh.
func ExampleGraph_runAgain() {
	var input int
	g := forkjoin.NewGraph()
	square := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return input * input, nil }, nil)
	double := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return 2 * input, nil }, nil)
	sum := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
		return square.Value() + double.Value(), nil
	}, []forkjoin.Dep{square, double})
	pool.With(2, func(p *pool.Pool) {
		for input = 1; input <= 3; input++ {
			if err := g.Run(p); err != nil {
				panic(err)
			}
			fmt.Println(input, sum.Value())
		}
	})
	// Output:
	// 1 3
	// 2 8
	// 3 15
}

type job struct {
	task forkjoin.Task
	n    *atomic.Int64
}

func ExampleSubmitBatch() {
	var done atomic.Int64
	jobs := make([]job, 100) // the tasks live in the caller's memory: nothing is allocated per task
	var b forkjoin.Batch
	for i := range jobs {
		j := &jobs[i]
		j.n = &done
		j.task.Init(func(*forkjoin.Worker, *forkjoin.Task) { j.n.Add(1) })
		b.Push(&j.task)
	}
	p := pool.New(2)
	forkjoin.SubmitBatch(p, &b, forkjoin.WithPriority(forkjoin.Background))
	p.Close() // waits for submitted tasks
	fmt.Println(done.Load())
	// Output: 100
}

func ExampleSubmit() {
	var t forkjoin.Task
	ran := make(chan string, 1)
	t.Init(func(*forkjoin.Worker, *forkjoin.Task) { ran <- "ran" })
	p := pool.New(2)
	forkjoin.Submit(p, &t, forkjoin.WithPriority(forkjoin.High))
	p.Close()
	fmt.Println(<-ran, t.Panic())
	// Output: ran <nil>
}

func ExamplePriority() {
	// With one participant and everything queued first, tasks start in
	// priority order.
	p := pool.New(1)
	order := make(chan forkjoin.Priority, 3)
	for _, pr := range []forkjoin.Priority{forkjoin.Background, forkjoin.Normal, forkjoin.High} {
		pr := pr
		forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) { order <- pr; return 0, nil }, forkjoin.WithPriority(pr))
	}
	p.Close()
	fmt.Println(<-order, <-order, <-order)
	// Output: High Normal Background
}

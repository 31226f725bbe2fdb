// Command tasks shows forkjoin's task runtime on the same pool as its
// fork-join core: spawned tasks with typed handles, priorities, a task
// canceled through its context, a structured Scope, a Group whose first
// failure cancels the rest, and a dependency Graph whose nodes start as
// soon as their last dependency finishes.
//
//	go run ./examples/tasks
//	go run ./examples/tasks -p 4 -jobs 200
//
// The program is a toy build: "compile" jobs of different sizes are
// spawned with a priority each, one job is canceled, then a link step
// waits on all compile steps through a Graph.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// work is a deterministic CPU-bound stand-in for compiling: a hash of n
// rounds of mixing.
func work(seed uint64, n int) uint64 {
	h := seed*0x9E3779B97F4A7C15 + 1
	for i := 0; i < n; i++ {
		h ^= h >> 31
		h *= 0xBF58476D1CE4E5B9
		h ^= h >> 29
	}
	return h
}

// Report is what the program prints.
type Report struct {
	Spawned, Canceled, Panicked int
	Checksum                    uint64
	ScopeTasks                  int64
	GroupErr                    string
	Link                        uint64
	GraphOrderOK                bool
}

// Run does the whole demonstration on a pool of parallelism p.
func Run(p, jobs int) (Report, error) {
	var rep Report
	var runErr error
	pool.With(p, func(pl *pool.Pool) {
		// 1. Spawn with handles and priorities; one job panics, one is
		// canceled before it starts.
		canceled, cancel := context.WithCancel(context.Background())
		cancel()
		handles := make([]*forkjoin.Handle[uint64], jobs)
		for i := range handles {
			i := i
			opts := []forkjoin.SpawnOption{forkjoin.WithPriority(forkjoin.Priority(i % 3))}
			if i == 3 {
				opts = append(opts, forkjoin.WithContext(canceled))
			}
			handles[i] = forkjoin.Spawn(pl, func(w *forkjoin.Worker) (uint64, error) {
				if i == 5 {
					panic("compiler crashed on job 5")
				}
				return work(uint64(i), 1000+100*(i%7)), nil
			}, opts...)
		}
		for i, h := range handles {
			v, err := h.Join()
			var pe *forkjoin.PanicError
			switch {
			case errors.Is(err, context.Canceled):
				rep.Canceled++
			case errors.As(err, &pe):
				rep.Panicked++
			case err != nil:
				runErr = fmt.Errorf("job %d: %w", i, err)
				return
			default:
				rep.Spawned++
				rep.Checksum ^= v
			}
		}

		// 2. A structured scope: tasks spawn tasks; Scope returns when all
		// are done.
		var n atomic.Int64
		forkjoin.Run(pl, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.Spawner) {
				var split func(w *forkjoin.Worker, lo, hi int)
				split = func(w *forkjoin.Worker, lo, hi int) {
					n.Add(1)
					if hi-lo > 1 {
						mid := (lo + hi) / 2
						s.Spawn(w, func(w *forkjoin.Worker) { split(w, lo, mid) })
						s.Spawn(w, func(w *forkjoin.Worker) { split(w, mid, hi) })
					}
				}
				s.Spawn(w, func(w *forkjoin.Worker) { split(w, 0, jobs) })
			})
		})
		rep.ScopeTasks = n.Load()

		// A group of checks that return errors: the first failure wins,
		// and the context it cancels stops the checks still running.
		grp, ctx := forkjoin.NewGroup(context.Background(), pl)
		for i := range jobs {
			grp.Go(func() error {
				if i == 4 {
					return fmt.Errorf("check %d failed", i)
				}
				for range 20 {
					if err := ctx.Err(); err != nil {
						return err
					}
					work(uint64(i), 500)
				}
				return nil
			})
		}
		err := grp.Wait()
		rep.GroupErr = fmt.Sprint(err)

		// 3. A graph: compile steps, then a link step that depends on all.
		g := forkjoin.NewGraph()
		var finished atomic.Int64
		var deps []forkjoin.Dep
		var compiles []*forkjoin.GraphNode[uint64]
		for i := 0; i < 8; i++ {
			i := i
			c := forkjoin.AddNode(g, func(*forkjoin.Worker) (uint64, error) {
				finished.Add(1)
				return work(uint64(100+i), 2000), nil
			}, nil)
			compiles = append(compiles, c)
			deps = append(deps, c)
		}
		link := forkjoin.AddNode(g, func(*forkjoin.Worker) (uint64, error) {
			rep.GraphOrderOK = finished.Load() == int64(len(compiles)) // all inputs are done
			var h uint64
			for _, c := range compiles {
				h = h*31 + c.Value() // in order: a deterministic link
			}
			return h, nil
		}, deps, forkjoin.WithPriority(forkjoin.High))
		if err := g.Run(pl); err != nil {
			runErr = err
			return
		}
		rep.Link = link.Value()
	})
	return rep, runErr
}

// Print writes the report.
func Print(out io.Writer, rep Report) {
	lines := []string{
		fmt.Sprintf("spawned tasks: %d ok, %d canceled before start, %d panicked (reported, pool unharmed)", rep.Spawned, rep.Canceled, rep.Panicked),
		fmt.Sprintf("checksum of results: %016x", rep.Checksum),
		fmt.Sprintf("scope: %d tasks, all finished when Scope returned", rep.ScopeTasks),
		fmt.Sprintf("group: Wait returned the first failure: %s", rep.GroupErr),
		fmt.Sprintf("graph: link ran after all compile steps: %v; link = %016x", rep.GraphOrderOK, rep.Link),
	}
	for _, l := range lines {
		fmt.Fprintln(out, l)
	}
}

func main() {
	p := flag.Int("p", 0, "parallelism (0: GOMAXPROCS)")
	jobs := flag.Int("jobs", 60, "number of spawned jobs (at least 6)")
	flag.Parse()
	if *jobs < 6 || *p < 0 {
		fmt.Fprintln(os.Stderr, "tasks: -jobs must be at least 6 and -p not negative")
		os.Exit(2)
	}
	rep, err := Run(*p, *jobs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tasks:", err)
		os.Exit(1)
	}
	Print(os.Stdout, rep)
}

package forkjoin_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

func TestSpawnResultsPanicsAndDone(t *testing.T) {
	leakcheck.Check(t)
	for _, n := range []int{1, 2, 4} {
		pool.With(n, func(p *pool.Pool) {
			var hs []*forkjoin.Handle[int]
			for i := 0; i < 200; i++ {
				i := i
				hs = append(hs, forkjoin.Spawn(p, func(w *forkjoin.Worker) (int, error) {
					if i%50 == 7 {
						panic(i)
					}
					if i%50 == 9 {
						return 0, errors.New("nine")
					}
					return i * i, nil
				}))
			}
			for i, h := range hs {
				v, err := h.Join()
				<-h.Done() // closed once the task is over
				switch {
				case i%50 == 7:
					var pe *forkjoin.PanicError
					if !errors.As(err, &pe) || pe.Value != i || len(pe.Stack) == 0 {
						t.Fatalf("n=%d task %d: err %v, want its panic", n, i, err)
					}
				case i%50 == 9:
					if err == nil || err.Error() != "nine" {
						t.Fatalf("n=%d task %d: err %v", n, i, err)
					}
				default:
					if err != nil || v != i*i {
						t.Fatalf("n=%d task %d: %d, %v", n, i, v, err)
					}
				}
			}
			st := p.Stats()
			if st.Submitted != 200 || st.Completed+st.Panicked != 200 || st.Panicked != 4 {
				t.Fatalf("n=%d stats: %+v", n, st)
			}
		})
	}
}

// With every worker start failing, spawned tasks still run: the goroutine
// that joins (or closes the pool) runs them.
func TestSpawnWithoutWorkers(t *testing.T) {
	leakcheck.Check(t)
	fail := pool.WithSpawn(func(func()) error { return errors.New("no threads today") })
	pool.With(4, func(p *pool.Pool) {
		h := forkjoin.Spawn(p, func(w *forkjoin.Worker) (string, error) { return "ran", nil })
		if v, err := h.Join(); v != "ran" || err != nil {
			t.Fatalf("Join: %q, %v", v, err)
		}
		var ran atomic.Int64
		for i := 0; i < 100; i++ {
			forkjoin.Spawn(p, func(w *forkjoin.Worker) (struct{}, error) { ran.Add(1); return struct{}{}, nil })
		}
		p.Close() // drains by itself
		if ran.Load() != 100 {
			t.Fatalf("Close drained %d of 100 tasks", ran.Load())
		}
	}, fail)
}

func TestCloseDrainsTasksSpawningTasks(t *testing.T) {
	leakcheck.Check(t)
	var ran atomic.Int64
	p := pool.New(3)
	var spawn func(depth int)
	spawn = func(depth int) {
		forkjoin.Spawn(p, func(w *forkjoin.Worker) (int, error) {
			ran.Add(1)
			if depth > 0 {
				spawn(depth - 1)
				spawn(depth - 1)
			}
			return 0, nil
		})
	}
	spawn(9) // 2^10 - 1 tasks
	p.Close()
	if ran.Load() != 1<<10-1 {
		t.Fatalf("ran %d tasks, want %d", ran.Load(), 1<<10-1)
	}
}

func TestScopeStructured(t *testing.T) {
	leakcheck.Check(t)
	pool.With(4, func(p *pool.Pool) {
		var ran atomic.Int64
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.Spawner) {
				var grow func(w *forkjoin.Worker, d int)
				grow = func(w *forkjoin.Worker, d int) {
					ran.Add(1)
					if d > 0 {
						s.Spawn(w, func(w *forkjoin.Worker) { grow(w, d-1) })
						s.Spawn(w, func(w *forkjoin.Worker) { grow(w, d-1) })
					}
				}
				s.Spawn(w, func(w *forkjoin.Worker) { grow(w, 10) })
			})
			if ran.Load() != 1<<11-1 { // Scope returned: all of them are done
				t.Errorf("Scope returned after %d of %d tasks", ran.Load(), 1<<11-1)
			}
		})
		// A panic in a scope task: the others are finished or skipped, and
		// Scope re-panics with it.
		func() {
			defer func() {
				var pe *forkjoin.PanicError
				err, _ := recover().(error)
				if !errors.As(err, &pe) || pe.Value != "scope boom" {
					t.Errorf("recovered %v", err)
				}
			}()
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					for i := 0; i < 50; i++ {
						i := i
						s.Spawn(w, func(*forkjoin.Worker) {
							if i == 25 {
								panic("scope boom")
							}
						})
					}
				})
			})
		}()
	})
}

// Priority order: tasks queued while nobody runs them start in priority
// order (High, Normal, Background) when a single participant takes them.
func TestPriorityOrder(t *testing.T) {
	leakcheck.Check(t)
	rapid.Check(t, func(rt *rapid.T) {
		prios := rapid.SliceOfN(rapid.IntRange(0, 2), 1, 300).Draw(rt, "priorities")
		var mu sync.Mutex
		var order []forkjoin.Priority
		// Only the goroutine that closes the pool runs them, unless the
		// spawning takes so long (a loaded machine) that the pool sees
		// queued tasks and nobody running them, and adds a compensator
		// (compensate.go): then the order is that of two participants.
		p := pool.New(1)
		var last *forkjoin.Handle[int]
		for _, pr := range prios {
			pr := forkjoin.Priority(pr)
			last = forkjoin.Spawn(p, func(w *forkjoin.Worker) (int, error) {
				mu.Lock()
				order = append(order, pr)
				mu.Unlock()
				return 0, nil
			}, forkjoin.WithPriority(pr))
		}
		p.Close() // runs them all on this goroutine
		_ = last
		if len(order) != len(prios) {
			rt.Fatalf("ran %d of %d", len(order), len(prios))
		}
		if p.Stats().CompensatorsStarted != 0 {
			rt.Logf("a compensator ran tasks while they were spawned: order %v", order)
			return
		}
		for i := 1; i < len(order); i++ {
			if order[i] < order[i-1] {
				rt.Fatalf("task %d (%v) started after a %v task while it was waiting: %v", i, order[i], order[i-1], order)
			}
		}
	})
}

func TestSpawnCancellation(t *testing.T) {
	leakcheck.Check(t)
	pool.With(2, func(p *pool.Pool) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		h := forkjoin.Spawn(p, func(w *forkjoin.Worker) (int, error) { return 1, nil }, forkjoin.WithContext(ctx))
		if _, err := h.Join(); !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled before start: %v", err)
		}
		ctx2, cancel2 := context.WithCancel(context.Background())
		started := make(chan struct{})
		h2 := forkjoin.Spawn(p, func(w *forkjoin.Worker) (int, error) {
			close(started)
			<-w.Context().Done() // a running task sees its context
			return 2, w.Context().Err()
		}, forkjoin.WithContext(ctx2))
		<-started
		cancel2()
		if _, err := h2.Join(); !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled while running: %v", err)
		}
		// Wait with a context that ends first returns its error.
		block := make(chan struct{})
		h3 := forkjoin.Spawn(p, func(w *forkjoin.Worker) (int, error) { <-block; return 3, nil })
		wctx, wcancel := context.WithCancel(context.Background())
		wcancel()
		if _, err := h3.Wait(wctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait with a done context: %v", err)
		}
		close(block)
		if v, err := h3.Join(); v != 3 || err != nil {
			t.Fatalf("Join after Wait: %d, %v", v, err)
		}
	})
}

// Random DAGs: every node runs once, after its dependencies, and sees
// their results; a failing node fails its dependents and nothing else.
func TestGraphRandom(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(4)
	defer p.Close()
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(rt, "nodes")
		failAt := rapid.IntRange(-1, n-1).Draw(rt, "fail")
		rng := rand.New(rand.NewPCG(uint64(n), uint64(failAt+7)))
		g := forkjoin.NewGraph()
		nodes := make([]*forkjoin.GraphNode[int], n)
		deps := make([][]int, n)
		runs := make([]atomic.Int32, n)
		for i := 0; i < n; i++ {
			var ds []forkjoin.Dep
			for j := 0; j < i; j++ {
				if rng.IntN(4) == 0 {
					deps[i] = append(deps[i], j)
					ds = append(ds, nodes[j])
				}
			}
			i := i
			nodes[i] = forkjoin.AddNode(g, func(w *forkjoin.Worker) (int, error) {
				runs[i].Add(1)
				if i == failAt {
					return 0, errors.New("planned failure")
				}
				v := 1
				for _, j := range deps[i] {
					v += nodes[j].Value()
				}
				return v, nil
			}, ds, forkjoin.WithPriority(forkjoin.Priority(i%3)))
		}
		err := g.Run(p)
		// Sequential reference: value, and whether a (transitive)
		// dependency failed.
		want := make([]int, n)
		failed := make([]bool, n)
		for i := 0; i < n; i++ {
			want[i] = 1
			for _, j := range deps[i] {
				failed[i] = failed[i] || failed[j]
				want[i] += want[j]
			}
			if i == failAt {
				failed[i] = true
			}
		}
		if (failAt >= 0) != (err != nil) {
			rt.Fatalf("Run: %v with failAt %d", err, failAt)
		}
		for i := 0; i < n; i++ {
			upstream := failed[i] && i != failAt
			if upstream {
				var de *forkjoin.DependencyError
				if runs[i].Load() != 0 || !errors.As(nodes[i].Err(), &de) {
					rt.Fatalf("node %d after a failed dependency: ran %d, err %v", i, runs[i].Load(), nodes[i].Err())
				}
				continue
			}
			if runs[i].Load() != 1 {
				rt.Fatalf("node %d ran %d times", i, runs[i].Load())
			}
			if i != failAt && (nodes[i].Err() != nil || nodes[i].Value() != want[i]) {
				rt.Fatalf("node %d: %d, %v; want %d", i, nodes[i].Value(), nodes[i].Err(), want[i])
			}
		}
	})
}

// A Graph run again and again: every run starts afresh. Random DAGs, each
// run with its own input (read by the sources) and its own failing node
// (or none): after every run each node ran exactly once or was skipped,
// its value and error are those of this run (a node skipped now reports
// the zero value, not the result of an earlier run), and a failure does
// not outlive its run. Some runs get a context canceled before they
// start: then no node runs and every node reports the context's error.
func TestGraphRunAgain(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(3)
	defer p.Close()
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(rt, "nodes")
		seed := rapid.Uint64().Draw(rt, "seed")
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		var input, failAt int
		g := forkjoin.NewGraph()
		nodes := make([]*forkjoin.GraphNode[int], n)
		deps := make([][]int, n)
		runs := make([]atomic.Int32, n)
		for i := 0; i < n; i++ {
			var ds []forkjoin.Dep
			for j := 0; j < i; j++ {
				if rng.IntN(3) == 0 {
					deps[i] = append(deps[i], j)
					ds = append(ds, nodes[j])
				}
			}
			i := i
			nodes[i] = forkjoin.AddNode(g, func(w *forkjoin.Worker) (int, error) {
				runs[i].Add(1)
				if i == failAt {
					return 0, errors.New("planned failure")
				}
				v := input + i
				for _, j := range deps[i] {
					v += nodes[j].Value()
				}
				return v, nil
			}, ds)
		}
		rounds := rapid.IntRange(2, 5).Draw(rt, "runs")
		for r := 0; r < rounds; r++ {
			input = rapid.IntRange(1, 1000).Draw(rt, "input")
			failAt = rapid.IntRange(-1, n-1).Draw(rt, "fail")
			for i := range runs {
				runs[i].Store(0)
			}
			if rapid.IntRange(0, 3).Draw(rt, "canceled") == 0 {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				err := g.RunCtx(ctx, p)
				if !errors.Is(err, context.Canceled) {
					rt.Fatalf("run %d with a canceled context: Run returned %v", r, err)
				}
				for i := 0; i < n; i++ {
					if runs[i].Load() != 0 || !errors.Is(nodes[i].Err(), context.Canceled) || nodes[i].Value() != 0 {
						rt.Fatalf("run %d with a canceled context, node %d: ran %d, value %d, err %v",
							r, i, runs[i].Load(), nodes[i].Value(), nodes[i].Err())
					}
				}
				continue
			}
			err := g.Run(p)
			want := make([]int, n)
			failed := make([]bool, n)
			for i := 0; i < n; i++ {
				want[i] = input + i
				for _, j := range deps[i] {
					failed[i] = failed[i] || failed[j]
					want[i] += want[j]
				}
				if i == failAt {
					failed[i] = true
				}
			}
			if (failAt >= 0) != (err != nil) {
				rt.Fatalf("run %d: Run returned %v with failAt %d", r, err, failAt)
			}
			for i := 0; i < n; i++ {
				switch {
				case failed[i] && i != failAt:
					var de *forkjoin.DependencyError
					if runs[i].Load() != 0 || !errors.As(nodes[i].Err(), &de) || nodes[i].Value() != 0 {
						rt.Fatalf("run %d, node %d after a failed dependency: ran %d, value %d, err %v",
							r, i, runs[i].Load(), nodes[i].Value(), nodes[i].Err())
					}
				case i == failAt:
					if runs[i].Load() != 1 || nodes[i].Err() == nil {
						rt.Fatalf("run %d, failing node %d: ran %d, err %v", r, i, runs[i].Load(), nodes[i].Err())
					}
				default:
					if runs[i].Load() != 1 || nodes[i].Err() != nil || nodes[i].Value() != want[i] {
						rt.Fatalf("run %d, node %d: ran %d, value %d, err %v; want %d",
							r, i, runs[i].Load(), nodes[i].Value(), nodes[i].Err(), want[i])
					}
				}
			}
		}
	})
}

// Two Runs of one Graph at once are refused with a clear panic (here, a
// node that runs its own graph), and a Graph that has run cannot grow.
func TestGraphRunWhileRunning(t *testing.T) {
	leakcheck.Check(t)
	pool.With(2, func(p *pool.Pool) {
		g := forkjoin.NewGraph()
		var msg string
		forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
			defer func() { msg = fmt.Sprint(recover()) }()
			_ = g.Run(p)
			return 0, nil
		}, nil)
		if err := g.Run(p); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(msg, "while a Run of the same Graph is under way") {
			t.Fatalf("inner Run: panic %q", msg)
		}
		if err := g.Run(p); err != nil { // and it runs again afterwards
			t.Fatal(err)
		}
		func() {
			defer func() {
				if v := fmt.Sprint(recover()); !strings.Contains(v, "AddNode on a Graph that has run") {
					t.Fatalf("AddNode after Run: panic %q", v)
				}
			}()
			forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return 0, nil }, nil)
		}()
	})
}

// Nodes of several result types, added interleaved, come from chunks per
// type: every node keeps its own value; a wide fan-out and fan-in (many
// dependents of one node, many dependencies of one) are laid out right;
// only the sinks hold Run up, so Run returns after the last of several.
func TestGraphMixedTypesWide(t *testing.T) {
	leakcheck.Check(t)
	for _, par := range []int{1, 3} {
		pool.With(par, func(p *pool.Pool) {
			const n = 600
			g := forkjoin.NewGraph()
			root := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return 1, nil }, nil)
			ints := make([]*forkjoin.GraphNode[int], 0, n)
			strs := make([]*forkjoin.GraphNode[string], 0, n)
			var mids []forkjoin.Dep
			for i := 0; i < n; i++ {
				i := i
				if i%2 == 0 {
					ints = append(ints, forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
						return root.Value() + i, nil
					}, []forkjoin.Dep{root}))
					mids = append(mids, ints[len(ints)-1])
				} else {
					strs = append(strs, forkjoin.AddNode(g, func(*forkjoin.Worker) (string, error) {
						return fmt.Sprint(root.Value() + i), nil
					}, []forkjoin.Dep{root, root})) // a duplicate edge counts twice
					mids = append(mids, strs[len(strs)-1])
				}
			}
			var sinksRan atomic.Int32
			sum := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
				s := 0
				for _, m := range ints {
					s += m.Value()
				}
				for _, m := range strs {
					var v int
					fmt.Sscan(m.Value(), &v)
					s += v
				}
				sinksRan.Add(1)
				return s, nil
			}, mids)
			other := forkjoin.AddNode(g, func(*forkjoin.Worker) (float64, error) {
				sinksRan.Add(1)
				return float64(ints[0].Value()), nil
			}, []forkjoin.Dep{ints[0]})
			if err := g.Run(p); err != nil {
				t.Fatal(err)
			}
			if sinksRan.Load() != 2 {
				t.Fatalf("Run returned with %d of 2 sinks run", sinksRan.Load())
			}
			want := 0
			for i := 0; i < n; i++ {
				want += 1 + i
			}
			if sum.Value() != want || other.Value() != 1 {
				t.Fatalf("sum %d (want %d), other %v (want 1)", sum.Value(), want, other.Value())
			}
			for k, m := range strs {
				if m.Value() != fmt.Sprint(1+2*k+1) {
					t.Fatalf("string node %d: %q", k, m.Value())
				}
			}
		})
	}
}

// Scope tasks are counted in batches (slack.go); once a Scope has returned,
// every task spawned in it is counted as submitted and completed, on the
// participants that did it, before any of them went idle.
func TestScopeStatsExactWhenScopeReturns(t *testing.T) {
	leakcheck.Check(t)
	for _, par := range []int{1, 2, 4} {
		pool.With(par, func(p *pool.Pool) {
			for round := 0; round < 20; round++ {
				n := 1 + round*37 // rarely a multiple of the batch
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					before := p.Stats()
					var ran atomic.Int64
					forkjoin.Scope(w, func(s *forkjoin.Spawner) {
						for i := 0; i < n; i++ {
							s.Spawn(w, func(w *forkjoin.Worker) {
								ran.Add(1)
								if ran.Load()%3 == 0 { // and from the tasks
									s.Spawn(w, func(*forkjoin.Worker) { ran.Add(1) })
								}
							})
						}
					})
					after := p.Stats()
					k := ran.Load()
					if d := after.Submitted - before.Submitted; d != k {
						t.Fatalf("p%d round %d: %d tasks ran, %d counted submitted", par, round, k, d)
					}
					if d := after.Completed - before.Completed; d != k {
						t.Fatalf("p%d round %d: %d tasks ran, %d counted completed", par, round, k, d)
					}
				})
			}
		})
	}
}

type counted struct {
	task forkjoin.Task
	n    *atomic.Int64
}

func TestSubmitBatch(t *testing.T) {
	leakcheck.Check(t)
	var ran atomic.Int64
	p := pool.New(3)
	tasks := make([]counted, 1000)
	var b forkjoin.Batch
	for i := range tasks {
		c := &tasks[i]
		c.n = &ran
		c.task.Init(func(w *forkjoin.Worker, t *forkjoin.Task) {
			c.n.Add(1)
		})
		b.Push(&c.task)
	}
	if b.Len() != 1000 {
		t.Fatalf("Len %d", b.Len())
	}
	forkjoin.SubmitBatch(p, &b, forkjoin.WithPriority(forkjoin.Background))
	var bad forkjoin.Task
	bad.Init(func(*forkjoin.Worker, *forkjoin.Task) { panic("intrusive") })
	forkjoin.Submit(p, &bad, forkjoin.WithPriority(forkjoin.High))
	p.Close()
	if ran.Load() != 1000 {
		t.Fatalf("ran %d of 1000", ran.Load())
	}
	if pe := bad.Panic(); pe == nil || pe.Value != "intrusive" {
		t.Fatalf("Task.Panic = %v", pe)
	}
	if st := p.Stats(); st.ByPriority[forkjoin.Background].Completed != 1000 || st.ByPriority[forkjoin.High].Panicked != 1 {
		t.Fatalf("stats %+v", st.ByPriority)
	}
}

// TestScopeCountsProperty: Scope returns only once every task spawned in it
// is over, however the tasks are spread: random trees of tasks that spawn
// into their own Scope and into enclosing ones, open nested Scopes, and
// Join handles of tasks spawned with Spawn, at random parallelism. (Each
// participant counts tasks in and out of a Scope through private slack,
// see slack.go; a Scope that returned early would see unfinished tasks.)
// After Close, the statistics add up: everything submitted completed, the
// per-participant counts sum to the totals.
func TestScopeCountsProperty(t *testing.T) {
	leakcheck.Check(t)
	total := int64(0)
	defer func() {
		if total < 1000 {
			t.Errorf("the largest case ran %d tasks: the trees were too small", total)
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(rt, "parallelism")
		seed := rapid.Uint64().Draw(rt, "seed")
		p := pool.New(n)
		var started, finished atomic.Int64
		var bad atomic.Value
		// grow runs one task at depth d: it may spawn into any of the
		// enclosing scopes (outer[0] is the outermost), open a scope of
		// its own, or spawn and join a Handle.
		var grow func(w *forkjoin.Worker, outer []*forkjoin.Spawner, rng *rand.Rand, d int)
		grow = func(w *forkjoin.Worker, outer []*forkjoin.Spawner, rng *rand.Rand, d int) {
			started.Add(1)
			defer finished.Add(1)
			if d == 0 {
				return
			}
			for k := 1 + rng.IntN(3); k > 0; k-- {
				switch rng.IntN(5) {
				case 0: // a nested scope: all of its own tasks over when it returns
					var spawned int64
					var mine atomic.Int64
					forkjoin.Scope(w, func(s *forkjoin.Spawner) {
						inner := append(outer[:len(outer):len(outer)], s)
						for j := rng.IntN(5); j > 0; j-- {
							sub := rand.New(rand.NewPCG(rng.Uint64(), 1))
							spawned++
							s.Spawn(w, func(w *forkjoin.Worker) {
								defer mine.Add(1)
								grow(w, inner, sub, d-1)
							})
						}
					})
					if m := mine.Load(); m != spawned {
						bad.Store(fmt.Sprintf("nested Scope returned with %d of its %d tasks over", m, spawned))
					}
				case 1: // a Handle, joined
					sub := rand.New(rand.NewPCG(rng.Uint64(), 2))
					h := forkjoin.Spawn(p, func(w *forkjoin.Worker) (int, error) {
						forkjoin.Scope(w, func(s *forkjoin.Spawner) { grow(w, []*forkjoin.Spawner{s}, sub, d-1) })
						return 1, nil
					})
					if v, err := h.Join(); v != 1 || err != nil {
						bad.Store("handle")
					}
				default: // into an enclosing scope
					// The new task belongs to outer[i]: it may outlive the
					// scopes inside that one, so it gets only outer[:i+1].
					i := rng.IntN(len(outer))
					sub := rand.New(rand.NewPCG(rng.Uint64(), 3))
					mine := outer[:i+1]
					outer[i].Spawn(w, func(w *forkjoin.Worker) { grow(w, mine, sub, d-1) })
				}
			}
		}
		for r := 0; r < 3; r++ {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					rng := rand.New(rand.NewPCG(seed, uint64(r)))
					for j := 0; j < 4; j++ {
						sub := rand.New(rand.NewPCG(rng.Uint64(), 4))
						s.Spawn(w, func(w *forkjoin.Worker) { grow(w, []*forkjoin.Spawner{s}, sub, 5) })
					}
				})
				// The outermost Scope returned: every task of the run is over
				// (nested ones are within it, Handles were joined by them).
				if s, f := started.Load(), finished.Load(); s != f {
					rt.Errorf("round %d: Scope returned with %d of %d tasks over", r, f, s)
				}
			})
		}
		p.Close()
		total = max(total, started.Load())
		if v := bad.Load(); v != nil {
			rt.Fatalf("bad: %v", v)
		}
		st := p.Stats()
		if st.Submitted == 0 || st.Completed != st.Submitted || st.Panicked != 0 || st.Canceled != 0 {
			rt.Fatalf("stats after Close: submitted %d completed %d panicked %d canceled %d",
				st.Submitted, st.Completed, st.Panicked, st.Canceled)
		}
		var sub, com int64
		for _, ws := range append(st.Workers, st.Callers) {
			sub += ws.Submitted
			com += ws.Completed
		}
		if com != st.Completed || sub > st.Submitted {
			rt.Fatalf("per-participant sums: submitted %d (total %d), completed %d (total %d)", sub, st.Submitted, com, st.Completed)
		}
	})
}

// A High task waiting in one participant's queue is started by another
// participant before that one's next Normal task of its own: a pool worker
// with thousands of Normal tasks queued locally looks at the others' High
// queues before each of them (it skips the look only while no High task is
// queued anywhere).
func TestHighTaskSeenAcrossParticipants(t *testing.T) {
	leakcheck.Check(t)
	const normals = 2000
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.Spawner) {
				var normalsRun, atHigh atomic.Int64
				var highStarted atomic.Bool
				filled := make(chan struct{})
				// Taken by the pool worker: this goroutine does not help
				// until the High task has started.
				s.Spawn(w, func(w *forkjoin.Worker) {
					for i := 0; i < normals; i++ {
						s.Spawn(w, func(*forkjoin.Worker) {
							normalsRun.Add(1)
							sink.Add(spin(20_000)) // some 30 µs
						})
					}
					close(filled)
				})
				<-filled
				s.Spawn(w, func(*forkjoin.Worker) {
					atHigh.Store(normalsRun.Load())
					highStarted.Store(true)
				}, forkjoin.WithPriority(forkjoin.High))
				deadline := time.Now().Add(10 * time.Second)
				for !highStarted.Load() {
					if time.Now().After(deadline) {
						t.Errorf("the High task did not start within 10 s (%d Normal tasks ran)", normalsRun.Load())
						return
					}
					runtime.Gosched()
				}
				if n := atHigh.Load(); n >= normals/2 {
					t.Errorf("the High task started after %d of the other worker's %d Normal tasks", n, normals)
				}
			})
		})
	})
}

// A Graph's sources and the dependents a node launches are queued in
// batches (by priority, a bounded number at once) and the first source runs
// on the calling goroutine: every node runs once, after its dependencies;
// the statistics count every node once, by priority; a panic in the first
// source fails it and skips its dependents; a context done before Run skips
// every node.
func TestGraphBatchesAndFirstSource(t *testing.T) {
	leakcheck.Check(t)
	const fan = 100 // several batches, of mixed priorities
	build := func(g *forkjoin.Graph, sources int, panicFirst bool, runs []atomic.Int32) (*forkjoin.GraphNode[int], []*forkjoin.GraphNode[int]) {
		var srcs []forkjoin.Dep
		var srcNodes []*forkjoin.GraphNode[int]
		for i := 0; i < sources; i++ {
			i := i
			n := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
				runs[fan+1+i].Add(1)
				if i == 0 && panicFirst {
					panic("first source")
				}
				return i + 1, nil
			}, nil, forkjoin.WithPriority(forkjoin.Priority(i%3)))
			srcs = append(srcs, n)
			srcNodes = append(srcNodes, n)
		}
		var mids []forkjoin.Dep
		midNodes := make([]*forkjoin.GraphNode[int], fan)
		for i := 0; i < fan; i++ {
			i := i
			midNodes[i] = forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
				runs[i].Add(1)
				s := 0
				for _, n := range srcNodes {
					s += n.Value()
				}
				return s + i, nil
			}, srcs, forkjoin.WithPriority(forkjoin.Priority((i/7)%3)))
			mids = append(mids, midNodes[i])
		}
		join := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
			runs[fan].Add(1)
			s := 0
			for _, m := range midNodes {
				s += m.Value()
			}
			return s, nil
		}, mids)
		return join, midNodes
	}
	for _, par := range []int{1, 2, 4} {
		for _, sources := range []int{1, 3} {
			// Every node runs once; the statistics count each node once.
			p := pool.New(par)
			runs := make([]atomic.Int32, fan+1+sources)
			g := forkjoin.NewGraph()
			join, _ := build(g, sources, false, runs)
			if err := g.Run(p); err != nil {
				t.Fatal(err)
			}
			srcSum := sources * (sources + 1) / 2
			if want := fan*srcSum + fan*(fan-1)/2; join.Value() != want {
				t.Fatalf("p%d, %d sources: join %d, want %d", par, sources, join.Value(), want)
			}
			for i := range runs {
				if r := runs[i].Load(); r != 1 {
					t.Fatalf("p%d, %d sources: node %d ran %d times", par, sources, i, r)
				}
			}
			p.Close()
			st := p.Stats()
			nodes := int64(fan + 1 + sources)
			if st.Submitted != nodes || st.Completed != nodes {
				t.Fatalf("p%d, %d sources: %d submitted, %d completed, want %d each", par, sources, st.Submitted, st.Completed, nodes)
			}
			var byPrio int64
			for _, ps := range st.ByPriority {
				byPrio += ps.Completed
			}
			if byPrio != nodes {
				t.Fatalf("p%d: %d completed by priority, want %d", par, byPrio, nodes)
			}

			// A panic in the first source (run on the caller).
			p = pool.New(par)
			runs = make([]atomic.Int32, fan+1+sources)
			g = forkjoin.NewGraph()
			join, mids := build(g, sources, true, runs)
			err := g.Run(p)
			var pe *forkjoin.PanicError
			if !errors.As(err, &pe) || pe.Value != "first source" {
				t.Fatalf("p%d: Run after a panicking source: %v", par, err)
			}
			var de *forkjoin.DependencyError
			if runs[fan].Load() != 0 || !errors.As(join.Err(), &de) || !errors.As(mids[0].Err(), &de) || de.Index != 0 {
				t.Fatalf("p%d: dependents of the failed source: join ran %d, err %v; mid err %v", par, runs[fan].Load(), join.Err(), mids[0].Err())
			}
			p.Close()

			// A context done before Run: nothing runs.
			p = pool.New(par)
			runs = make([]atomic.Int32, fan+1+sources)
			g = forkjoin.NewGraph()
			join, _ = build(g, sources, false, runs)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := g.RunCtx(ctx, p); !errors.Is(err, context.Canceled) {
				t.Fatalf("p%d: RunCtx with a done context: %v", par, err)
			}
			for i := range runs {
				if runs[i].Load() != 0 {
					t.Fatalf("p%d: node %d ran under a done context", par, i)
				}
			}
			if !errors.Is(join.Err(), context.Canceled) {
				var de *forkjoin.DependencyError
				if !errors.As(join.Err(), &de) {
					t.Fatalf("p%d: join's error under a done context: %v", par, join.Err())
				}
			}
			p.Close()
		}
	}
}

// A Graph's sources start in priority order when one participant runs
// them all: the one Run starts at once is the first of the highest
// priority, not the first added.
func TestGraphSourcesByPriority(t *testing.T) {
	leakcheck.Check(t)
	prios := []forkjoin.Priority{forkjoin.Background, forkjoin.Normal, forkjoin.High, forkjoin.Normal, forkjoin.High, forkjoin.Background}
	p := pool.New(1) // only the goroutine in Run
	defer p.Close()
	g := forkjoin.NewGraph()
	var order []forkjoin.Priority // one goroutine: no lock needed
	for _, pr := range prios {
		pr := pr
		forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
			order = append(order, pr)
			return 0, nil
		}, nil, forkjoin.WithPriority(pr))
	}
	if err := g.Run(p); err != nil {
		t.Fatal(err)
	}
	if len(order) != len(prios) {
		t.Fatalf("ran %d of %d sources", len(order), len(prios))
	}
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] {
			t.Fatalf("sources started in the order %v", order)
		}
	}
}

// TestScopeTasksKeptAcrossCollections: the task structs of a burst of scope
// tasks are reused by the next burst even when garbage collections come
// between them (a sync.Pool would have dropped them, and the second burst
// would allocate them all again).
func TestScopeTasksKeptAcrossCollections(t *testing.T) {
	leakcheck.Check(t)
	const tasks = 20_000
	pool.With(1, func(p *pool.Pool) { // the caller alone: the burst's peak is all of it
		var ran atomic.Int64
		body := func(*forkjoin.Worker) { ran.Add(1) }
		burst := func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					for i := 0; i < tasks; i++ {
						s.Spawn(w, body)
					}
				})
			})
		}
		burst()
		runtime.GC()
		runtime.GC()
		var m0, m1 runtime.MemStats
		comp0, chunks0 := p.Stats().CompensatorsStarted, forkjoin.ScopeTaskChunks(p)
		runtime.ReadMemStats(&m0)
		burst()
		runtime.ReadMemStats(&m1)
		if got := ran.Load(); got != 2*tasks {
			t.Fatalf("%d tasks ran, want %d", got, 2*tasks)
		}
		if n := forkjoin.ScopeTaskChunks(p) - chunks0; n != 0 {
			t.Errorf("the second burst of %d scope tasks allocated %d chunks of tasks, want none", tasks, n)
		}
		// Task structs come in chunks of 64: allocating them again would
		// be over 300 allocations. A compensator (if the run looked
		// stalled on a loaded machine: compensate.go) allocates a Worker
		// and a goroutine of its own, so the count holds without one.
		allocs := m1.Mallocs - m0.Mallocs
		if p.Stats().CompensatorsStarted != comp0 {
			t.Logf("a compensator ran: %d allocations", allocs)
		} else if allocs > 30 {
			t.Errorf("the second burst of %d scope tasks made %d allocations, want at most 30", tasks, allocs)
		}
	})
}

// TestPriorityWhileHelping: a participant that helps while it waits (here
// the caller inside Scope) looks for work in priority order too: a High
// task of the scope starts before the Background tasks still in the
// caller's own queue. Parallelism 1, so the caller is the only one running
// anything and the order is certain.
func TestPriorityWhileHelping(t *testing.T) {
	leakcheck.Check(t)
	pool.With(1, func(p *pool.Pool) {
		var (
			mu    sync.Mutex // a compensator may run tasks beside the caller
			order []string
		)
		record := func(s string) {
			mu.Lock()
			order = append(order, s)
			mu.Unlock()
		}
		var spawned atomic.Bool
		before := p.Stats().CompensatorsStarted
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.Spawner) {
				for range 10 {
					s.Spawn(w, func(w *forkjoin.Worker) {
						record("bg")
						if spawned.CompareAndSwap(false, true) {
							s.Spawn(w, func(*forkjoin.Worker) {
								record("HIGH")
							}, forkjoin.WithPriority(forkjoin.High))
						}
					}, forkjoin.WithPriority(forkjoin.Background))
				}
			})
		})
		mu.Lock()
		defer mu.Unlock()
		if n := slices.Index(order, "HIGH"); len(order) != 11 || n < 0 {
			t.Fatalf("order %v: want 10 Background tasks and one High", order)
		}
		// The caller alone runs the tasks unless the run looked stalled
		// (the machine took its processor for milliseconds) and the pool
		// added a compensator (compensate.go): then two participants take
		// tasks at once, and only the counts above hold.
		if p.Stats().CompensatorsStarted != before {
			t.Logf("a compensator ran beside the caller: order %v", order)
			return
		}
		if order[1] != "HIGH" {
			t.Errorf("order %v: want the High task second, right after the Background task that spawned it", order)
		}
	})
}

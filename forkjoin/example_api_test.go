package forkjoin_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// A complete program: a pool, a run on it, and a typed fork at every node
// of a tree.
func Example() {
	type node struct {
		val         int
		left, right *node
	}
	var build func(depth int) *node
	build = func(depth int) *node {
		if depth == 0 {
			return nil
		}
		return &node{val: depth, left: build(depth - 1), right: build(depth - 1)}
	}

	// total sums a subtree: the right child may run on another worker
	// while this one sums the left.
	var total *forkjoin.Fork[*node, int]
	total = forkjoin.NewFork(func(f *forkjoin.Fork[*node, int], w *forkjoin.Worker, n *node) int {
		if n == nil {
			return 0
		}
		l, r := total.Join(w, n.left, n.right)
		return n.val + l + r
	})

	root := build(12)
	pool.With(0, func(p *pool.Pool) { // 0: parallelism GOMAXPROCS
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			fmt.Println(total.Call(w, root))
		})
	})
	// Output: 8178
}

// ScopeCtx returns a failure instead of panicking: here a task's panic,
// as a *PanicError whose Value is the value passed to panic.
func ExampleScopeCtx() {
	inputs := []string{"12", "7", "x1", "30"}
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			var sum atomic.Int64
			err := forkjoin.ScopeCtx(w.Context(), w, func(s *forkjoin.Spawner) {
				for _, in := range inputs {
					s.Spawn(w, func(*forkjoin.Worker) {
						n, err := strconv.Atoi(in)
						if err != nil {
							panic(err)
						}
						sum.Add(int64(n))
					})
				}
			})
			var pe *forkjoin.PanicError
			fmt.Println(errors.As(err, &pe))
			fmt.Println(pe.Value)
		})
	})
	// Output:
	// true
	// strconv.Atoi: parsing "x1": invalid syntax
}

// One Batch submits several rounds of tasks: it is empty, and can be
// filled again, once submitted.
func ExampleBatch() {
	var total atomic.Int64
	var b forkjoin.Batch
	p := pool.New(2)
	for round := 1; round <= 3; round++ {
		tasks := make([]forkjoin.Task, 4)
		for i := range tasks {
			tasks[i].Init(func(*forkjoin.Worker, *forkjoin.Task) { total.Add(int64(round)) })
			b.Push(&tasks[i])
		}
		forkjoin.SubmitBatch(p, &b)
	}
	p.Close() // waits for every submitted task
	fmt.Println(total.Load())
	// Output: 24
}

// Len counts the tasks pushed; SubmitBatch empties the batch.
func ExampleBatch_Len() {
	var b forkjoin.Batch
	tasks := make([]forkjoin.Task, 3)
	for i := range tasks {
		tasks[i].Init(func(*forkjoin.Worker, *forkjoin.Task) {})
		b.Push(&tasks[i])
	}
	fmt.Println("before:", b.Len())
	pool.With(2, func(p *pool.Pool) {
		forkjoin.SubmitBatch(p, &b, forkjoin.WithPriority(forkjoin.Background))
	})
	fmt.Println("after:", b.Len())
	// Output:
	// before: 3
	// after: 0
}

type reverseJob struct {
	task    forkjoin.Task
	in, out string
}

// Push links a Task, embedded in the caller's own struct, into the batch.
// The Task must have its function (Init) first.
func ExampleBatch_Push() {
	words := []string{"stressed", "drawer", "live"}
	jobs := make([]reverseJob, len(words))
	var b forkjoin.Batch
	for i := range jobs {
		j := &jobs[i]
		j.in = words[i]
		j.task.Init(func(*forkjoin.Worker, *forkjoin.Task) {
			r := []rune(j.in)
			slices.Reverse(r)
			j.out = string(r)
		})
		b.Push(&j.task)
	}
	p := pool.New(2)
	forkjoin.SubmitBatch(p, &b)
	p.Close() // waits for the batch's tasks
	for i := range jobs {
		fmt.Println(jobs[i].in, "->", jobs[i].out)
	}
	// Output:
	// stressed -> desserts
	// drawer -> reward
	// live -> evil
}

// Dep lets one list hold nodes of any result type: here a node per shard,
// collected in a loop, and a node with a string result.
func ExampleDep() {
	shards := [][]int{{1, 2}, {3, 4, 5}, {6}}
	g := forkjoin.NewGraph()
	var deps []forkjoin.Dep
	var counts []*forkjoin.GraphNode[int]
	for _, sh := range shards {
		n := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return len(sh), nil }, nil)
		counts = append(counts, n)
		deps = append(deps, n)
	}
	unit := forkjoin.AddNode(g, func(*forkjoin.Worker) (string, error) { return "items", nil }, nil)
	deps = append(deps, unit)
	summary := forkjoin.AddNode(g, func(*forkjoin.Worker) (string, error) {
		sum := 0
		for _, c := range counts {
			sum += c.Value()
		}
		return fmt.Sprint(len(counts), " shards, ", sum, " ", unit.Value()), nil
	}, deps)
	pool.With(2, func(p *pool.Pool) {
		if err := g.Run(p); err != nil {
			panic(err)
		}
	})
	fmt.Println(summary.Value())
	// Output: 3 shards, 6 items
}

// A node whose dependency failed is not run: its error is a
// *DependencyError that names the failed node by its position in the
// order of AddNode.
func ExampleDependencyError() {
	g := forkjoin.NewGraph()
	forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return 1, nil }, nil)
	fetch := forkjoin.AddNode(g, func(*forkjoin.Worker) (string, error) {
		return "", errors.New("connection reset")
	}, nil)
	parse := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
		return len(fetch.Value()), nil
	}, []forkjoin.Dep{fetch})
	pool.With(2, func(p *pool.Pool) { _ = g.Run(p) })
	var de *forkjoin.DependencyError
	if errors.As(parse.Err(), &de) {
		fmt.Println(de.Index, de.Err)
	}
	// Output: 1 connection reset
}

// Error names the failed dependency and its error.
func ExampleDependencyError_Error() {
	g := forkjoin.NewGraph()
	load := forkjoin.AddNode(g, func(*forkjoin.Worker) ([]byte, error) {
		return nil, errors.New("no such file")
	}, nil)
	size := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
		return len(load.Value()), nil
	}, []forkjoin.Dep{load})
	pool.With(2, func(p *pool.Pool) { _ = g.Run(p) })
	fmt.Println(size.Err().Error())
	// Output: forkjoin: dependency 0 failed: no such file
}

// Unwrap gives the dependency's error, so errors.Is and errors.As see
// through a chain of skipped nodes to the failure that caused it.
func ExampleDependencyError_Unwrap() {
	errNotFound := errors.New("not found")
	g := forkjoin.NewGraph()
	lookup := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return 0, errNotFound }, nil)
	price := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
		return 2 * lookup.Value(), nil
	}, []forkjoin.Dep{lookup})
	invoice := forkjoin.AddNode(g, func(*forkjoin.Worker) (string, error) {
		return strconv.Itoa(price.Value()), nil
	}, []forkjoin.Dep{price})
	pool.With(2, func(p *pool.Pool) { _ = g.Run(p) })
	err := invoice.Err()
	fmt.Println(errors.Is(err, errNotFound))
	fmt.Println(errors.Unwrap(err)) // price's own *DependencyError
	// Output:
	// true
	// forkjoin: dependency 0 failed: not found
}

// A Fork is made once and used by any number of runs.
func ExampleFork() {
	// maxOf finds the largest element, splitting the slice in halves.
	var maxOf *forkjoin.Fork[[]int, int]
	maxOf = forkjoin.NewFork(func(f *forkjoin.Fork[[]int, int], w *forkjoin.Worker, s []int) int {
		if len(s) <= 4 {
			return slices.Max(s)
		}
		a, b := maxOf.Join(w, s[:len(s)/2], s[len(s)/2:])
		return max(a, b)
	})
	inputs := [][]int{{3, 1, 4, 1, 5, 9, 2, 6}, {2, 7, 1, 8, 2, 8, 1, 8, 2, 8}}
	pool.With(2, func(p *pool.Pool) {
		for _, in := range inputs {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				fmt.Println(maxOf.Call(w, in))
			})
		}
	})
	// Output:
	// 9
	// 8
}

// A Future is one forked call. For a node with any number of children,
// fork all but the first, run the first here, then join the Futures, the
// last forked first.
func ExampleFuture() {
	type dir struct {
		size    int
		subdirs []*dir
	}
	root := &dir{size: 1, subdirs: []*dir{
		{size: 2},
		{size: 3, subdirs: []*dir{{size: 4}}},
		{size: 5},
	}}
	var du *forkjoin.Fork[*dir, int]
	du = forkjoin.NewFork(func(f *forkjoin.Fork[*dir, int], w *forkjoin.Worker, d *dir) int {
		total := d.size
		if len(d.subdirs) == 0 {
			return total
		}
		rest := make([]forkjoin.Future[*dir, int], 0, len(d.subdirs)-1)
		for _, sub := range d.subdirs[1:] {
			rest = append(rest, du.Start(w, sub))
		}
		total += du.Call(w, d.subdirs[0])
		for i := len(rest) - 1; i >= 0; i-- {
			total += rest[i].Join(w)
		}
		return total
	})
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			fmt.Println(du.Call(w, root))
		})
	})
	// Output: 15
}

// NewGraph returns an empty plan; AddNode fills it and Run executes it.
func ExampleNewGraph() {
	g := forkjoin.NewGraph()
	greeting := forkjoin.AddNode(g, func(*forkjoin.Worker) (string, error) { return "hello", nil }, nil)
	name := forkjoin.AddNode(g, func(*forkjoin.Worker) (string, error) { return "graph", nil }, nil)
	message := forkjoin.AddNode(g, func(*forkjoin.Worker) (string, error) {
		return greeting.Value() + ", " + name.Value(), nil
	}, []forkjoin.Dep{greeting, name})
	pool.With(2, func(p *pool.Pool) {
		if err := g.Run(p); err != nil {
			panic(err)
		}
	})
	fmt.Println(message.Value())
	// Output: hello, graph
}

// Each node has a result type of its own. A node depends only on nodes
// added before it, so a Graph has no cycle; an option may set its
// priority.
func ExampleAddNode() {
	g := forkjoin.NewGraph()
	load := forkjoin.AddNode(g, func(*forkjoin.Worker) ([]int, error) {
		return []int{4, 8, 15, 16, 23, 42}, nil
	}, nil)
	total := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
		s := 0
		for _, v := range load.Value() {
			s += v
		}
		return s, nil
	}, []forkjoin.Dep{load})
	report := forkjoin.AddNode(g, func(*forkjoin.Worker) (string, error) {
		return fmt.Sprintf("%d numbers, sum %d", len(load.Value()), total.Value()), nil
	}, []forkjoin.Dep{load, total}, forkjoin.WithPriority(forkjoin.High))
	pool.With(2, func(p *pool.Pool) {
		if err := g.Run(p); err != nil {
			panic(err)
		}
	})
	fmt.Println(report.Value())
	// Output: 6 numbers, sum 108
}

// Run returns the errors of the nodes that failed on their own, joined in
// the order the nodes were added; a node skipped because a dependency
// failed adds nothing to it.
func ExampleGraph_Run() {
	errUsers := errors.New("fetch users: timeout")
	g := forkjoin.NewGraph()
	users := forkjoin.AddNode(g, func(*forkjoin.Worker) ([]string, error) { return nil, errUsers }, nil)
	orders := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
		return 0, errors.New("fetch orders: refused")
	}, nil)
	stock := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return 12, nil }, nil)
	forkjoin.AddNode(g, func(*forkjoin.Worker) (string, error) {
		return fmt.Sprint(len(users.Value()), orders.Value(), stock.Value()), nil
	}, []forkjoin.Dep{users, orders, stock})
	pool.With(2, func(p *pool.Pool) {
		err := g.Run(p)
		fmt.Println(err)
		fmt.Println(errors.Is(err, errUsers))
	})
	// Output:
	// fetch users: timeout
	// fetch orders: refused
	// true
}

// RunCtx skips the nodes that have not started when its context is done:
// here the first node cancels it, so the second never runs.
func ExampleGraph_RunCtx() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := forkjoin.NewGraph()
	check := forkjoin.AddNode(g, func(*forkjoin.Worker) (bool, error) {
		cancel() // say, the input turned out to be stale
		return false, nil
	}, nil)
	var built atomic.Bool
	build := forkjoin.AddNode(g, func(*forkjoin.Worker) (string, error) {
		built.Store(true)
		return "built", nil
	}, []forkjoin.Dep{check})
	pool.With(2, func(p *pool.Pool) {
		err := g.RunCtx(ctx, p)
		fmt.Println(errors.Is(err, context.Canceled))
	})
	fmt.Println(built.Load(), errors.Is(build.Err(), context.Canceled))
	// Output:
	// true
	// false true
}

// A GraphNode holds its task's typed result and its error after Run.
func ExampleGraphNode() {
	type bounds struct{ Min, Max int }
	data := []int{7, 3, 9, 1}
	g := forkjoin.NewGraph()
	var b *forkjoin.GraphNode[bounds] = forkjoin.AddNode(g, func(*forkjoin.Worker) (bounds, error) {
		return bounds{slices.Min(data), slices.Max(data)}, nil
	}, nil)
	pool.With(2, func(p *pool.Pool) { _ = g.Run(p) })
	fmt.Printf("%+v %v\n", b.Value(), b.Err())
	// Output: {Min:1 Max:9} <nil>
}

// After Run, Err tells what became of each node: its own error, a
// *DependencyError if it was skipped because a dependency failed, or nil.
func ExampleGraphNode_Err() {
	g := forkjoin.NewGraph()
	parse := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return strconv.Atoi("ten") }, nil)
	double := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) {
		return 2 * parse.Value(), nil
	}, []forkjoin.Dep{parse})
	other := forkjoin.AddNode(g, func(*forkjoin.Worker) (int, error) { return 1, nil }, nil)
	pool.With(2, func(p *pool.Pool) { _ = g.Run(p) })
	fmt.Println(parse.Err())
	fmt.Println(double.Err())
	fmt.Println(other.Err())
	// Output:
	// strconv.Atoi: parsing "ten": invalid syntax
	// forkjoin: dependency 0 failed: strconv.Atoi: parsing "ten": invalid syntax
	// <nil>
}

// Value returns the node's result, typed: in a dependent's function (its
// dependencies are over) and, after Run, for every node.
func ExampleGraphNode_Value() {
	text := "the cat saw the dog"
	g := forkjoin.NewGraph()
	words := forkjoin.AddNode(g, func(*forkjoin.Worker) ([]string, error) {
		return strings.Fields(text), nil
	}, nil)
	counts := forkjoin.AddNode(g, func(*forkjoin.Worker) (map[string]int, error) {
		m := map[string]int{}
		for _, word := range words.Value() {
			m[word]++
		}
		return m, nil
	}, []forkjoin.Dep{words})
	pool.With(2, func(p *pool.Pool) {
		if err := g.Run(p); err != nil {
			panic(err)
		}
	})
	fmt.Println(len(words.Value()), counts.Value()["the"])
	// Output: 5 2
}

// A Handle is the typed result of a spawned task: spawn first, join when
// the results are needed.
func ExampleHandle() {
	words := []string{"spawn", "now", "join", "later"}
	pool.With(2, func(p *pool.Pool) {
		handles := make([]*forkjoin.Handle[int], len(words))
		for i, word := range words {
			handles[i] = forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) {
				return strings.Count(word, "o"), nil
			})
		}
		for i, h := range handles {
			n, err := h.Join()
			fmt.Println(words[i], n, err)
		}
	})
	// Output:
	// spawn 0 <nil>
	// now 1 <nil>
	// join 1 <nil>
	// later 0 <nil>
}

// Done is a channel, for a select among other channels. It does not run
// tasks itself: the pool needs a background worker (parallelism 2 here).
func ExampleHandle_Done() {
	pool.With(2, func(p *pool.Pool) {
		h := forkjoin.Spawn(p, func(*forkjoin.Worker) (string, error) { return "report ready", nil })
		<-h.Done()
		fmt.Println(h.Join()) // over: returns at once
	})
	// Output: report ready <nil>
}

// Join returns what the task returned, or its panic as a *PanicError.
func ExampleHandle_Join() {
	pool.With(2, func(p *pool.Pool) {
		good := forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) { return strconv.Atoi("42") })
		bad := forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) { return strconv.Atoi("4x2") })
		boom := forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) { panic("out of range") })
		fmt.Println(good.Join())
		fmt.Println(bad.Join())
		_, err := boom.Join()
		var pe *forkjoin.PanicError
		fmt.Println(errors.As(err, &pe), pe.Value)
	})
	// Output:
	// 42 <nil>
	// 0 strconv.Atoi: parsing "4x2": invalid syntax
	// true out of range
}

// String names the priority; a value outside the three is shown as a
// number.
func ExamplePriority_String() {
	fmt.Println(forkjoin.High, forkjoin.Normal, forkjoin.Background)
	fmt.Println(forkjoin.Priority(5))
	// Output:
	// High Normal Background
	// Priority(5)
}

// SpawnOptions are plain values: build the list once and pass it to each
// Spawn.
func ExampleSpawnOption() {
	type batchKey struct{}
	ctx := context.WithValue(context.Background(), batchKey{}, "batch-7")
	opts := []forkjoin.SpawnOption{
		forkjoin.WithPriority(forkjoin.Background),
		forkjoin.WithContext(ctx),
	}
	pool.With(2, func(p *pool.Pool) {
		var hs []*forkjoin.Handle[string]
		for i := 1; i <= 2; i++ {
			hs = append(hs, forkjoin.Spawn(p, func(w *forkjoin.Worker) (string, error) {
				return fmt.Sprint(w.Context().Value(batchKey{}), "/", i), nil
			}, opts...))
		}
		for _, h := range hs {
			fmt.Println(h.Join())
		}
	})
	// Output:
	// batch-7/1 <nil>
	// batch-7/2 <nil>
}

// A task tied to a context that is done before the task starts is
// skipped, and its handle reports the context's error.
func ExampleWithContext() {
	var ran atomic.Bool
	pool.With(2, func(p *pool.Pool) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // say, the request was abandoned while its work waited
		h := forkjoin.Spawn(p, func(*forkjoin.Worker) (int, error) {
			ran.Store(true)
			return 1, nil
		}, forkjoin.WithContext(ctx))
		_, err := h.Join()
		fmt.Println(err)
	})
	fmt.Println("ran:", ran.Load())
	// Output:
	// context canceled
	// ran: false
}

// On a pool of parallelism 1 the Scope's caller runs the queued tasks
// itself while it waits, the highest priority first.
func ExampleWithPriority() {
	pool.With(1, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.Spawner) {
				s.Spawn(w, func(*forkjoin.Worker) { fmt.Println("clean up") },
					forkjoin.WithPriority(forkjoin.Background))
				s.Spawn(w, func(*forkjoin.Worker) { fmt.Println("render") }) // Normal
				s.Spawn(w, func(*forkjoin.Worker) { fmt.Println("read input") },
					forkjoin.WithPriority(forkjoin.High))
			})
		})
	})
	// Output:
	// read input
	// render
	// clean up
}

// A Spawner can be passed down: each task spawns the tasks for its
// children into the same Scope, which returns when the whole tree is
// done.
func ExampleSpawner() {
	var visited atomic.Int64
	var visit func(s *forkjoin.Spawner, w *forkjoin.Worker, n *Node)
	visit = func(s *forkjoin.Spawner, w *forkjoin.Worker, n *Node) {
		visited.Add(1)
		for _, child := range []*Node{n.Left, n.Right} {
			if child != nil {
				s.Spawn(w, func(w *forkjoin.Worker) { visit(s, w, child) })
			}
		}
	}
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.Spawner) { visit(s, w, tree(8)) })
			fmt.Println(visited.Load())
		})
	})
	// Output: 255
}

// Each spawned task writes its own element, so no lock is needed, and
// everything the tasks wrote is visible once Scope returns.
func ExampleSpawner_Spawn() {
	words := []string{"scope", "spawn", "go"}
	upper := make([]string, len(words))
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.Spawner) {
				for i, word := range words {
					s.Spawn(w, func(*forkjoin.Worker) { upper[i] = strings.ToUpper(word) })
				}
			})
		})
	})
	fmt.Println(upper)
	// Output: [SCOPE SPAWN GO]
}

type areaJob struct {
	task          forkjoin.Task
	width, height int
	area          int
	wg            *sync.WaitGroup
}

// run is the job's Task function.
func (j *areaJob) run(w *forkjoin.Worker, _ *forkjoin.Task) {
	defer j.wg.Done()
	j.area = j.width * j.height
}

// Init sets the function a Task runs; a method value of the struct that
// embeds the Task reaches the job's fields. The submitter waits for its
// tasks as it likes: here with a sync.WaitGroup, on a pool that stays open.
func ExampleTask_Init() {
	var wg sync.WaitGroup
	jobs := []areaJob{{width: 3, height: 4}, {width: 5, height: 6}, {width: 7, height: 8}}
	for i := range jobs {
		jobs[i].wg = &wg
		jobs[i].task.Init(jobs[i].run)
	}
	pool.With(2, func(p *pool.Pool) {
		wg.Add(len(jobs))
		for i := range jobs {
			forkjoin.Submit(p, &jobs[i].task)
		}
		wg.Wait()
		for i := range jobs {
			fmt.Print(jobs[i].area, " ")
		}
		fmt.Println()
	})
	// Output: 12 30 56
}

// Done says when a submitted Task is over; then Panic says whether it
// panicked. (A signal the task's own function sends comes before that.)
func ExampleTask_Done() {
	var t forkjoin.Task
	t.Init(func(*forkjoin.Worker, *forkjoin.Task) { panic("disk full") })
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Submit(p, &t)
		<-t.Done()
		fmt.Println("task over, panicked:", t.Panic().Value)
	})
	// Output: task over, panicked: disk full
}

// A submitted Task's panic does not spread: it is kept on the Task, to be
// read once the task is over (here after Close).
func ExampleTask_Panic() {
	var t forkjoin.Task
	t.Init(func(*forkjoin.Worker, *forkjoin.Task) { panic("disk full") })
	p := pool.New(2)
	forkjoin.Submit(p, &t)
	p.Close() // waits for submitted tasks
	if pe := t.Panic(); pe != nil {
		fmt.Println("task panicked:", pe.Value)
	}
	// Output: task panicked: disk full
}

// Every callback receives the Worker of the goroutine that runs it and
// passes that one on: here each row of For sums its cells with Reduce on
// the row's own Worker.
func ExampleWorker() {
	grid := [][]int{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
	rowSums := make([]int, len(grid))
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.For(w, len(grid), 1, func(w *forkjoin.Worker, lo, hi int) {
				for r := lo; r < hi; r++ {
					row := grid[r]
					rowSums[r] = forkjoin.Reduce(w, len(row), 1,
						func(_ *forkjoin.Worker, lo, hi int) int {
							s := 0
							for _, v := range row[lo:hi] {
								s += v
							}
							return s
						},
						func(a, b int) int { return a + b })
				}
			})
		})
	})
	fmt.Println(rowSums)
	// Output: [6 15 24]
}

// Index tells the participants apart: it is distinct among those working
// at one time. Here each chunk records who ran it; on this pool, with one
// caller and no nested run, the indexes are below the parallelism.
func ExampleWorker_Index() {
	ranBy := make([]int, 64)
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.For(w, len(ranBy), 1, func(w *forkjoin.Worker, lo, hi int) {
				for i := lo; i < hi; i++ {
					ranBy[i] = w.Index()
				}
			})
		})
		inRange := true
		for _, idx := range ranBy {
			inRange = inRange && idx >= 0 && idx < p.Parallelism()
		}
		fmt.Println(inRange)
	})
	// Output: true
}

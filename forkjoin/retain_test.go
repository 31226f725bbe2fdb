package forkjoin

import (
	"github.com/forkjoin-go/forkjoin/internal/core"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestRunRetainsNothing: once Run returns, nothing of the run's data is
// reachable from the pool. A fork stack's entries, a slab's slots and a
// deque's ring outlive the run on their worker; if one of them still held a
// forked argument, a tree the caller dropped would stay alive (a subtree
// per stale entry: the root's right child holds half the tree) for as long
// as the pool. Every node gets a finalizer; after the runs the tree is
// dropped and collected while the pool stays open, and every finalizer
// must run. Each way of handing work over is covered: Future forks of a
// pointer (the pointer is kept typed in the entry), Join's word forks, a
// struct argument (kept in a slab slot), a Scope task per node, intrusive
// tasks pushed on the deque, and a Batch submitted from outside.
func TestRunRetainsNothing(t *testing.T) {
	leakcheck.Check(t)
	type pair struct {
		n *tnode
		k int
	}
	var pairFork *Fork[pair, int64]
	pairFork = NewFork(func(f *Fork[pair, int64], w *Worker, a pair) int64 {
		if a.n == nil {
			return 0
		}
		l, r := pairFork.Join(w, pair{a.n.left, a.k}, pair{a.n.right, a.k})
		return a.n.val + l + r
	})
	depth := 16
	if raceEnabled {
		depth = 12
	}
	for _, par := range []int{1, 2} {
		for _, way := range []string{"Future", "Join", "struct", "Scope", "Push", "Batch"} {
			if way == "Batch" && par == 1 {
				continue // submitted tasks wait for a worker, or a Run or Close
			}
			p := pool.New(par)
			var freed atomic.Int64
			var next int64
			root := buildTree(depth, &next)
			var mark func(n *tnode)
			mark = func(n *tnode) {
				if n != nil {
					runtime.SetFinalizer(n, func(*tnode) { freed.Add(1) })
					mark(n.left)
					mark(n.right)
				}
			}
			mark(root)
			want := seqSum(root)
			for range 3 {
				var got int64
				if way == "Batch" {
					got = batchSum(p, root)
				} else {
					Run(p, func(w *Worker) {
						switch way {
						case "Future":
							got = futureSumFork.Call(w, root)
						case "Join":
							got = sumFork.Call(w, root)
						case "struct":
							got = pairFork.Call(w, pair{root, 1})
						case "Scope":
							// A task per node, each capturing its node.
							var sum atomic.Int64
							Scope(w, func(s *Spawner) {
								var visit func(w *Worker, n *tnode)
								visit = func(w *Worker, n *tnode) {
									sum.Add(n.val)
									for _, c := range []*tnode{n.left, n.right} {
										if c != nil {
											s.Spawn(w, func(w *Worker) { visit(w, c) })
										}
									}
								}
								visit(w, root)
							})
							got = sum.Load()
						default:
							got = pushSum(w, root)
						}
					})
				}
				if got != want {
					t.Fatalf("p=%d %s: got %d, want %d", par, way, got, want)
				}
			}
			root = nil
			nodes := next
			// The pool's workers drop what they hold before they leave
			// the scheduler: wait until none is in it.
			s := schedulerOf(p)
			for deadline := time.Now().Add(10 * time.Second); active(s.state.Load()) != 0; runtime.Gosched() {
				if time.Now().After(deadline) {
					t.Fatalf("p=%d %s: a worker is still in the scheduler after 10 s", par, way)
				}
			}
			// A node's finalizer runs a collection after its parent's (the
			// parent reaches it until then): a level of the tree per
			// collection, and finalizers run on a goroutine of their own.
			// Collect until every node is freed; what the pool keeps alive
			// never is, and the deadline fails the test.
			for deadline := time.Now().Add(10 * time.Second); freed.Load() < nodes; runtime.Gosched() {
				if time.Now().After(deadline) {
					t.Errorf("p=%d %s: %d of %d nodes collected after the runs; the pool keeps the rest alive", par, way, freed.Load(), nodes)
					break
				}
				runtime.GC()
			}
			p.Close()
		}
	}
}

// pushNode is an intrusive task summing a subtree: the user's own struct,
// holding a node, pushed on the worker's deque.
type pushNode struct {
	task Task
	n    *tnode
	sum  int64
	done core.Completion
}

func pushSum(w *Worker, n *tnode) int64 {
	if n == nil {
		return 0
	}
	var right *pushNode
	if n.right != nil {
		right = &pushNode{n: n.right}
		right.task.Init(func(w *Worker, t *Task) {
			pn := (*pushNode)(unsafe.Pointer(t))
			pn.sum = pushSum(w, pn.n)
			pn.done.Complete()
		})
		core.Push(w, &right.task)
	}
	s := n.val + pushSum(w, n.left)
	if right != nil {
		core.Wait(w, &right.done)
		s += right.sum
	}
	return s
}

// batchSum submits an intrusive task per node from outside the pool, as one
// Batch, and waits for them: the tasks go through the injector and the
// workers' queues.
func batchSum(p *pool.Pool, root *tnode) int64 {
	var sum atomic.Int64
	var wg sync.WaitGroup
	var b Batch
	var add func(n *tnode)
	add = func(n *tnode) {
		if n == nil {
			return
		}
		pn := &pushNode{n: n}
		pn.task.Init(func(_ *Worker, t *Task) {
			sum.Add((*pushNode)(unsafe.Pointer(t)).n.val)
			wg.Done()
		})
		wg.Add(1)
		b.Push(&pn.task)
		add(n.left)
		add(n.right)
	}
	add(root)
	SubmitBatch(p, &b)
	wg.Wait()
	return sum.Load()
}

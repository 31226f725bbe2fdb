package main

import (
	"fmt"

	"github.com/forkjoin-go/forkjoin/forkjoin"
)

// ChainProblem is the pattern forkjoin's LIFO slot is for: Tasks tasks in
// all, in Chains independent sequences. Without Wait it is message passing:
// each task of a sequence updates the sequence's message, spawns its
// successor and ends. With Wait it is spawn-then-wait: each sequence is one
// task that, Tasks/Chains times, spawns one child (which updates the
// message) and waits for it. The result is the messages combined in order.
type ChainProblem struct {
	Chains, Tasks int
	Wait          bool
}

// hop is what one task does to its sequence's message.
func hop(m uint64, i int) uint64 { return m*6364136223846793005 + uint64(i) }

// perChain is the number of tasks of each sequence.
func (cp *ChainProblem) perChain() int { return cp.Tasks / cp.Chains }

func (cp *ChainProblem) combine(msgs []uint64) uint64 {
	h := uint64(cp.Tasks)
	for _, m := range msgs {
		h = combine(h, m)
	}
	return h
}

// chainSeq runs every sequence on the calling goroutine.
func chainSeq(cp *ChainProblem) uint64 {
	msgs := make([]uint64, cp.Chains)
	for c := range msgs {
		m := uint64(c)
		for i := 0; i < cp.perChain(); i++ {
			m = hop(m, i)
		}
		msgs[c] = m
	}
	return cp.combine(msgs)
}

// chainMsg is a sequence's message and how many hops it has left.
type chainMsg struct {
	m    uint64
	left int
}

func newChainMsgs(cp *ChainProblem) []chainMsg {
	msgs := make([]chainMsg, cp.Chains)
	for c := range msgs {
		msgs[c] = chainMsg{m: uint64(c), left: cp.perChain()}
	}
	return msgs
}

func chainResult(cp *ChainProblem, msgs []chainMsg) uint64 {
	out := make([]uint64, len(msgs))
	for c := range msgs {
		out[c] = msgs[c].m
	}
	return cp.combine(out)
}

// chainPar runs the problem with a peer's scopes: message passing submits
// every successor to the one scope the caller waits for (nested
// submission, as spawnPar); spawn-then-wait opens a scope per child.
func chainPar(sp spawner, cp *ChainProblem) uint64 {
	msgs := newChainMsgs(cp)
	s := sp.scope()
	n := cp.perChain()
	for c := range msgs {
		msg := &msgs[c]
		if cp.Wait {
			s.Go(func() {
				for i := 0; i < n; i++ {
					child := sp.scope()
					child.Go(func() { msg.m = hop(msg.m, i) })
					child.Wait()
				}
			})
			continue
		}
		var step func()
		step = func() {
			msg.m = hop(msg.m, n-msg.left)
			if msg.left--; msg.left > 0 {
				s.Go(step)
			}
		}
		s.Go(step)
	}
	s.Wait()
	return chainResult(cp, msgs)
}

// chainFJ runs the problem with forkjoin's Scope and Spawner.
func chainFJ(env *Env, cp *ChainProblem) uint64 {
	msgs := newChainMsgs(cp)
	n := cp.perChain()
	forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) {
		forkjoin.Scope(w, func(s *forkjoin.Spawner) {
			for c := range msgs {
				msg := &msgs[c]
				if cp.Wait {
					s.Spawn(w, func(w *forkjoin.Worker) {
						for i := 0; i < n; i++ {
							forkjoin.Scope(w, func(s *forkjoin.Spawner) {
								s.Spawn(w, func(*forkjoin.Worker) { msg.m = hop(msg.m, i) })
							})
						}
					})
					continue
				}
				var step func(w *forkjoin.Worker)
				step = func(w *forkjoin.Worker) {
					msg.m = hop(msg.m, n-msg.left)
					if msg.left--; msg.left > 0 {
						s.Spawn(w, step)
					}
				}
				s.Spawn(w, step)
			}
		})
	})
	return chainResult(cp, msgs)
}

func chainWorkload(chains, tasks int, wait bool) *Workload {
	mk := func(t int) func() *Instance {
		return func() *Instance {
			cp := &ChainProblem{Chains: chains, Tasks: t, Wait: wait}
			return &Instance{Units: float64(t), Expected: chainSeq(cp), HasExpected: true, chain: cp}
		}
	}
	label := fmt.Sprintf("message passing, %d × a chain of %s tasks each spawning the next", chains, countName(tasks/chains))
	id := "chain"
	if wait {
		id = "spawn_wait"
		label = fmt.Sprintf("spawn-then-wait, %d × %s times a task spawning one child and waiting for it", chains, countName(tasks/chains))
	}
	return &Workload{
		ID: fmt.Sprintf("%s/%d", id, chains), Label: label,
		Kind: KindChain, UnitName: "task", Nesting: NestSpawn,
		build: mk(tasks), probe: mk(min(tasks, 64*chains)),
	}
}

// chainSuite is the LIFO slot's rows: message passing along 1, 2 and 64
// chains and spawn-then-wait along 1 and 64, 10^5 tasks in all.
func chainSuite(tasks int) []*Workload {
	return []*Workload{
		chainWorkload(1, tasks, false), chainWorkload(2, tasks, false), chainWorkload(64, tasks, false),
		chainWorkload(1, tasks, true), chainWorkload(64, tasks, true),
	}
}

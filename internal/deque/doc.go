// Package deque holds the work-stealing queues of forkjoin's participants,
// both built on one growable ring of atomic pointers (ring.go):
//
//   - Deque, the Chase–Lev deque (deque.go): the owner pushes and pops at
//     the bottom, newest first; a thief takes one element from the top.
//     A participant keeps the forks it published and the Tasks it pushed
//     there.
//   - SpawnQueue (spawnqueue.go): a thief takes up to half of it with one
//     CAS, and the owner takes the oldest element while the queue is
//     short. A participant keeps its spawned tasks there, one queue per
//     priority.
//
// One goroutine owns a queue: it alone pushes, pops and calls DropTaken.
// Any goroutine may steal. Elements are pointers, *T; a queue never reads
// or writes what they point to. stale.go says which slots of the ring may
// still point to elements that were taken, and how DropTaken clears them.
//
// Every word that two goroutines share is read and written through
// sync/atomic, whose operations are sequentially consistent; there is no
// assembly and no code that differs under -race, so the race detector
// checks the code that ships.
package deque

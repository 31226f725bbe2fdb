// Package walk is the parallel engine behind fold.Run and tree.Walk: a
// depth-first fold over a tree given by a children function, run on the
// work-stealing core, with unvisited children handed to other participants
// on demand.
//
// # How one participant walks
//
// A walk keeps an explicit stack of frames — never the goroutine stack, so
// a 10^6-deep chain costs 10^6 frames of heap memory and nothing else. A
// frame is a node in progress: its heap H and the segment of a shared
// buffer that holds its children, collected when the node is entered
// (after its Init). The walk takes the next unvisited child of the top
// frame and enters it; when a frame has no unvisited child left, it is
// finalised, popped (its heap is released at once), and its result is
// accumulated into the frame below. Children are therefore accumulated in
// the order the children function yields them, one at a time, on the
// goroutine that owns the heap: Accumulate never runs concurrently on one
// heap.
//
// # How work moves
//
// At every node the walk asks the core whether another participant wants
// work (Worker.WorkRequested: one load of the worker's own memory). If so,
// it gives away the LAST unvisited child of the OLDEST frame that has one
// (the biggest piece of work it holds, like a thief stealing from the top
// of a deque): the frame's range shrinks by one and the child goes into a
// "pub" record, appended to the frame's list of published children and
// pushed to the worker's deque. Since it always takes the last unvisited
// child, the published children of a frame have increasing indices after
// all of its own ones, and the list is kept in that order.
//
// When a frame has visited its own children it turns to its published ones,
// in order. Each pub is claimed exactly once with a CAS: by a thief that
// took the task, which walks the child's subtree on its own stack and
// stores the result; or by the frame's owner, which finds it unclaimed and
// simply enters the child like an own child (no recursion). If a thief has
// it, the owner helps with other work until the thief completes it, then
// accumulates its result. Either way the results reach the heap in child
// order.
//
// # Failure
//
// A panic in a callback unwinds the walk; a deferred clean-up records it
// as the run's failure (before anyone can see the run cancelled), cancels
// the run, takes back every pub of the walk that nobody took, and lets the
// panic continue to the core's task boundary. It does not wait for pubs
// that thieves took: waiting inside clean-up code, under frames that
// helping may have stacked on other goroutines, can wait in a circle.
// Instead the fold counts its pubs that are not over (published, and
// neither taken back nor finished by a thief), and Run, at the very top,
// waits until that count is zero before it returns or re-panics — so no
// callback of the fold runs after Run is gone. A thief's walk that fails
// marks its pub failed; the owner then aborts too. Cancellation reaches a
// walk through WorkRequested, which unwinds it the same way.
//
// Ranges. A node with many unvisited children (a wide node) gives away
// half of them at once, as a range pub whose taker folds them one by one
// into a slice of results and may split the rest again when asked; the
// owner accumulates the slice in order.
package walk

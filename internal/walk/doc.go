// Package walk is the parallel engine behind fold.Run and tree.Walk: a
// depth-first fold over a tree given by a children function, run on the
// work-stealing core, with unstarted children handed to other participants
// on demand.
//
// # How one participant walks
//
// A walk keeps an explicit stack of frames. A frame is a node in progress:
// its heap H and the segment of a shared buffer that holds its unstarted
// children. The walk takes the next unstarted child of the top frame and
// descends into it (descend.go): it folds the child's subtree by recursion
// on the goroutine stack, each node's children read from their slice when
// Ops has a slice function (foldKids), else folded as the children
// function yields them, the way Seq does, with one load per node to see
// whether another participant asks for work. A subtree nobody asks for is
// folded with no listing and no frame, and its result is accumulated into
// the top frame. When a frame has no unstarted child left, it is
// finalised, popped (its heap is released at once), and its result is
// accumulated into the frame below. Children are therefore accumulated in
// the order the children function yields them, one at a time, on the
// goroutine that owns the heap: Accumulate never runs concurrently on one
// heap.
//
// When a descent finds a request (or its recursion is 64 levels deep), it
// unwinds: every node open on the recursion lists the children it has not
// folded yet (the rest of its slice, or the children it has not yielded
// yet), and the path becomes frames, each listing its unstarted children
// after the one being walked — the stack the walk would have built had it
// listed every node's children on entering it. So depth costs heap
// memory, not goroutine stack: a 10^6-deep chain is 10^6 frames. Each node
// becomes a frame at most once. While a request stands that no frame can
// answer (dry, below), and along a chain once a descent has reached its
// depth bound, the walk lists a node's children when it enters it (enter,
// listDown) instead of descending: a descent would only unwind at once. A
// chain's link then gets a frame with no slot for its only child.
//
// # How work moves
//
// At every node the walk asks the core whether another participant wants
// work (core.Poll.WorkRequested: one load of the worker's own memory; in
// a descent the yield asks, and unwinds to answer) — except while a request stands that it found nothing to answer with (a
// chain): then it does not look until it has a node of two children or
// more, and sees a canceled run at its periodic check instead. When
// asked, it deals out unstarted children of the OLDEST frame that has any
// (the oldest frame holds the biggest pieces of work): its FIRST one; or,
// for a frame with 16 or more left, its first eighth as one range; for a
// wide node (128 or more left), its LAST eighth as one range, which
// becomes the first of the frame's ahead pubs, so that the owner goes on
// accumulating its own children as they come (see offer). The dealt
// children go into a "pub" record, pushed to the worker's deque, and the
// frame's own range moves past them or ends before them. When the top
// frame is the one to deal from, its owner first enters the next child itself (answer):
// the thief gets the children after it, and the owner goes on in child
// order rather than with the younger siblings of a child it gave away.
// The next child may be the first of a held tail (see below): answer makes
// the tail the frame's own range first, as the walk would next. If
// that child was a leaf, the owner looks again at once. A thief that
// finished what it was just given asks while the owner is in the leaf's
// callbacks, and the loop's own next look would come one child later.
//
// Dealing from the front is what keeps accumulation flowing. A frame's
// children are, in order: those accumulated; then the "behind" zone, the
// pubs dealt so far and the results of own children walked after them,
// which wait in the frame's res window (it starts at the first child not
// yet accumulated and is only as long as the results that wait); then the
// frame's own unstarted range; then the "ahead" pubs made while the
// node's children were still being listed (see stream). Whenever the
// owner finishes a child it accumulates, in child order, every result
// that is ready — its own and those of pubs a thief has finished — up to
// the first pub not done. So the results of what thieves took are folded
// in while the owner goes on with its own children, not all at the end:
// on a node whose Accumulate is the expensive part (hylic's aggr),
// dealing from the back left that whole serial tail for the very end.
//
// Each pub is claimed exactly once with a CAS: by a thief that took the
// task, which walks the child's subtree (or the range, child by child) on
// its own stack and stores the result; or by the frame's owner, which
// finds it unclaimed when it has nothing else and walks the child like an
// own child (a range: folded in place). If a thief has it and nothing
// else is left, the owner helps with other work until the thief completes
// it. Either way the results reach the heap in child order.
//
// Tests can force hand-offs: under a context made by WithSchedule, the
// loop also deals when the Schedule says so, as if asked, and lets it wait
// for a taker (fold/foldtest checks folds that way).
//
// # Failure
//
// A panic in a callback unwinds the walk; a deferred clean-up records it
// as the run's failure (before anyone can see the run canceled), cancels
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
// Ranges. A range pub's taker folds its children one by one into a slice
// of results and may deal from it again when asked; the owner accumulates
// the slice in order.
package walk

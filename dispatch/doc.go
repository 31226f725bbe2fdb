// Package dispatch is the ground floor of forkjoin: the two-word Job that
// carries work to a pool's workers, the EventCount that parks and wakes them,
// and the Dispatcher that runs the publish → body → seal → latch lifecycle.
//
// A Dispatcher publishes a *Job through an atomic pointer. Workers call
// Serve: they count themselves in, load the pointer, call the Job if one is
// published and count themselves out. The caller of Dispatch runs its own
// body meanwhile (the caller works too), then seals (clears the pointer) and
// waits on the latch until no worker is between "counted in" and "counted
// out". After Dispatch returns, no worker touches the Job or anything it
// points to, so the caller may reuse that memory for the next run.
//
// The package imports nothing of forkjoin's; pool builds its workers on it.
// Programs that use forkjoin's pool, folds and walks need none of it: it is
// public as the foundation they stand on, for code that runs its own
// workers on the same lifecycle.
package dispatch

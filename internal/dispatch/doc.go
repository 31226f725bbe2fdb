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
// It is internal: a program runs work through forkjoin, fold and tree,
// never through a Job, so nothing here is part of the module's API (see
// docs/architecture.md, "Why dispatch is internal").
package dispatch

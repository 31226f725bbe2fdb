package dispatch

import "unsafe"

// Job is a unit of work handed to a pool's workers: a function and the data
// it works on. It is exactly two machine words, so publishing it is one
// pointer store and calling it is one indirect call; the type of Data is
// known to Call alone.
//
// Call receives Data and the index of the worker that runs it (0 ≤ worker <
// the number of workers of the pool). Call may be entered by several workers
// at once and must be safe for that.
type Job struct {
	Call func(data unsafe.Pointer, worker int)
	Data unsafe.Pointer
}

// Package knobs holds switches that benchmarks and tests of this module
// turn to measure the same code with and without a mechanism. They are read
// when a pool's scheduler is made; programs leave them alone.
package knobs

import "sync/atomic"

// LIFOSlot is whether schedulers created from then on start with the LIFO
// slot on (forkjoin.SetLIFOSlot; off unless set), so that benchmarks which
// make their own pools can be run both ways.
var LIFOSlot atomic.Bool

// Package knobs holds switches that benchmarks and tests of this module
// turn to measure the same code with and without a mechanism. They are read
// when a pool's scheduler is made; programs leave them alone.
package knobs

import "sync/atomic"

// NoLIFOSlot, when set, makes schedulers created from then on queue every
// spawned task, without the LIFO slot (forkjoin/lifo.go).
var NoLIFOSlot atomic.Bool

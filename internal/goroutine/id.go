// Package goroutine reads the calling goroutine's id, for the checks that
// need to know which goroutine calls: a Close from inside the pool's own
// work, a Group's Wait from inside one of its own tasks. Go has no API for
// it; the id is the number in the first line of the goroutine's stack
// trace ("goroutine 123 [running]:"), which runtime.Stack writes. It costs
// about a microsecond: for checks made once per Close, per Wait, per
// goroutine started, never per task or fork.
package goroutine

import "runtime"

// ID returns the calling goroutine's id, or 0 if the stack trace does not
// start as expected. Ids are never reused while a program runs.
func ID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return 0
	}
	var id uint64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

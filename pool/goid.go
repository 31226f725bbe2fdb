package pool

import "runtime"

// goid returns the calling goroutine's id, read from the first line of its
// stack trace ("goroutine 123 [running]:"). It costs about a microsecond:
// it is for Close and for a worker's start, never for a run.
func goid() uint64 {
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

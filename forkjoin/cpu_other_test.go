//go:build !unix

package forkjoin

import "time"

// processCPU is not measured on this system: TestIdle checks the counters
// and the scheduler's state only.
func processCPU() time.Duration { return -1 }

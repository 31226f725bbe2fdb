// Package cacheline keeps hot atomics that different goroutines write apart
// from each other, so that a write by one core does not invalidate the line
// another core is reading (false sharing).
//
// Padding must be a compile-time constant, so Size is fixed at 128 bytes:
// twice the 64-byte line of current x86-64 and most arm64 cores, because
// Intel's adjacent-line prefetcher fetches lines in pairs, and equal to the
// line of Apple's arm64 cores. The tests compare Size with the line size
// that github.com/klauspost/cpuid/v2 reads from the processor and fail if
// the processor's line is larger.
package cacheline

package cacheline

import "github.com/klauspost/cpuid/v2"

// Size is the number of bytes that separates two padded fields.
const Size = 128

// Pad is placed between hot fields: `_ cacheline.Pad`.
type Pad [Size]byte

// Detected returns the cache line size reported by the processor, or 0 when
// it cannot be read (some virtual machines hide it).
func Detected() int { return cpuid.CPU.CacheLine }

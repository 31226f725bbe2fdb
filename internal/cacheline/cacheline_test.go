package cacheline

import (
	"testing"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// TestSizeCoversProcessorLine checks the padding the code assumes against
// the cache line size the processor reports (0 when it hides it, as some
// virtual machines do).
func TestSizeCoversProcessorLine(t *testing.T) {
	line := cpuid.CPU.CacheLine
	t.Logf("processor cache line: %d bytes (0 = not reported); padding: %d", line, Size)
	if line > Size {
		t.Fatalf("processor cache line %d is larger than the padding %d: raise cacheline.Size", line, Size)
	}
	if unsafe.Sizeof(Pad{}) != Size {
		t.Fatalf("Pad is %d bytes, want %d", unsafe.Sizeof(Pad{}), Size)
	}
}

package cacheline

import (
	"testing"
	"unsafe"
)

func TestSizeCoversProcessorLine(t *testing.T) {
	line := Detected()
	t.Logf("processor cache line: %d bytes (0 = not reported); padding: %d", line, Size)
	if line > Size {
		t.Fatalf("processor cache line %d is larger than the padding %d: raise cacheline.Size", line, Size)
	}
	if unsafe.Sizeof(Pad{}) != Size {
		t.Fatalf("Pad is %d bytes, want %d", unsafe.Sizeof(Pad{}), Size)
	}
}

package forkjoin

import (
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestPublishLayout: publish_amd64.s stores into the first 8 bytes of an
// atomic.Int64, which must therefore be its value.
func TestPublishLayout(t *testing.T) {
	if s := unsafe.Sizeof(atomic.Int64{}); s != 8 {
		t.Fatalf("atomic.Int64 is %d bytes, not one int64: publish would write the wrong word", s)
	}
	var x atomic.Int64
	for _, v := range []int64{1, -1, 1 << 62, 0} {
		publish(&x, v)
		if got := x.Load(); got != v {
			t.Fatalf("after publish(%d), Load() = %d", v, got)
		}
	}
}

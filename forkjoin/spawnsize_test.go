package forkjoin

import (
	"testing"
	"unsafe"
)

// TestScopeTaskSize: a scope task fills two cache lines and no more (on
// 64-bit systems; at most two elsewhere), so
// that the tasks of a chunk (getScopeTask) never straddle a third line.
// A field added to spawnTask or scopeTask shows up here first.
func TestScopeTaskSize(t *testing.T) {
	n := unsafe.Sizeof(scopeTask{})
	if n > 128 || (unsafe.Sizeof(uintptr(0)) == 8 && n != 128) {
		t.Fatalf("scopeTask is %d bytes, want 128 on 64-bit systems (two cache lines)", n)
	}
	var chunk [spawnBatch]scopeTask
	if n := unsafe.Sizeof(chunk); n%64 != 0 {
		t.Fatalf("a chunk of scope tasks is %d bytes, not whole cache lines", n)
	}
}

package forkjoin

import (
	"testing"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestScopeTaskSize: a scope task fills two cache lines and no more (on
// 64-bit systems; at most two elsewhere), so that the tasks of a chunk
// (getScopeTask) never straddle a third line. BenchmarkScopeSpawnCold and
// BenchmarkScopeBurst (spawn-µs) depend on it: they measure spawns into
// cold task memory, where every line a spawn writes is a cache miss. A
// field added to spawnTask or scopeTask shows up here first; judge it with
// those benchmarks.
func TestScopeTaskSize(t *testing.T) {
	n := unsafe.Sizeof(scopeTask{})
	if n > 128 || (unsafe.Sizeof(uintptr(0)) == 8 && n != 128) {
		t.Fatalf("scopeTask is %d bytes, want 128 on 64-bit systems (two cache lines)", n)
	}
	var chunk [scopeTaskChunk]scopeTask
	if n := unsafe.Sizeof(chunk); n%64 != 0 || n > 512 {
		t.Fatalf("a chunk of scope tasks is %d bytes, not whole cache lines or over 512 (the runtime puts a header before larger objects)", n)
	}
}

// TestScopeTaskSpawnLine: the fields a Spawn writes all lie in a scope
// task's second cache line, so that a spawn writes one line of the task
// (see scopeTask), and a chunk of tasks starts on a line boundary, so that
// the lines are where the offsets say. BenchmarkScopeSpawnCold and
// BenchmarkScopeBurst (spawn-µs) depend on it, as on TestScopeTaskSize.
func TestScopeTaskSpawnLine(t *testing.T) {
	leakcheck.Check(t)
	var x scopeTask
	base := uintptr(unsafe.Pointer(&x))
	for _, f := range []struct {
		name string
		at   uintptr
		size uintptr
	}{
		{"st.rs.ctx", uintptr(unsafe.Pointer(&x.st.rs.ctx)), unsafe.Sizeof(x.st.rs.ctx)},
		{"st.prio", uintptr(unsafe.Pointer(&x.st.prio)), unsafe.Sizeof(x.st.prio)},
		{"st.ctxDone", uintptr(unsafe.Pointer(&x.st.ctxDone)), unsafe.Sizeof(x.st.ctxDone)},
		{"st.rs.fam", uintptr(unsafe.Pointer(&x.st.rs.fam)), unsafe.Sizeof(x.st.rs.fam)},
		{"fn", uintptr(unsafe.Pointer(&x.fn)), unsafe.Sizeof(x.fn)},
	} {
		off := f.at - base
		if unsafe.Sizeof(uintptr(0)) == 8 && (off < 64 || off+f.size > 128) {
			t.Errorf("scopeTask.%s is at bytes %d–%d, outside the second cache line (64–127)", f.name, off, off+f.size-1)
		}
	}
	// The tasks getScopeTask makes (a new pool's lists are empty).
	pool.With(1, func(p *pool.Pool) {
		Run(p, func(w *Worker) {
			var ts []*scopeTask
			for range 2 * spawnBatch {
				ts = append(ts, w.getScopeTask())
			}
			for _, x := range ts {
				if a := uintptr(unsafe.Pointer(x)); a%64 != 0 {
					t.Fatalf("a scope task starts at %#x, not on a cache line", a)
				}
				w.putScopeTask(x)
			}
		})
	})
}

package goroutine

import (
	"sync"
	"testing"
)

// Each goroutine has its own id, the same on every call.
func TestIDPerGoroutine(t *testing.T) {
	me := ID()
	if me == 0 {
		t.Fatal("ID() = 0 on a test goroutine")
	}
	if again := ID(); again != me {
		t.Fatalf("ID() = %d, then %d on the same goroutine", me, again)
	}
	const n = 8
	ids := make([]uint64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { ids[i] = ID() })
	}
	wg.Wait()
	seen := map[uint64]bool{me: true}
	for _, id := range ids {
		if id == 0 || seen[id] {
			t.Fatalf("ids %v (and %d here): want distinct non-zero ids", ids, me)
		}
		seen[id] = true
	}
}

package walk

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestFrameStackModel drives a frameStack and a plain slice with the same
// random pushes and pops, across many chunks, and checks that every frame
// is where the slice says, that pushed slots are zero and that frames do
// not move while they are on the stack.
func TestFrameStackModel(t *testing.T) {
	var s frameStack[int]
	var model []int
	var ptrs []*int
	rng := rand.New(rand.NewPCG(1, 2))
	next := 1
	check := func() {
		if s.len() != len(model) {
			t.Fatalf("len %d, model %d", s.len(), len(model))
		}
		for i, v := range model {
			if p := s.at(i); p != ptrs[i] || *p != v {
				t.Fatalf("frame %d: %p=%d, want %p=%d", i, p, *p, ptrs[i], v)
			}
		}
		if len(model) > 0 && s.top() != ptrs[len(ptrs)-1] {
			t.Fatal("top is not the last frame")
		}
	}
	for round := range 40 {
		// Grow well past the last doubling chunk, then shrink, at random.
		target := rng.IntN(3 * maxChunk)
		if round%4 == 3 {
			target = 0
		}
		for len(model) != target {
			if len(model) < target && rng.IntN(8) != 0 {
				if s.full() {
					s.nextChunk()
				}
				p := s.push()
				if *p != 0 {
					t.Fatalf("pushed slot %d holds %d", len(model), *p)
				}
				*p = next
				model = append(model, next)
				ptrs = append(ptrs, p)
				next++
			} else if len(model) > 0 {
				s.pop()
				model = model[:len(model)-1]
				ptrs = ptrs[:len(ptrs)-1]
			}
		}
		check()
		if len(model) == 0 {
			s.reset()
		}
	}
}

// TestFrameSize: a walk's frame of a pointer node and an 8-byte heap is
// 32 bytes, what a 10^6-deep chain costs per level (BenchmarkChainPeak in
// fold/ measures it).
func TestFrameSize(t *testing.T) {
	if got := unsafe.Sizeof(frame[*int, int64, int64]{}); got != 32 {
		t.Fatalf("a frame of an 8-byte heap takes %d bytes, want 32", got)
	}
}

// TestAppendKids: AppendKids appends like append, for short and long
// slices, and leaves buf's existing elements alone.
func TestAppendKids(t *testing.T) {
	for n := 0; n <= 9; n++ {
		kids := make([]int, n)
		for i := range kids {
			kids[i] = 10 + i
		}
		buf := []int{1, 2}
		got := AppendKids(buf[:2:2], kids)
		want := append([]int{1, 2}, kids...)
		if !slices.Equal(got, want) {
			t.Fatalf("AppendKids(%v, %v) = %v, want %v", buf, kids, got, want)
		}
	}
}

package typepool

import "testing"

// TestForIsPerType: For returns one pool per type, the same at every call.
func TestForIsPerType(t *testing.T) {
	a, b := For[struct{ x int }](), For[struct{ x int }]()
	if a != b {
		t.Fatal("two pools for one type")
	}
	if For[struct{ y int }]() == a {
		t.Fatal("one pool for two types")
	}
}

func ExampleFor() {
	type scratch struct{ buf []byte }
	p := For[scratch]()
	s, _ := p.Get().(*scratch)
	if s == nil {
		s = new(scratch)
	}
	s.buf = append(s.buf[:0], "work"...)
	p.Put(s)
	// Output:
}

package main

// The busy work of every workload is counted in iterations of one linear
// congruential generator step (Knuth's MMIX constants). One step is a
// dependent multiply-add, so k iterations take k times a fixed latency and
// cannot be vectorised or folded away.
const (
	lcgMul = 6364136223846793005
	lcgAdd = 1442695040888963407
)

// spin advances the LCG k times from x and returns the final state.
//
// It is kept out of line on purpose: a call whose result is unused (the
// "children" work of a fold) must still execute its loop, and a call the
// compiler cannot see into is never removed.
//
//go:noinline
func spin(x uint64, k int) uint64 {
	for i := 0; i < k; i++ {
		x = x*lcgMul + lcgAdd
	}
	return x
}

// mix64 is the splitmix64 finaliser: a cheap, well-spread bijection used to
// derive node values, task seeds and order-sensitive combinations.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// combine folds v into the running hash h so that the order matters:
// combine(combine(h, a), b) differs from combine(combine(h, b), a) for
// practically every a != b. It is used wherever a wrong child or task order
// must show up as a wrong result.
func combine(h, v uint64) uint64 {
	return (h<<7 | h>>57 ^ v) * 0x100000001b3
}

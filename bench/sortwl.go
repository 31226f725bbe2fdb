package main

import "slices"

// sortGrain is the length below which every parallel merge sort of the sort
// workload sorts sequentially (slices.Sort) instead of splitting further.
const sortGrain = 1 << 13

// makeSortInput returns n pseudo-random int64 (a fixed sequence for each n).
func makeSortInput(n int) []int64 {
	a := make([]int64, n)
	x := uint64(0x5eed)
	for i := range a {
		x = x*lcgMul + lcgAdd
		a[i] = int64(mix64(x))
	}
	return a
}

// multisetHash is an order-insensitive fingerprint of the values of a.
func multisetHash(a []int64) uint64 {
	var h uint64
	for _, v := range a {
		h += mix64(uint64(v))
	}
	return h
}

// sortResult is the result of the sort workload: the multiset fingerprint of
// the values if a is sorted, its complement if not. A correct sort gives
// multisetHash(input), independent of any strategy.
func sortResult(a []int64) uint64 {
	h := multisetHash(a)
	if !slices.IsSorted(a) {
		return ^h
	}
	return h
}

// mergeHalves merges the sorted halves a[:mid] and a[mid:] through buf
// (len(buf) >= len(a)) back into a.
func mergeHalves(a []int64, mid int, buf []int64) {
	i, j, k := 0, mid, 0
	for i < mid && j < len(a) {
		if a[j] < a[i] {
			buf[k] = a[j]
			j++
		} else {
			buf[k] = a[i]
			i++
		}
		k++
	}
	k += copy(buf[k:], a[i:mid])
	copy(buf[k:], a[j:])
	copy(a, buf[:len(a)])
}

// mergeSortSeq is the shape every parallel merge sort of the peers follows,
// without the forks: split in halves down to sortGrain, sort the leaves with
// slices.Sort, merge on the way up.
func mergeSortSeq(a, buf []int64) {
	if len(a) <= sortGrain {
		slices.Sort(a)
		return
	}
	mid := len(a) / 2
	mergeSortSeq(a[:mid], buf[:mid])
	mergeSortSeq(a[mid:], buf[mid:])
	mergeHalves(a, mid, buf)
}

// sortDepth is the number of levels of splitting a merge sort of n elements
// does (0 when n <= sortGrain).
func sortDepth(n int) int {
	d := 0
	for n > sortGrain {
		n = (n + 1) / 2
		d++
	}
	return d
}

package tree_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

func ExampleWalk() {
	var mu sync.Mutex
	var names []string
	pool.With(2, func(p *pool.Pool) {
		tree.Walk(p, orgTree, "ceo", func(n string) {
			mu.Lock() // visits run in parallel
			names = append(names, n)
			mu.Unlock()
		})
	})
	sort.Strings(names)
	fmt.Println(names)
	// Output: [acct ceo cfo cto dev1 dev2]
}

func ExampleWalkCtx() {
	errAudit := errors.New("audit the accountant")
	pool.With(2, func(p *pool.Pool) {
		err := tree.WalkCtx(context.Background(), p, orgTree, "ceo", func(n string) error {
			if n == "acct" {
				return errAudit
			}
			return nil
		})
		fmt.Println(err)
	})
	// Output: audit the accountant
}

func ExampleCount() {
	pool.With(2, func(p *pool.Pool) {
		fmt.Println(tree.Count(p, orgTree, "ceo"))
	})
	// Output: 6
}

func ExampleFind() {
	pool.With(2, func(p *pool.Pool) {
		n, ok := tree.Find(p, orgTree, "ceo", func(n string) bool { return len(org[n]) == 1 })
		fmt.Println(n, ok)
	})
	// Output: cfo true
}

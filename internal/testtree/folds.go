package testtree

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/forkjoin-go/forkjoin/fold"
	"pgregory.net/rapid"
)

// Kind selects one of the test folds.
type Kind int

// The test folds. All but KindSum depend on the order of the children.
const (
	// KindSum adds the node values (Res.Sum).
	KindSum Kind = iota
	// KindPreOrder lists the node IDs in pre-order (Res.IDs).
	KindPreOrder
	// KindBrackets writes the tree as "(id child child …)" (Res.Text),
	// with the opening and closing characters picked by the seed.
	KindBrackets
	// KindHash mixes the IDs, values and child hashes with a
	// non-commutative, non-associative step seeded by the seed (Res.Hash).
	KindHash
	numKinds
)

// String names the kind of fold.
func (k Kind) String() string {
	switch k {
	case KindSum:
		return "sum"
	case KindPreOrder:
		return "preorder"
	case KindBrackets:
		return "brackets"
	case KindHash:
		return "hash"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Expands reports whether the result's size grows with the number of
// root-to-node paths (so it explodes on DAGs with heavy sharing).
func (k Kind) Expands() bool { return k == KindPreOrder || k == KindBrackets }

// Kinds lists every test fold.
var Kinds = []Kind{KindSum, KindPreOrder, KindBrackets, KindHash}

// Res is the heap and the result of the test folds; each kind uses one
// field and leaves the others zero.
type Res struct {
	Sum  int64
	Hash uint64
	Text string
	IDs  []int
}

// Equal reports whether two results are the same.
func (r Res) Equal(o Res) bool {
	return r.Sum == o.Sum && r.Hash == o.Hash && r.Text == o.Text && slices.Equal(r.IDs, o.IDs)
}

// String shows every component of the result.
func (r Res) String() string {
	return fmt.Sprintf("{sum %d hash %#x text %q ids %v}", r.Sum, r.Hash, r.Text, r.IDs)
}

// FoldSpec is a test fold: a kind and a seed for its parameters.
type FoldSpec struct {
	Kind Kind
	Seed uint64
}

// String shows the kind and the seed, enough to rebuild the fold.
func (s FoldSpec) String() string { return fmt.Sprintf("%v/%#x", s.Kind, s.Seed) }

// GenFold generates test folds of the given kinds (all kinds if none).
func GenFold(kinds ...Kind) *rapid.Generator[FoldSpec] {
	if len(kinds) == 0 {
		kinds = Kinds
	}
	return rapid.Custom(func(t *rapid.T) FoldSpec {
		return FoldSpec{
			Kind: rapid.SampledFrom(kinds).Draw(t, "kind"),
			Seed: rapid.Uint64().Draw(t, "seed"),
		}
	})
}

var brackets = []string{"()", "[]", "{}", "<>"}

func (s FoldSpec) brackets() (open, close string) {
	b := brackets[s.Seed%uint64(len(brackets))]
	return b[:1], b[1:]
}

// mix is the step of KindHash: h absorbs x; the result depends on the
// order in which values are absorbed.
func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	h *= 0xff51afd7ed558ccd
	return h ^ h>>33
}

func (s FoldSpec) hashInit(n *Node) uint64 {
	return mix(mix(s.Seed, uint64(n.ID)), uint64(n.Value))
}

// Fold returns the test fold.
func (s FoldSpec) Fold() fold.Fold[*Node, Res, Res] {
	switch s.Kind {
	case KindSum:
		return fold.New(
			func(n *Node) Res { return Res{Sum: n.Value} },
			func(h *Res, c Res) { h.Sum += c.Sum },
			func(h *Res) Res { return *h },
		)
	case KindPreOrder:
		return fold.New(
			func(n *Node) Res { return Res{IDs: []int{n.ID}} },
			func(h *Res, c Res) { h.IDs = append(h.IDs, c.IDs...) },
			func(h *Res) Res { return *h },
		)
	case KindBrackets:
		open, close := s.brackets()
		return fold.New(
			func(n *Node) Res { return Res{Text: open + strconv.Itoa(n.ID)} },
			func(h *Res, c Res) { h.Text += " " + c.Text },
			func(h *Res) Res { return Res{Text: h.Text + close} },
		)
	case KindHash:
		return fold.New(
			func(n *Node) Res { return Res{Hash: s.hashInit(n)} },
			func(h *Res, c Res) { h.Hash = mix(h.Hash, c.Hash) },
			func(h *Res) Res { return Res{Hash: mix(h.Hash, 0x5bd1e995)} },
		)
	}
	panic("testtree: unknown fold kind " + s.Kind.String())
}

// Ref computes the result of s.Fold() on the graph below root by plain
// recursion, the reference the executors are compared with. It memoises
// results by node ID, which changes nothing on trees and makes DAGs cheap
// (for the kinds that do not expand). It must not be given a cyclic graph.
func (s FoldSpec) Ref(root *Node) Res {
	return s.ref(root, map[int]Res{})
}

func (s FoldSpec) ref(n *Node, memo map[int]Res) Res {
	if r, ok := memo[n.ID]; ok {
		return r
	}
	var r Res
	switch s.Kind {
	case KindSum:
		r.Sum = n.Value
		for _, c := range n.Children {
			r.Sum += s.ref(c, memo).Sum
		}
	case KindPreOrder:
		r.IDs = []int{n.ID}
		for _, c := range n.Children {
			r.IDs = append(r.IDs, s.ref(c, memo).IDs...)
		}
	case KindBrackets:
		open, close := s.brackets()
		r.Text = open + strconv.Itoa(n.ID)
		for _, c := range n.Children {
			r.Text += " " + s.ref(c, memo).Text
		}
		r.Text += close
	case KindHash:
		h := s.hashInit(n)
		for _, c := range n.Children {
			h = mix(h, s.ref(c, memo).Hash)
		}
		r.Hash = mix(h, 0x5bd1e995)
	default:
		panic("testtree: unknown fold kind " + s.Kind.String())
	}
	memo[n.ID] = r
	return r
}

// SumFold returns the fold that adds the node values, typed int64.
func SumFold() fold.Fold[*Node, int64, int64] {
	return fold.Sum(func(n *Node) int64 { return n.Value })
}

// RefSum adds the node values below n by hand-written recursion (shared
// nodes of a DAG are counted once per path).
func RefSum(n *Node) int64 {
	s := n.Value
	for _, c := range n.Children {
		s += RefSum(c)
	}
	return s
}

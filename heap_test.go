package sqsfake

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// msgHeap is checked against a sorted reference under random pushes, pops, removes and key
// changes, in both roles: the visible/pending heaps (key at, index hidx) and the retention
// heap (key retainFrom, index ridx).

// heapKey is the key a heap orders m by, with seq breaking ties.
func heapKey(h *msgHeap, m *message) [2]int64 {
	if h.role.retention {
		return [2]int64{m.retainFrom, int64(m.seq)}
	}
	return [2]int64{m.at, int64(m.seq)}
}

func compareHeapKeys(a, b [2]int64) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

// requireHeapValid checks the heap property, every stored position, and that the heap holds
// exactly ref's messages; it returns ref sorted by key. (Plain checks: it runs after every
// step of the property tests.)
func requireHeapValid(t *testing.T, h *msgHeap, ref map[*message]bool) []*message {
	t.Helper()
	if h.len() != len(ref) {
		t.Fatalf("heap holds %d messages, reference %d", h.len(), len(ref))
	}
	for i, m := range h.items {
		if !ref[m] {
			t.Fatalf("message %d in the heap but not in the reference", m.seq)
		}
		if h.role.pos(m) != i {
			t.Fatalf("message %d is at %d but records %d", m.seq, i, h.role.pos(m))
		}
		if i > 0 {
			if p := h.items[(i-1)/2]; compareHeapKeys(heapKey(h, p), heapKey(h, m)) > 0 {
				t.Fatalf("heap property broken at %d: parent %v > child %v", i, heapKey(h, p), heapKey(h, m))
			}
		}
	}
	sorted := make([]*message, 0, len(ref))
	for m := range ref {
		sorted = append(sorted, m)
	}
	slices.SortFunc(sorted, func(a, b *message) int { return compareHeapKeys(heapKey(h, a), heapKey(h, b)) })
	if len(sorted) > 0 && h.top() != sorted[0] || len(sorted) == 0 && h.top() != nil {
		t.Fatalf("top is not the minimum")
	}
	return sorted
}

func TestMsgHeapMatchesSortedReference(t *testing.T) {
	for _, retention := range []bool{false, true} {
		for seed := uint64(1); seed <= 10; seed++ {
			t.Run(fmt.Sprintf("retention=%v/seed=%d", retention, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 0x4ea9))
				h := &msgHeap{binHeap[*message, msgRole]{role: msgRole{retention: retention}}}
				ref := map[*message]bool{}
				var seq uint64
				// Small key ranges give many ties, which seq must break.
				keyRange := int64(1 + r.IntN(50))
				setKey := func(m *message, k int64) {
					if retention {
						m.retainFrom = k
					} else {
						m.at = k
					}
				}
				randomMember := func() *message {
					return h.items[r.IntN(h.len())]
				}
				for step := range 2000 {
					switch op := r.IntN(10); {
					case op < 4 || h.len() == 0: // push
						seq++
						m := &message{seq: seq, hidx: -1, ridx: -1}
						setKey(m, r.Int64N(keyRange))
						h.push(m)
						ref[m] = true
					case op < 6: // pop
						sorted := requireHeapValid(t, h, ref)
						m := h.pop()
						require.Same(t, sorted[0], m, "step %d: pop returns the minimum", step)
						require.Equal(t, -1, h.role.pos(m), "a popped message has no position")
						delete(ref, m)
					case op < 8: // remove an arbitrary member
						m := randomMember()
						h.remove(m)
						require.Equal(t, -1, h.role.pos(m))
						delete(ref, m)
					default: // change a member's key, up or down
						m := randomMember()
						setKey(m, r.Int64N(keyRange))
						h.fix(m)
					}
					requireHeapValid(t, h, ref)
				}
				// Draining yields the reference order.
				want := requireHeapValid(t, h, ref)
				var got []*message
				for h.len() > 0 {
					got = append(got, h.pop())
				}
				require.Equal(t, want, got)
			})
		}
	}
}

func TestMsgHeapRolesUseSeparatePositions(t *testing.T) {
	// A message sits in one of visible/pending and in retention at the same time; the two
	// heaps must not overwrite each other's positions.
	r := rand.New(rand.NewPCG(7, 7))
	vis := &msgHeap{}
	ret := func() *msgHeap { h := newRetentionHeap(); return &h }()
	ref := map[*message]bool{}
	for i := range 300 {
		m := &message{seq: uint64(i + 1), at: r.Int64N(100), retainFrom: r.Int64N(100)}
		vis.push(m)
		ret.push(m)
		ref[m] = true
	}
	for len(ref) > 0 {
		var m *message
		if r.IntN(2) == 0 {
			m = vis.pop()
			ret.remove(m)
		} else {
			m = ret.pop()
			vis.remove(m)
		}
		delete(ref, m)
		requireHeapValid(t, vis, ref)
		requireHeapValid(t, ret, ref)
	}
}

func TestMsgHeapGivesMemoryBackWhenDrained(t *testing.T) {
	h := &msgHeap{}
	for i := range 5000 {
		h.push(&message{seq: uint64(i), at: int64(i % 97)})
	}
	grown := cap(h.items)
	for h.len() > 10 {
		h.pop()
	}
	require.Less(t, cap(h.items), grown/4, "the backing array shrinks")
	prev := int64(-1)
	for h.len() > 0 {
		m := h.pop()
		require.GreaterOrEqual(t, m.at, prev)
		prev = m.at
	}
	h.push(&message{seq: 1})
	h.clear()
	require.Zero(t, h.len())
	require.Nil(t, h.top())
}

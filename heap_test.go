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
// changes, in its three orders: the pending heap (key at, index hidx), the visible heap (key
// seq, index hidx) and the retention heap (key retainFrom, index ridx).

// heapKey is the key a heap orders m by, with seq breaking ties.
func heapKey(h *msgHeap, m *message) [2]int64 {
	switch h.role.order {
	case byRetention:
		return [2]int64{m.retainFrom, int64(m.seq)}
	case bySend:
		return [2]int64{0, int64(m.seq)}
	}
	return [2]int64{m.at, int64(m.seq)}
}

// heapOf returns an empty set in the given order.
func heapOf(order msgOrder) *msgHeap {
	h := newMsgHeap(order)
	return &h
}

func compareHeapKeys(a, b [2]int64) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

// requireHeapValid checks every stored position, that the ring holds its messages in key
// order, the heap property of the heap part, and that the set holds exactly ref's messages;
// it returns ref sorted by key. (Plain checks: it runs after every step of the property
// tests.)
func requireHeapValid(t *testing.T, h *msgHeap, ref map[*message]bool) []*message {
	t.Helper()
	if h.len() != len(ref) {
		t.Fatalf("set holds %d messages, reference %d", h.len(), len(ref))
	}
	live := 0
	var prev *message
	for i, m := range h.ring {
		if m == nil {
			continue
		}
		live++
		if !ref[m] {
			t.Fatalf("message %d in the ring but not in the reference", m.seq)
		}
		if i < h.head {
			t.Fatalf("message %d stands before the ring's head", m.seq)
		}
		if h.role.pos(m) != int(ringPos(i)) {
			t.Fatalf("message %d is at ring %d but records %d", m.seq, i, h.role.pos(m))
		}
		if prev != nil && compareHeapKeys(heapKey(h, prev), heapKey(h, m)) > 0 {
			t.Fatalf("ring out of order at %d", i)
		}
		prev = m
	}
	if live != h.live {
		t.Fatalf("ring counts %d live messages, holds %d", h.live, live)
	}
	for i, m := range h.heap.items {
		if !ref[m] {
			t.Fatalf("message %d in the heap but not in the reference", m.seq)
		}
		if h.role.pos(m) != i {
			t.Fatalf("message %d is at %d but records %d", m.seq, i, h.role.pos(m))
		}
		if i > 0 {
			if p := h.heap.items[(i-1)/2]; compareHeapKeys(heapKey(h, p), heapKey(h, m)) > 0 {
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
	for _, order := range []msgOrder{byDue, bySend, byRetention} {
		for seed := uint64(1); seed <= 10; seed++ {
			t.Run(fmt.Sprintf("order=%d/seed=%d", order, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 0x4ea9))
				h := heapOf(order)
				var members []*message // ref's messages, in a slice to pick from deterministically
				ref := map[*message]bool{}
				var seq uint64
				// Small key ranges give many ties, which seq must break.
				keyRange := int64(1 + r.IntN(50))
				rising := int64(0)
				setKey := func(m *message, k int64) {
					switch order {
					case byRetention:
						m.retainFrom = k
					case bySend:
						// The key is seq itself: k in the high bits, and the push count in
						// the low ones keeps each message's seq its own.
						m.seq = uint64(k)<<16 | m.seq&0xffff
					default:
						m.at = k
					}
				}
				randomMember := func() *message {
					return members[r.IntN(len(members))]
				}
				forget := func(m *message) {
					delete(ref, m)
					members = slices.DeleteFunc(members, func(x *message) bool { return x == m })
				}
				for step := range 2000 {
					switch op := r.IntN(10); {
					case op < 4 || h.len() == 0: // push
						seq++
						m := &message{seq: seq, hidx: -1, ridx: -1}
						// Even seeds push mostly rising keys, as queues do, which the ring
						// takes; odd seeds push random keys, which the heap takes.
						if seed%2 == 0 && r.IntN(10) > 0 {
							rising += r.Int64N(3)
							setKey(m, rising)
						} else {
							setKey(m, r.Int64N(keyRange))
						}
						h.push(m)
						ref[m] = true
						members = append(members, m)
					case op < 6: // pop
						sorted := requireHeapValid(t, h, ref)
						m := h.pop()
						require.Same(t, sorted[0], m, "step %d: pop returns the minimum", step)
						require.Equal(t, -1, h.role.pos(m), "a popped message has no position")
						forget(m)
					case op < 8: // remove an arbitrary member
						m := randomMember()
						h.remove(m)
						require.Equal(t, -1, h.role.pos(m))
						forget(m)
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
	vis := heapOf(byDue)
	ret := heapOf(byRetention)
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
	grown := cap(h.ring) + cap(h.heap.items)
	for h.len() > 10 {
		h.pop()
	}
	require.Less(t, cap(h.ring)+cap(h.heap.items), grown/4, "the backing arrays shrink")
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

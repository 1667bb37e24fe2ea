package sqsfake

// msgHeap is an ordered set of messages with O(1) work for the common case and O(log n) for
// the rest. Messages mostly arrive in key order — sends in send order, visibility deadlines
// of one timeout in receive order, retention starts in send order — so a message whose key
// is not below the last one appended goes to the end of a ring (an O(1) append, later an
// O(1) take from the front) and only a message that arrives out of order goes to a heap. The
// least message is the smaller of the ring's front and the heap's top. Each message keeps
// its position in the field its role names (hidx or ridx): -1 when absent, ≥ 0 a heap
// index, ≤ -2 the ring index i stored as -(i+2).
type msgHeap struct {
	role    msgRole
	ring    []*message // in key order; nil where a message was removed
	head    int        // ring[:head] holds only removed messages
	live    int        // messages in the ring
	lastAt  int64      // the key of the message appended last
	lastSeq uint64
	heap    binHeap[*message, msgRole]
}

// newMsgHeap returns an empty set in the given order.
func newMsgHeap(order msgOrder) msgHeap {
	r := msgRole{order: order}
	return msgHeap{role: r, heap: binHeap[*message, msgRole]{role: r}}
}

func (h *msgHeap) len() int { return h.live + h.heap.len() }

func (h *msgHeap) key(m *message) (int64, uint64) { return h.role.key(m) }

func ringPos(i int) int32 { return int32(-(i + 2)) }

// front returns the ring's first message, or nil, dropping removed ones before it.
func (h *msgHeap) front() *message {
	for h.head < len(h.ring) && h.ring[h.head] == nil {
		h.head++
	}
	if h.head >= len(h.ring) {
		return nil
	}
	if h.head > 1024 && h.head > len(h.ring)/2 {
		h.compact()
	}
	return h.ring[h.head]
}

// compact moves the ring's messages to the front of a new slice.
func (h *msgHeap) compact() {
	ring := make([]*message, len(h.ring)-h.head, max(2*(len(h.ring)-h.head), 16))
	copy(ring, h.ring[h.head:])
	for i, m := range ring {
		if m != nil {
			h.role.setPos(m, int(ringPos(i)))
		}
	}
	h.ring, h.head = ring, 0
}

// top returns the least message, or nil.
func (h *msgHeap) top() *message {
	r := h.front()
	t, ok := h.heap.top()
	switch {
	case !ok:
		return r
	case r == nil || h.role.less(t, r):
		return t
	}
	return r
}

func (h *msgHeap) push(m *message) {
	at, seq := h.key(m)
	if h.live == 0 && h.head > 0 {
		clear(h.ring[:h.head])
		h.ring, h.head = h.ring[:0], 0
	}
	if h.live == 0 || at > h.lastAt || at == h.lastAt && seq > h.lastSeq {
		h.role.setPos(m, int(ringPos(len(h.ring))))
		h.ring = append(h.ring, m)
		h.live++
		h.lastAt, h.lastSeq = at, seq
		return
	}
	h.heap.push(m)
}

func (h *msgHeap) pop() *message {
	m := h.top()
	h.remove(m)
	return m
}

func (h *msgHeap) remove(m *message) {
	p := h.role.pos(m)
	if p >= 0 {
		h.heap.remove(m)
		return
	}
	i := -p - 2
	h.ring[i] = nil
	h.live--
	h.role.setPos(m, -1)
	if h.live == 0 {
		clear(h.ring[h.head:])
		h.ring, h.head = h.ring[:0], 0
	}
}

// fix restores the order after m's key changed.
func (h *msgHeap) fix(m *message) {
	if h.role.pos(m) >= 0 {
		h.heap.fix(m)
		return
	}
	h.remove(m)
	h.push(m)
}

// clear drops every message.
func (h *msgHeap) clear() {
	h.ring, h.head, h.live = nil, 0, 0
	h.heap.clear()
}

package sqsfake

// msgHeap is a binary min-heap of messages that keeps each message's position in the message
// itself, so a message can be removed or re-keyed in O(log n). Which key and which position
// field it uses depends on its role: the visible and pending heaps order by (at, seq) and use
// hidx; the retention heap orders by (retainFrom, seq) and uses ridx.
type msgHeap struct {
	ms        []*message
	retention bool
}

func (h *msgHeap) len() int { return len(h.ms) }

func (h *msgHeap) top() *message {
	if len(h.ms) == 0 {
		return nil
	}
	return h.ms[0]
}

func (h *msgHeap) less(a, b *message) bool {
	if h.retention {
		if a.retainFrom != b.retainFrom {
			return a.retainFrom < b.retainFrom
		}
		return a.seq < b.seq
	}
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

func (h *msgHeap) setIndex(m *message, i int) {
	if h.retention {
		m.ridx = int32(i)
	} else {
		m.hidx = int32(i)
	}
}

func (h *msgHeap) index(m *message) int {
	if h.retention {
		return int(m.ridx)
	}
	return int(m.hidx)
}

func (h *msgHeap) push(m *message) {
	h.ms = append(h.ms, m)
	h.setIndex(m, len(h.ms)-1)
	h.up(len(h.ms) - 1)
}

func (h *msgHeap) pop() *message {
	m := h.ms[0]
	h.removeAt(0)
	return m
}

func (h *msgHeap) remove(m *message) { h.removeAt(h.index(m)) }

func (h *msgHeap) removeAt(i int) {
	last := len(h.ms) - 1
	m := h.ms[i]
	if i != last {
		h.ms[i] = h.ms[last]
		h.setIndex(h.ms[i], i)
	}
	h.ms[last] = nil
	h.ms = h.ms[:last]
	if i != last {
		if !h.down(i) {
			h.up(i)
		}
	}
	h.setIndex(m, -1)
	// Give memory back when a heap that was large has drained.
	if cap(h.ms) > 1024 && len(h.ms) < cap(h.ms)/4 {
		h.ms = append([]*message(nil), h.ms...)
	}
}

// fix restores the order after m's key changed.
func (h *msgHeap) fix(m *message) {
	i := h.index(m)
	if !h.down(i) {
		h.up(i)
	}
}

func (h *msgHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.ms[i], h.ms[p]) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *msgHeap) down(i0 int) bool {
	i, n := i0, len(h.ms)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h.less(h.ms[r], h.ms[l]) {
			c = r
		}
		if !h.less(h.ms[c], h.ms[i]) {
			break
		}
		h.swap(i, c)
		i = c
	}
	return i > i0
}

func (h *msgHeap) swap(i, j int) {
	h.ms[i], h.ms[j] = h.ms[j], h.ms[i]
	h.setIndex(h.ms[i], i)
	h.setIndex(h.ms[j], j)
}

// clear drops every message.
func (h *msgHeap) clear() { h.ms = nil }

package sqsfake

// A binHeap is a binary min-heap that keeps each element's position in the element itself,
// so that an element can be removed or re-keyed in O(log n). Its role R says how elements
// compare and where an element keeps its position: the message heaps and the FIFO ready-group
// heap share this one implementation.
type binHeap[T any, R heapRole[T]] struct {
	items []T
	role  R
}

// heapRole orders a heap's elements and keeps their positions.
type heapRole[T any] interface {
	less(a, b T) bool
	setPos(x T, i int)
	pos(x T) int
}

func (h *binHeap[T, R]) len() int { return len(h.items) }

// top returns the least element; ok is false when the heap is empty.
func (h *binHeap[T, R]) top() (x T, ok bool) {
	if len(h.items) == 0 {
		return x, false
	}
	return h.items[0], true
}

func (h *binHeap[T, R]) push(x T) {
	h.items = append(h.items, x)
	h.role.setPos(x, len(h.items)-1)
	h.up(len(h.items) - 1)
}

func (h *binHeap[T, R]) pop() T {
	x := h.items[0]
	h.removeAt(0)
	return x
}

func (h *binHeap[T, R]) remove(x T) { h.removeAt(h.role.pos(x)) }

func (h *binHeap[T, R]) removeAt(i int) {
	last := len(h.items) - 1
	x := h.items[i]
	if i != last {
		h.items[i] = h.items[last]
		h.role.setPos(h.items[i], i)
	}
	var zero T
	h.items[last] = zero
	h.items = h.items[:last]
	if i != last && !h.down(i) {
		h.up(i)
	}
	h.role.setPos(x, -1)
	// Give memory back when a heap that was large has drained.
	if cap(h.items) > 1024 && len(h.items) < cap(h.items)/4 {
		h.items = append([]T(nil), h.items...)
	}
}

// fix restores the order after x's key changed.
func (h *binHeap[T, R]) fix(x T) {
	i := h.role.pos(x)
	if !h.down(i) {
		h.up(i)
	}
}

func (h *binHeap[T, R]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.role.less(h.items[i], h.items[p]) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *binHeap[T, R]) down(i0 int) bool {
	i, n := i0, len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h.role.less(h.items[r], h.items[l]) {
			c = r
		}
		if !h.role.less(h.items[c], h.items[i]) {
			break
		}
		h.swap(i, c)
		i = c
	}
	return i > i0
}

func (h *binHeap[T, R]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.role.setPos(h.items[i], i)
	h.role.setPos(h.items[j], j)
}

// clear drops every element.
func (h *binHeap[T, R]) clear() { h.items = nil }

// fixOrPush pushes x when it is new to the heap, or restores the order after its key grew.
func (h *binHeap[T, R]) fixOrPush(x T, isNew bool) {
	if isNew {
		h.push(x)
		return
	}
	h.fix(x)
}

// msgOrder is how a message heap orders its messages.
type msgOrder uint8

const (
	// byDue orders the pending heap: by the time a message becomes visible, then by send
	// order.
	byDue msgOrder = iota
	// bySend orders the visible heap of a standard queue: by send order alone, so that a
	// message that was in flight or delayed takes its place among the visible ones by when
	// it was sent, not by when it became visible (issue 11; DESIGN.md "Determinism").
	bySend
	// byRetention orders the retention heap: by the start of the retention period, then by
	// send order.
	byRetention
)

// msgRole orders messages in one of the orders above. The visible and pending heaps keep a
// message's position in hidx (a message is in one of them at most), the retention heap in
// ridx.
type msgRole struct{ order msgOrder }

// key returns m's sort key: a time, then m.seq for ties.
func (r msgRole) key(m *message) (int64, uint64) {
	switch r.order {
	case bySend:
		return 0, m.seq
	case byRetention:
		return m.retainFrom, m.seq
	}
	return m.at, m.seq
}

func (r msgRole) less(a, b *message) bool {
	var at, bt int64
	switch r.order {
	case bySend:
		return a.seq < b.seq
	case byRetention:
		at, bt = a.retainFrom, b.retainFrom
	default:
		at, bt = a.at, b.at
	}
	if at != bt {
		return at < bt
	}
	return a.seq < b.seq
}

func (r msgRole) setPos(m *message, i int) {
	if r.order == byRetention {
		m.ridx = int32(i)
	} else {
		m.hidx = int32(i)
	}
}

func (r msgRole) pos(m *message) int {
	if r.order == byRetention {
		return int(m.ridx)
	}
	return int(m.hidx)
}

// groupRole orders FIFO groups by when their head became available, ties by the order in
// which the heads were sent or handed out.
//
// Its methods are called through binHeap's type parameter, which staticcheck's unused check
// does not follow (it reports them as unused, U1000).
//
//lint:ignore U1000 used as the role of groupHeap
type groupRole struct{}

func (groupRole) less(a, b *group) bool {
	if a.keyAt != b.keyAt {
		return a.keyAt < b.keyAt
	}
	return a.keyOrder < b.keyOrder
}

func (groupRole) setPos(g *group, i int) { g.gidx = i }
func (groupRole) pos(g *group) int       { return g.gidx }

// groupHeap is the heap of a FIFO queue's receivable groups.
type groupHeap struct{ binHeap[*group, groupRole] }

// top returns the first receivable group, or nil.
func (h *groupHeap) top() *group {
	g, _ := h.binHeap.top()
	return g
}

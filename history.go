package sqsfake

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Every message keeps its history on the fake's clock: sent, each receive with its receipt
// handle and deadline, visibility changes, returns to visibility, and how it left its queue.
// The fake records compact events in one append-only log, in fixed-size chunks so that it
// never copies what it holds; Timeline turns them into readable data and text.

// EventKind names something that happened to a message: EventSent, EventReceived,
// EventVisibilityChanged, EventVisibleAgain, EventDeleted, EventMovedToDLQ, EventRedriven,
// EventPurged, EventExpired, EventQueueDeleted, EventDeleteMissed, EventCallFailed or
// EventCallIgnored, each described with its constant.
type EventKind uint8

// The kinds of events of a message's timeline.
const (
	// EventSent: the message was stored in a queue (sent, or redriven from a DLQ).
	EventSent EventKind = iota + 1
	// EventReceived: a receive returned it, with a new receipt handle.
	EventReceived
	// EventVisibilityChanged: ChangeMessageVisibility set when it becomes visible again.
	EventVisibilityChanged
	// EventVisibleAgain: its visibility timeout ran out.
	EventVisibleAgain
	// EventDeleted: DeleteMessage removed it.
	EventDeleted
	// EventMovedToDLQ: a receive found it at maxReceiveCount and moved it to the DLQ.
	EventMovedToDLQ
	// EventRedriven: a message move task moved it out of a DLQ, as a new message.
	EventRedriven
	// EventPurged: PurgeQueue removed it.
	EventPurged
	// EventExpired: it outlived the queue's MessageRetentionPeriod.
	EventExpired
	// EventQueueDeleted: its queue was deleted.
	EventQueueDeleted
	// EventDeleteMissed: a DeleteMessage succeeded, but WithChaos kept the message, as when
	// SQS's delete misses a copy of it; it comes back when its visibility timeout ends.
	EventDeleteMissed
	// EventCallFailed: a DeleteMessage or ChangeMessageVisibility that named the message by
	// a receipt handle — alone or as a batch entry — failed: SQS refused it (an expired
	// handle, a handle of another queue, a visibility beyond the limit), an injected fault
	// failed it, or its response was lost. Operation and ErrorCode say which and why.
	EventCallFailed
	// EventCallIgnored: such a call succeeded but changed nothing, as SQS answers it: a
	// DeleteMessage of a message that had already left the queue, a ChangeMessageVisibility
	// of a message that was no longer in flight.
	EventCallIgnored
)

var eventNames = [...]string{
	EventSent: "sent", EventReceived: "received", EventVisibilityChanged: "visibility changed",
	EventVisibleAgain: "visible again", EventDeleted: "deleted", EventMovedToDLQ: "moved to DLQ",
	EventRedriven: "redriven", EventPurged: "purged", EventExpired: "expired", EventQueueDeleted: "queue deleted",
	EventDeleteMissed: "delete missed (chaos)", EventCallFailed: "call failed", EventCallIgnored: "call changed nothing",
}

// String returns the event kind in words.
func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// event is one recorded event as the fake works with it. The log keeps it encoded in a
// few bytes (history), since it keeps every event of a fake's life by default: fresh
// memory for a growing log is what an event costs most (BenchmarkSendReceiveDeleteCycle,
// BenchmarkMemoryPerQueuedMessage).
type event struct {
	at    int64
	idNum uint64 // the message
	// arg is what the kind adds, read through deadline and other: received, visibility
	// changed: when it becomes visible again; redriven: the new message; sent by a redrive:
	// the old one; a failed call's: 1 for an injected fault. No kind has two of them.
	arg     uint64
	queue   uint32 // where it happened
	to      uint32 // moved to DLQ, redriven: the queue it went to; an event a call made: who made it (actor.num)
	receive uint32 // received: which receive; a call's: the receive its receipt handle names
	kind    EventKind
	op      uint8  // a call's: its operation (operationNames)
	code    uint16 // a failed call's: its error code (Fake.codes)
}

// deadline is when a received message becomes visible again (received, visibility changed).
func (e *event) deadline() int64 { return int64(e.arg) }

// other is the message a redrive made (redriven) or made it from (sent by a redrive), or
// whether a failed call's fault was injected (call failed).
func (e *event) other() uint64 { return e.arg }

// historyChunk is how many events a chunk of the event log holds.
const historyChunk = logChunk

// history is the fake's event log: append-only, in chunks of historyChunk events, each
// event encoded in a few bytes (three to twelve, typically) as differences from the one
// before it in its chunk, so that every chunk decodes on its own. With a limit it forgets
// its oldest chunk when the newer ones hold the limit, and reuses that chunk's memory. It is
// only read from the start (each): timelines scan it.
type history struct {
	chunks []histChunk
	limit  int    // the fewest newest events kept, in whole chunks; 0 keeps every event
	forgot uint64 // how many of the oldest events were forgotten
	prev   event  // the last event added to the newest chunk: what the next is encoded against
}

// histChunk is one chunk of the event log: n events encoded in buf.
type histChunk struct {
	buf []byte
	n   int
}

// An encoded event starts with a byte that holds its kind (the low four bits) and which of
// its optional fields follow (the high four). Then come, as varints: the difference of its
// time and of its message from the event before it (zigzag, as either can step back: a
// redrive's new message, a clock that was Set back), its queue, and the optional fields
// present — arg (for a deadline, its distance from the event's time), to, receive, and op
// with code.
const (
	evHasArg     = 1 << 4
	evHasTo      = 1 << 5
	evHasReceive = 1 << 6
	evHasOp      = 1 << 7
	evKindMask   = 0x0f
)

// The kinds fit in the header's low four bits.
var _ = [evKindMask + 1 - len(eventNames)]struct{}{}

// add appends e.
func (h *history) add(e event) {
	n := len(h.chunks)
	switch {
	case n == 0:
		h.chunks = append(h.chunks, histChunk{})
		n++
	case h.chunks[n-1].n == historyChunk:
		if h.limit > 0 && (n-1)*historyChunk+1 >= h.limit {
			// The newer chunks hold the limit: forget the oldest, and reuse its memory.
			oldest := h.chunks[0]
			copy(h.chunks, h.chunks[1:])
			h.chunks[n-1] = histChunk{buf: oldest.buf[:0]}
			h.forgot += historyChunk
		} else {
			// A new chunk starts as large as the one before it ended, so that it rarely grows.
			h.chunks = append(h.chunks, histChunk{buf: make([]byte, 0, cap(h.chunks[n-1].buf))})
			n++
		}
		h.prev = event{}
	}
	c := &h.chunks[n-1]
	c.buf = appendEvent(c.buf, &h.prev, &e)
	c.n++
	h.prev = e
}

// maxEventLen is the longest an encoded event can be: its head, two times that may need a
// marker and ten bytes each, the other message's number, its queue, to and receive, op and
// code.
const maxEventLen = 1 + 11 + 10 + 5 + 11 + 5 + 5 + 1 + 3

// appendEvent appends e to buf, encoded against prev.
func appendEvent(buf []byte, prev, e *event) []byte {
	var b [maxEventLen]byte
	head := byte(e.kind) & evKindMask
	n := 1
	n = putTime(&b, n, e.at-prev.at)
	n = putUvarint(&b, n, zigzag(int64(e.idNum-prev.idNum)))
	n = putUvarint(&b, n, uint64(e.queue))
	if e.arg != 0 {
		head |= evHasArg
		if e.kind.argIsDeadline() {
			n = putTime(&b, n, int64(e.arg)-e.at)
		} else {
			n = putUvarint(&b, n, e.arg)
		}
	}
	if e.to != 0 {
		head |= evHasTo
		n = putUvarint(&b, n, uint64(e.to))
	}
	if e.receive != 0 {
		head |= evHasReceive
		n = putUvarint(&b, n, uint64(e.receive))
	}
	if e.op != 0 || e.code != 0 {
		head |= evHasOp
		b[n] = e.op
		n = putUvarint(&b, n+1, uint64(e.code))
	}
	b[0] = head
	return append(buf, b[:n]...)
}

// decodeEvent decodes the event at the start of buf into e, which holds the event before
// it, and returns what follows it.
func decodeEvent(buf []byte, e *event) []byte {
	head := buf[0]
	d, buf := readTime(buf[1:])
	at := e.at + d
	d, buf = readZigzag(buf)
	*e = event{at: at, idNum: e.idNum + uint64(d), kind: EventKind(head & evKindMask)}
	var v uint64
	v, buf = readUvarint(buf)
	e.queue = uint32(v)
	if head&evHasArg != 0 {
		if e.kind.argIsDeadline() {
			d, buf = readTime(buf)
			e.arg = uint64(at + d)
		} else {
			e.arg, buf = readUvarint(buf)
		}
	}
	if head&evHasTo != 0 {
		v, buf = readUvarint(buf)
		e.to = uint32(v)
	}
	if head&evHasReceive != 0 {
		v, buf = readUvarint(buf)
		e.receive = uint32(v)
	}
	if head&evHasOp != 0 {
		e.op = buf[0]
		v, buf = readUvarint(buf[1:])
		e.code = uint16(v)
	}
	return buf
}

// argIsDeadline reports whether an event of kind k carries a deadline as its arg.
func (k EventKind) argIsDeadline() bool { return k == EventReceived || k == EventVisibilityChanged }

// putTime writes a difference of times in nanoseconds at b[n:] and returns where it
// ends: one of whole milliseconds, as the fake's clock usually moves, as milliseconds (a
// minute in three bytes, not five), with the low bit set; others as nanoseconds, the low bit
// clear. A difference too large to shift (2⁶² ns, 146 years, or more) is a 0 and then the
// difference in full: the other forms never write a 0, since a difference of 0 is in whole
// milliseconds.
func putTime(b *[maxEventLen]byte, n int, d int64) int {
	if d%1e6 == 0 {
		return putUvarint(b, n, zigzag(d/1e6)<<1|1)
	}
	if u := zigzag(d); u < 1<<63 {
		return putUvarint(b, n, u<<1)
	}
	b[n] = 0
	return putUvarint(b, n+1, zigzag(d))
}

// readTime reads what appendTime appended.
func readTime(buf []byte) (int64, []byte) {
	u, rest := readUvarint(buf)
	switch {
	case u&1 != 0:
		return unzigzag(u>>1) * 1e6, rest
	case u == 0:
		u, rest = readUvarint(rest)
		return unzigzag(u), rest
	}
	return unzigzag(u >> 1), rest
}

func zigzag(v int64) uint64 { return uint64(v<<1 ^ v>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// putUvarint writes v as a varint at b[n:] and returns where it ends.
func putUvarint(b *[maxEventLen]byte, n int, v uint64) int {
	for v >= 0x80 {
		b[n] = byte(v) | 0x80
		v >>= 7
		n++
	}
	b[n] = byte(v)
	return n + 1
}

func readZigzag(buf []byte) (int64, []byte) {
	u, rest := readUvarint(buf)
	return unzigzag(u), rest
}

func readUvarint(buf []byte) (uint64, []byte) {
	var v uint64
	for i, shift := 0, uint(0); ; i, shift = i+1, shift+7 {
		b := buf[i]
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, buf[i+1:]
		}
	}
}

// dropped reports whether the log has forgotten events.
func (h *history) dropped() bool { return h.forgot > 0 }

// reset empties the log and keeps its limit.
func (h *history) reset() { *h = history{limit: h.limit} }

// each calls fn with every event the log holds, oldest first.
func (h *history) each(fn func(e *event)) {
	for _, c := range h.chunks {
		var e event
		for buf := c.buf; len(buf) > 0; {
			buf = decodeEvent(buf, &e)
			ev := e
			fn(&ev)
		}
	}
}

// logChunk is the size of the chunks of the fake's logs: the event log and the call record.
const logChunk = 4096

// chunkLog is an append-only log kept in chunks of logChunk entries, so that it never copies
// what it holds once a chunk is full (the first chunk grows as a slice does, so that a small
// fake stays small). With a limit it forgets its oldest chunk when the newer ones hold the
// limit, and reuses that chunk's memory.
type chunkLog[T any] struct {
	chunks [][]T
	limit  int    // the fewest newest entries kept, in whole chunks; 0 keeps every entry
	forgot uint64 // how many of the oldest entries were forgotten
}

// add appends v and returns where it is stored, valid until the next add.
func (l *chunkLog[T]) add(v T) *T {
	n := len(l.chunks)
	switch {
	case n == 0:
		l.chunks = append(l.chunks, nil)
		n++
	case len(l.chunks[n-1]) == logChunk:
		if l.limit > 0 && (n-1)*logChunk+1 >= l.limit {
			// The newer chunks hold the limit: forget the oldest, and reuse its memory.
			oldest := l.chunks[0]
			copy(l.chunks, l.chunks[1:])
			l.chunks[n-1] = oldest[:0]
			l.forgot += logChunk
		} else {
			l.chunks = append(l.chunks, make([]T, 0, logChunk))
			n++
		}
	}
	c := l.chunks[n-1]
	if len(c) == cap(c) && cap(c) < logChunk {
		// The first chunk doubles as it grows: append grows a slice past 256 entries by a
		// quarter, which would copy a busy fake's first chunk a dozen times over.
		g := make([]T, len(c), min(logChunk, max(16, 2*cap(c))))
		copy(g, c)
		c = g
	}
	c = append(c, v)
	l.chunks[n-1] = c
	return &c[len(c)-1]
}

// dropped reports whether the log has forgotten entries.
func (l *chunkLog[T]) dropped() bool { return l.forgot > 0 }

// size is how many entries were ever added, forgotten ones included.
func (l *chunkLog[T]) size() uint64 {
	if len(l.chunks) == 0 {
		return l.forgot
	}
	return l.forgot + uint64((len(l.chunks)-1)*logChunk+len(l.chunks[len(l.chunks)-1]))
}

// at returns the entry added i-th (from 0), or nil when it was forgotten or not yet added.
func (l *chunkLog[T]) at(i uint64) *T {
	if i < l.forgot || i >= l.size() {
		return nil
	}
	i -= l.forgot
	return &l.chunks[i/logChunk][i%logChunk]
}

// reset empties the log and keeps its limit.
func (l *chunkLog[T]) reset() { *l = chunkLog[T]{limit: l.limit} }

func (l *chunkLog[T]) each(fn func(e *T)) {
	for _, c := range l.chunks {
		for i := range c {
			fn(&c[i])
		}
	}
}

// WithHistoryLimit bounds the event log that timelines are read from, forgetting the
// oldest events first, for long-running fakes such as a server: it keeps the newest n
// events at least, and fewer than n+8,192 (the log grows and forgets in chunks of 4,096, and
// n is at least that). A message whose early events were forgotten shows a timeline that starts later.
// Snapshots and the fake's behaviour never depend on the log. The default keeps every event
// until Reset. n must be 0 or more; 0 keeps the smallest log, the newest 4,096 events at least.
func WithHistoryLimit(n int) Option {
	return func(f *Fake) {
		if n < 0 {
			f.refuse("WithHistoryLimit", strconv.Itoa(n), historyLimitRule)
			return
		}
		f.hist.limit = max(n, historyChunk)
	}
}

// record logs an event about m in q.
func (q *queue) record(kind EventKind, m *message, at int64) {
	q.hist.add(event{at: at, idNum: m.idNum, queue: q.id, kind: kind})
}

// recordBy logs an event a call made: by is who made it (callID.by).
func (q *queue) recordBy(kind EventKind, m *message, at int64, by uint32) {
	q.hist.add(event{at: at, idNum: m.idNum, queue: q.id, to: by, kind: kind})
}

// recordReceive logs a receive of m, which is now in flight until m.at (or visible, when
// the receive's visibility timeout was 0).
func (q *queue) recordReceive(m *message, now int64, by uint32) {
	q.hist.add(event{at: now, arg: uint64(max(m.at, now)), idNum: m.idNum, queue: q.id, to: by, receive: m.receiveCount, kind: EventReceived})
}

// Event is one entry of a message's timeline.
type Event struct {
	Kind EventKind
	At   time.Time
	// Queue is the name of the queue it happened in.
	Queue string
	// ReceiptHandle and ReceiveCount describe a receive.
	ReceiptHandle string
	ReceiveCount  int
	// VisibleAt is when a received message becomes visible again (received, visibility
	// changed).
	VisibleAt time.Time
	// ToQueue is the queue it went to (moved to DLQ, redriven).
	ToQueue string
	// NewMessageID is the MessageId a move task gave it in the destination (redriven).
	NewMessageID string
	// FromMessageID is the DLQ message a move task made it from (sent by a redrive).
	FromMessageID string
	// Operation is the operation of a call that failed or changed nothing (ReceiveCount
	// then says which receive's handle it named); ErrorCode is why it failed: the SQS error
	// code, or what happened ("lost response"). Fault reports an injected fault.
	Operation string
	ErrorCode string
	Fault     bool
	// By is the principal ARN of the caller whose call made the event (sent, received,
	// deleted, visibility changed, a call's failure) when it acted as another identity than
	// the fake's own root user (ActAs, a signed request); "" otherwise.
	By string
}

// byCall reports whether events of the kind are made by a call, whose caller they name.
func (k EventKind) byCall() bool {
	switch k {
	case EventSent, EventReceived, EventVisibilityChanged, EventDeleted, EventDeleteMissed, EventCallFailed, EventCallIgnored:
		return true
	}
	return false
}

// String describes the event in one line.
func (e Event) String() string {
	s := e.describe()
	if e.By != "" {
		s += " by " + e.By
	}
	return s
}

// describe is String without the caller.
func (e Event) describe() string {
	var b strings.Builder
	b.WriteString(e.At.UTC().Format(time.RFC3339Nano))
	b.WriteString("  ")
	switch e.Kind {
	case EventMovedToDLQ:
		fmt.Fprintf(&b, "moved from %s to %s", e.Queue, e.ToQueue)
		return b.String()
	case EventCallFailed, EventCallIgnored:
		fmt.Fprintf(&b, "%s with the handle of receive %d in %s ", e.Operation, e.ReceiveCount, e.Queue)
		if e.Kind == EventCallFailed {
			b.WriteString("failed: " + e.ErrorCode)
			if e.Fault {
				b.WriteString(" (injected fault)")
			}
			return b.String()
		}
		b.WriteString("changed nothing")
		if e.Operation == "DeleteMessage" || e.Operation == "DeleteMessageBatch" {
			b.WriteString(" (the message had already left the queue)")
		} else {
			b.WriteString(" (the message was not in flight)")
		}
		return b.String()
	}
	b.WriteString(e.Kind.String())
	switch e.Kind {
	case EventSent:
		fmt.Fprintf(&b, " to %s", e.Queue)
		if e.FromMessageID != "" {
			fmt.Fprintf(&b, " (redriven from message %s)", e.FromMessageID)
		}
	case EventReceived:
		fmt.Fprintf(&b, " from %s (receive %d, handle %s, visible again at %s)", e.Queue, e.ReceiveCount,
			e.ReceiptHandle, e.VisibleAt.UTC().Format(time.RFC3339Nano))
	case EventVisibilityChanged:
		fmt.Fprintf(&b, " in %s (visible again at %s)", e.Queue, e.VisibleAt.UTC().Format(time.RFC3339Nano))
	case EventRedriven:
		fmt.Fprintf(&b, " from %s to %s as message %s", e.Queue, e.ToQueue, e.NewMessageID)
	default:
		fmt.Fprintf(&b, " in %s", e.Queue)
	}
	return b.String()
}

// Timeline is the history of one message, oldest event first.
type Timeline struct {
	MessageID string
	Events    []Event
	// forgotten is set when the event log has dropped older events (WithHistoryLimit).
	forgotten bool
}

// String renders the timeline one event a line, as assertion failures print it.
func (t Timeline) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "timeline of message %s:", t.MessageID)
	if len(t.Events) == 0 {
		if t.forgotten {
			b.WriteString(" no events (forgotten: the fake keeps its WithHistoryLimit newest events)")
		} else {
			b.WriteString(" no events (no such message)")
		}
	}
	for _, e := range t.Events {
		b.WriteString("\n  ")
		b.WriteString(e.String())
	}
	return b.String()
}

// Last returns the latest event, and false when there is none.
func (t Timeline) Last() (Event, bool) {
	if len(t.Events) == 0 {
		return Event{}, false
	}
	return t.Events[len(t.Events)-1], true
}

// Has reports whether the timeline holds an event of kind k.
func (t Timeline) Has(k EventKind) bool {
	for _, e := range t.Events {
		if e.Kind == k {
			return true
		}
	}
	return false
}

// Timeline returns the history of the message with the given MessageId, in every queue it
// has been in. A redriven message's timeline ends with its redrive; the new message it
// became has its own.
func (f *Fake) Timeline(messageID string) Timeline {
	f.catchUpNow()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settleAll()
	return f.timeline(messageID)
}

func (f *Fake) timeline(messageID string) Timeline {
	t := Timeline{MessageID: messageID, forgotten: f.hist.dropped()}
	idNum, ok := f.idNumOf(messageID)
	if !ok {
		return t
	}
	f.hist.each(func(e *event) {
		if e.idNum != idNum {
			return
		}
		ev := Event{Kind: e.kind, At: time.Unix(0, e.at).UTC(), Queue: f.queueNames[e.queue]}
		if e.kind.byCall() {
			ev.By = f.principalOf(e.to)
		}
		switch e.kind {
		case EventReceived:
			ev.ReceiveCount = int(e.receive)
			ev.ReceiptHandle = encodeReceipt(f.receiptKey(), receipt{queue: e.queue, msg: e.idNum, receive: e.receive})
			ev.VisibleAt = time.Unix(0, e.deadline()).UTC()
		case EventVisibilityChanged:
			ev.VisibleAt = time.Unix(0, e.deadline()).UTC()
		case EventMovedToDLQ:
			ev.ToQueue = f.queueNames[e.to]
		case EventRedriven:
			ev.ToQueue = f.queueNames[e.to]
			ev.NewMessageID = uuidFor(f.seed, streamMessageID, e.other())
		case EventSent:
			if e.other() != 0 {
				ev.FromMessageID = uuidFor(f.seed, streamMessageID, e.other())
			}
		case EventCallFailed, EventCallIgnored:
			ev.Operation, ev.ReceiveCount = operationNames[e.op], int(e.receive)
			if e.kind == EventCallFailed {
				ev.Fault = e.other() != 0
				if int(e.code) < len(f.codes) {
					ev.ErrorCode = f.codes[e.code]
				}
			}
		}
		t.Events = append(t.Events, ev)
	})
	return t
}

// idNumOf finds the counter value a MessageId was made from. MessageIds are not invertible,
// so the fake indexes them on demand, extending the index to the newest message each time.
func (f *Fake) idNumOf(messageID string) (uint64, bool) {
	if n, ok := f.idIndex[messageID]; ok {
		return n, true
	}
	if f.idIndex == nil {
		f.idIndex = make(map[string]uint64)
	}
	for f.idIndexed < f.nextMsgID {
		f.idIndexed++
		f.idIndex[uuidFor(f.seed, streamMessageID, f.idIndexed)] = f.idIndexed
	}
	n, ok := f.idIndex[messageID]
	return n, ok
}

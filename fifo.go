package sqsfake

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// FIFO queues (SPEC.md §7). A FIFO queue keeps its messages in message groups, each a list
// in send order. A group can be received from while its head — its oldest undeleted
// message — is visible; a receive takes the leading run of visible messages from the head,
// so a group whose head is in flight is locked. Receivable groups wait in a heap ordered by
// the moment their head became available (send plus delay, visibility expiry, or a
// visibility change to 0), ties in the order the messages were handed out: the one rule that
// explains every group order AWS has been recorded answering with.

// dedupWindow is how long a deduplication id is remembered after the first send.
const dedupWindow = 5 * time.Minute

// attemptWindow is how long a ReceiveRequestAttemptId can be retried.
const attemptWindow = 5 * time.Minute

// group is one message group of a FIFO queue.
type group struct {
	id         string
	head, tail *message
	gidx       int // position in the ready heap; -1 when not there
	keyAt      int64
	keyOrder   uint64
}

// fifoState is what a FIFO queue has beyond a standard one.
type fifoState struct {
	groups   map[string]*group
	ready    groupHeap
	order    uint64 // stamps sends and handouts, for ties in group order
	draining *group // the group a receive is taking messages from; not offered meanwhile

	scope      string // DeduplicationScope as the queue was created with
	dedup      map[string]dedupRecord
	dedupLog   expiryLog
	attempts   map[string]*attempt
	attemptLog expiryLog
}

// dedupRecord remembers the message a deduplication id first sent.
type dedupRecord struct {
	idNum   uint64
	seqNo   uint64
	expires int64
}

type dedupEntry struct {
	key     string
	expires int64
}

// attempt remembers what a receive with a ReceiveRequestAttemptId returned.
type attempt struct {
	expires int64
	msgs    []attemptMsg
}

type attemptMsg struct {
	m        *message
	receive  uint32
	deadline int64
}

func newFifoState(scope string) *fifoState {
	return &fifoState{
		groups:   make(map[string]*group),
		scope:    scope,
		dedup:    make(map[string]dedupRecord),
		attempts: make(map[string]*attempt),
	}
}

// stamp returns the next tie-break value.
func (s *fifoState) stamp() uint64 {
	s.order++
	return s.order
}

// link appends m to the tail of its group.
func (q *queue) fifoLink(m *message) {
	s := q.fifo
	id := m.ext.groupID
	g := s.groups[id]
	if g == nil {
		g = &group{id: id, gidx: -1}
		s.groups[id] = g
	}
	m.ext.group = g
	m.ext.prev, m.ext.next = g.tail, nil
	if g.tail != nil {
		g.tail.ext.next = m
	} else {
		g.head = m
	}
	g.tail = m
}

// fifoUnlink takes m out of its group; a new head that is visible makes the group
// receivable again.
func (q *queue) fifoUnlink(m *message) {
	s, x := q.fifo, m.ext
	g := x.group
	if x.prev != nil {
		x.prev.ext.next = x.next
	} else {
		g.head = x.next
	}
	if x.next != nil {
		x.next.ext.prev = x.prev
	} else {
		g.tail = x.prev
	}
	x.prev, x.next, x.group = nil, nil, nil
	if g.gidx >= 0 {
		s.ready.remove(g)
	}
	if g.head == nil {
		delete(s.groups, g.id)
		return
	}
	q.fifoOffer(g)
}

// fifoOffer puts g in the ready heap when its head is visible.
func (q *queue) fifoOffer(g *group) {
	s := q.fifo
	if g == s.draining || g.gidx >= 0 || g.head == nil || g.head.pending {
		return
	}
	g.keyAt, g.keyOrder = g.head.at, g.head.ext.order
	s.ready.push(g)
}

// fifoWithdraw takes g out of the ready heap: its head is no longer visible.
func (q *queue) fifoWithdraw(g *group) {
	if g.gidx >= 0 {
		q.fifo.ready.remove(g)
	}
}

func (m *message) isHead() bool { return m.ext != nil && m.ext.group != nil && m.ext.group.head == m }

// receiveFIFO takes up to p.max messages from q's receivable groups: a group at a time, in
// the ready heap's order, the leading run of visible messages from its head. A message that
// reached maxReceiveCount moves to dlq on the way, which unlocks what follows it.
func (f *Fake) receiveFIFO(got []*message, q *queue, p *receiveParams, now int64, dlq *queue, policy *redrivePolicy) (_ []*message, moved bool) {
	s := q.fifo
	var again []*group
	for len(got) < p.max && s.ready.len() > 0 && q.inFlight < f.inFlightLimit {
		g := s.ready.pop()
		s.draining = g
		for m := g.head; m != nil && !m.pending && len(got) < p.max && q.inFlight < f.inFlightLimit; {
			next := m.ext.next
			if dlq != nil && int(m.receiveCount) >= policy.maxReceiveCount {
				f.moveToDLQ(q, m, dlq, now)
				moved = true
				m = next
				continue
			}
			f.handOut(q, m, p, now)
			q.recordReceive(m, now, p.call.by)
			m.ext.order = s.stamp()
			got = append(got, m)
			m = next
		}
		s.draining = nil
		if p.visibility == 0 {
			again = append(again, g)
		} else if g.head != nil {
			q.fifoOffer(g)
		}
	}
	for _, g := range again {
		if s.groups[g.id] == g {
			q.fifoOffer(g)
		}
	}
	return got, moved
}

// handOut makes m received now: its count and timestamps, and in flight for p.visibility.
func (f *Fake) handOut(q *queue, m *message, p *receiveParams, now int64) {
	// The receive count, not the timestamp, tells a first receive: on a clock at the Unix
	// epoch the first receive happens at time 0.
	if m.receiveCount == 0 {
		m.firstRecvAt = now
	}
	m.receiveCount++
	m.recvAt = now
	if p.visibility > 0 {
		q.enterPending(m, now+p.visibility)
	} else {
		m.at = now
	}
	q.stats.received++
}

// dedupKey is the key a deduplication id is remembered under in q's scope.
func (q *queue) dedupKey(groupID, dedupID string) string {
	if q.fifo.scope == dedupScopeMessageGroup {
		return groupID + "\x00" + dedupID
	}
	return dedupID
}

// contentDedupID is the deduplication id content-based deduplication derives: the hex
// SHA-256 of the body (SPEC.md §7; its exact form on AWS is unverified).
func contentDedupID(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

// sweep forgets deduplication ids and receive attempts whose window has passed.
func (s *fifoState) sweep(now int64) {
	forgetExpired(&s.dedupLog, s.dedup, now, func(r dedupRecord) int64 { return r.expires })
	forgetExpired(&s.attemptLog, s.attempts, now, func(a *attempt) int64 { return a.expires })
}

// expiryLog lists keys in the order they expire, which is the order they were recorded.
type expiryLog struct {
	entries []dedupEntry
	head    int // entries before head are spent
}

func (l *expiryLog) add(key string, expires int64) {
	l.entries = append(l.entries, dedupEntry{key, expires})
}

// forgetExpired drops from m the keys whose log entries have expired by now — unless the key
// was recorded again since — in time proportional to what expired.
func forgetExpired[V any](l *expiryLog, m map[string]V, now int64, expires func(V) int64) {
	for l.head < len(l.entries) && l.entries[l.head].expires <= now {
		e := l.entries[l.head]
		if v, ok := m[e.key]; ok && expires(v) == e.expires {
			delete(m, e.key)
		}
		l.entries[l.head] = dedupEntry{}
		l.head++
	}
	if l.head > 1024 && l.head > len(l.entries)/2 {
		l.entries = append([]dedupEntry(nil), l.entries[l.head:]...)
		l.head = 0
	}
}

// duplicateOf returns the record of the message key first sent, while its window lasts.
func (s *fifoState) duplicateOf(key string, now int64) (dedupRecord, bool) {
	r, ok := s.dedup[key]
	if !ok || r.expires <= now {
		return dedupRecord{}, false
	}
	return r, true
}

func (s *fifoState) remember(key string, r dedupRecord) {
	s.dedup[key] = r
	s.dedupLog.add(key, r.expires)
}

// sequenceNumber formats the FIFO SequenceNumber numbered n: a 20-digit decimal, larger than
// any uint64 as AWS's are ("188" and n in 17 digits), so strictly increasing with n.
func sequenceNumber(n uint64) string {
	var b [20]byte
	copy(b[:], "188")
	for i := len(b) - 1; i >= 3; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[:])
}

// reapplyDelay applies a changed DelaySeconds to the messages of a FIFO queue that were not
// received yet: on a FIFO queue the change is retroactive (SPEC.md §4), counted from each
// message's send.
func (q *queue) reapplyDelay(now int64) {
	delay := int64(q.cfg.delaySeconds) * int64(time.Second)
	for _, m := range q.msgs {
		if m.receiveCount > 0 {
			continue
		}
		avail := m.sentAt + delay
		switch {
		case avail > now && m.pending:
			m.at = avail
			q.pending.fix(m)
		case avail > now:
			if m.isHead() {
				q.fifoWithdraw(m.ext.group)
			}
			q.enterPending(m, avail)
		case m.pending:
			q.pending.remove(m)
			q.leavePending(m, now)
			m.at = avail
			if m.isHead() {
				q.fifoOffer(m.ext.group)
			}
		default:
			m.at = avail
			if m.isHead() {
				q.fifoWithdraw(m.ext.group)
				q.fifoOffer(m.ext.group)
			}
		}
	}
}

// attemptFor returns the retry of a receive with a ReceiveRequestAttemptId: the messages the
// first receive returned, with their receipt handles, their visibility restarted — or an
// error when one of them has been deleted or had its visibility changed since.
func (q *queue) retryAttempt(id string, p *receiveParams, now int64) ([]*message, *sqsError) {
	a := q.fifo.attempts[id]
	if a == nil || a.expires <= now {
		return nil, nil
	}
	for _, am := range a.msgs {
		m := am.m
		// A message whose visibility was changed since shows another instant in m.at: a
		// deadline that moved, or the moment ChangeMessageVisibility made it visible; one that
		// simply timed out became visible at the deadline the attempt recorded.
		if q.msgs[m.idNum] != m || m.receiveCount != am.receive || m.at != am.deadline {
			return nil, errInvalidValue(id, "ReceiveRequestAttemptId", "The receiveRequestAttemptId is not valid anymore since the receive call is not retryable.")
		}
	}
	msgs := make([]*message, len(a.msgs))
	for i := range a.msgs {
		am := &a.msgs[i]
		m := am.m
		if p.visibility > 0 {
			q.hide(m, now+p.visibility)
		} else if m.pending {
			q.makeVisible(m, now)
		}
		am.deadline = m.at
		msgs[i] = m
	}
	return msgs, nil
}

// recordAttempt remembers what a receive with a ReceiveRequestAttemptId returned.
func (q *queue) recordAttempt(id string, msgs []*message, now int64) {
	if q.fifo == nil || id == "" || len(msgs) == 0 {
		return
	}
	a := &attempt{expires: now + int64(attemptWindow), msgs: make([]attemptMsg, len(msgs))}
	for i, m := range msgs {
		a.msgs[i] = attemptMsg{m: m, receive: m.receiveCount, deadline: m.at}
	}
	q.fifo.attempts[id] = a
	q.fifo.attemptLog.add(id, a.expires)
}

package sqsfake

import (
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// A message is one stored message of a queue. Times are Unix nanoseconds on the fake's
// clock. The struct is kept small: the rarely used parts live in ext.
type message struct {
	seq          uint64 // order of arrival in this queue
	idNum        uint64 // the MessageId's counter value; kept across a DLQ move; names the message in receipt handles and in msgs
	body         string
	md5Body      [16]byte
	ext          *messageExt // nil for a message without attributes, group or other sender
	sentAt       int64       // SentTimestamp
	retainFrom   int64       // start of the retention period
	firstRecvAt  int64       // ApproximateFirstReceiveTimestamp; meaningful once receiveCount > 0
	recvAt       int64       // time of the latest receive, for the 12-hour visibility cap
	at           int64       // visible: when it became available; pending: when it becomes visible
	receiveCount uint32
	hidx, ridx   int32
	pending      bool // delayed or in flight (in the pending heap)
	dupCopy      bool // chaos left a copy visible that a delete misses until a receive takes it
}

// messageExt holds what only some messages have.
type messageExt struct {
	attrs       map[string]types.MessageAttributeValue // MessageAttributes; never empty
	md5Attrs    string                                 // MD5OfMessageAttributes over all attributes
	traceHeader *string
	md5SysAttrs string
	groupID     string // MessageGroupId; "" when none (an empty id is invalid)
	dlqSource   string // DeadLetterQueueSourceArn
	sender      uint32 // who sent it (actor.num), when not the fake's own root user

	// Dead-lettered messages only: when the move into the DLQ happened, the queue it came
	// from, and its receive count then (its receipt handle stays the source's until the DLQ
	// hands it out).
	movedAt      int64
	movedFrom    uint32
	movedReceive uint32

	// FIFO queues only.
	dedupID    string
	seqNo      uint64 // SequenceNumber, formatted by sequenceNumber
	group      *group
	prev, next *message // neighbours in the group, in send order
	order      uint64   // when it was sent or last handed out, for ties in group order

	// Fair (standard) queues only: the tenant its MessageGroupId names there.
	tenant *tenant
}

func (m *message) inFlight() bool { return m.pending && m.receiveCount > 0 }

// attributes returns m's MessageAttributes, nil when it has none.
func (m *message) attributes() map[string]types.MessageAttributeValue {
	if m.ext == nil {
		return nil
	}
	return m.ext.attrs
}

// queue is one queue: its settings, its messages and their indexes.
type queue struct {
	id       uint32
	name     string
	sp       *space // the account and region the queue belongs to
	url      string
	arn      string
	cfg      queueConfig
	created  int64
	modified int64
	tags     map[string]string

	msgs      map[uint64]*message // by idNum
	visible   msgHeap             // available now (standard queues), in send order
	pending   msgHeap             // delayed or in flight, by the time they become visible
	retention msgHeap             // every message, by the start of its retention period
	nextSeq   uint64
	inFlight  int
	delayed   int
	lastPurge int64 // neverPurged when never purged
	pollers   []*poller
	serving   bool       // serveDLQ is handing moved messages to this queue's polls
	fifo      *fifoState // nil for a standard queue
	fair      *fairState // nil until a standard queue's first message with a MessageGroupId (fair.go)
	hist      *history   // the fake's event log
	stats     queueStats
	lastBody  bodyDigest // the MD5 of the body sent last
}

// queueStats counts what CloudWatch reports for a queue.
type queueStats struct {
	sent, received, deleted, emptyReceives int64
}

func newQueue(id uint32, name, url, arn string, cfg queueConfig, now int64) *queue {
	q := &queue{
		id: id, name: name, url: url, arn: arn, cfg: cfg,
		created: now, modified: now,
		msgs:      make(map[uint64]*message),
		visible:   newMsgHeap(bySend),
		pending:   newMsgHeap(byDue),
		retention: newMsgHeap(byRetention),
	}
	if cfg.fifo {
		q.fifo = newFifoState(cfg.dedupScope)
	}
	return q
}

// settle applies every event that has come due by now, in time order: delays and visibility
// timeouts that ended, and messages whose retention period passed. It reports whether
// messages became available.
func (q *queue) settle(now int64) bool {
	woke := false
	period := int64(q.cfg.retentionPeriod) * int64(time.Second)
	// Apply the due events in the order of their times, whichever heap they come from, so that
	// one long clock move leaves the same history as many short ones: a message whose
	// retention ends while it is in flight expires, and is never visible again.
	for {
		var m *message
		var expires, visible bool
		var expiry int64
		if r := q.retention.top(); r != nil && r.retainFrom+period <= now {
			m, expires, expiry = r, true, r.retainFrom+period
			if x := r.ext; x != nil && x.dlqSource != "" && x.movedAt > expiry {
				// A retention period shortened after the message was dead-lettered here
				// ended before it arrived: it expires no earlier than its arrival.
				expiry = x.movedAt
			}
			// Nor before the queue's settings last changed: everything due before was
			// settled under the old ones, so this end comes from a shortened period.
			expiry = max(expiry, q.modified)
		}
		if p := q.pending.top(); p != nil && p.at <= now && (m == nil || p.at < expiry) {
			m, expires, visible = p, false, true
		}
		switch {
		case expires:
			q.record(EventExpired, m, expiry)
			q.remove(m, expiry)
			if q.fifo != nil {
				woke = true // an expired head may have unlocked its group
			}
		case visible:
			q.pending.pop()
			q.leavePending(m, m.at)
			if m.receiveCount > 0 {
				q.record(EventVisibleAgain, m, m.at)
			}
			if q.fifo == nil {
				q.visPush(m)
				woke = true
			} else if m.isHead() {
				q.fifoOffer(m.ext.group)
				woke = true
			}
		default:
			if q.fifo != nil {
				q.fifo.sweep(now)
			}
			return woke
		}
	}
}

// nextDue is the earliest time at which a pending message becomes visible, or 0.
func (q *queue) nextDue() int64 {
	if m := q.pending.top(); m != nil {
		return m.at
	}
	return 0
}

// leavePending takes m out of the pending counts at at, when it stops being delayed or in
// flight.
func (q *queue) leavePending(m *message, at int64) {
	m.pending = false
	if m.receiveCount > 0 {
		q.inFlight--
		q.flightEnded(m, at)
	} else {
		q.delayed--
	}
}

func (q *queue) enterPending(m *message, at int64) {
	m.at = at
	m.pending = true
	if m.receiveCount > 0 {
		q.inFlight++
		q.flightStarted(m)
	} else {
		q.delayed++
	}
	q.pending.push(m)
}

// add stores a new message that becomes visible at availableAt.
func (q *queue) add(m *message, now, availableAt int64) {
	q.nextSeq++
	m.seq = q.nextSeq
	q.admit(m, now)
	q.msgs[m.idNum] = m
	q.retention.push(m)
	if q.fifo != nil {
		m.ext.order = q.fifo.stamp()
		q.fifoLink(m)
	}
	if availableAt > now {
		q.enterPending(m, availableAt)
		q.kickPollers() // the message's availability may be the queue's next event
		return
	}
	m.at = now
	if q.fifo == nil {
		q.visPush(m)
	} else if m.isHead() {
		q.fifoOffer(m.ext.group)
	}
}

// remove deletes m from the queue at at, whatever its state.
func (q *queue) remove(m *message, at int64) {
	if m.pending {
		q.pending.remove(m)
		q.leavePending(m, at)
	} else if q.fifo == nil {
		q.visRemove(m)
	}
	q.forget(m)
	if q.fifo != nil {
		q.fifoUnlink(m)
	}
	q.retention.remove(m)
	delete(q.msgs, m.idNum)
}

// purge deletes every message.
func (q *queue) purge(now int64) {
	for _, m := range q.inSendOrder() {
		q.record(EventPurged, m, now)
	}
	clear(q.msgs)
	q.visible.clear()
	q.pending.clear()
	q.retention.clear()
	q.inFlight, q.delayed = 0, 0
	if q.fair != nil {
		q.fair.purge(now)
	}
	if q.fifo != nil {
		// Purging also forgets deduplication ids (SPEC.md §5.7). It keeps the receive
		// attempts: a retry of one whose messages the purge deleted is not retryable, as
		// after DeleteMessage (unverified for purges).
		old := q.fifo
		q.fifo = newFifoState(old.scope)
		q.fifo.attempts, q.fifo.attemptLog = old.attempts, old.attemptLog
	}
}

// makeVisible ends m's invisibility at now (ChangeMessageVisibility to 0).
func (q *queue) makeVisible(m *message, now int64) {
	q.pending.remove(m)
	q.leavePending(m, now)
	m.at = now
	if q.fifo == nil {
		q.visPush(m)
	} else {
		m.ext.order = q.fifo.stamp()
		if m.isHead() {
			q.fifoOffer(m.ext.group)
		}
	}
}

// hide makes m in flight until deadline (a receive, or a visibility change).
func (q *queue) hide(m *message, deadline int64) {
	if m.pending {
		m.at = deadline
		q.pending.fix(m)
		return
	}
	if q.fifo == nil {
		q.visRemove(m)
	} else if m.isHead() {
		q.fifoWithdraw(m.ext.group)
	}
	q.enterPending(m, deadline)
}

// receivable reports whether a receive would find a message now (as of the last settle).
func (q *queue) receivable() bool {
	if q.fifo != nil {
		return q.fifo.ready.len() > 0
	}
	return q.visLen() > 0
}

// oldestAvailable returns the message a move task takes next, or nil: the first sent of the
// available messages, or on a FIFO queue the head of the first receivable group. Every
// available message became so no later than the instant the queue was settled to, so which
// one is first does not change when a task can move it.
func (q *queue) oldestAvailable() *message {
	if q.fifo != nil {
		if g := q.fifo.ready.top(); g != nil {
			return g.head
		}
		return nil
	}
	return q.visTop()
}

// counts returns ApproximateNumberOfMessages, …NotVisible and …Delayed as of the last settle.
// Every message is visible, in flight or delayed; on a FIFO queue, visible includes messages
// waiting behind a group's lock, as AWS counts them.
func (q *queue) counts() (visible, inFlight, delayed int) {
	return len(q.msgs) - q.inFlight - q.delayed, q.inFlight, q.delayed
}

// attribute returns a queue attribute's value as GetQueueAttributes reports it.
func (q *queue) attribute(name string) (string, bool) {
	switch name {
	case attrApproximateNumberOfMessages:
		visible, _, _ := q.counts()
		return strconv.Itoa(visible), true
	case attrApproximateNumberNotVisible:
		return strconv.Itoa(q.inFlight), true
	case attrApproximateNumberDelayed:
		return strconv.Itoa(q.delayed), true
	case attrCreatedTimestamp:
		return strconv.FormatInt(q.created/int64(time.Second), 10), true
	case attrLastModifiedTimestamp:
		return strconv.FormatInt(q.modified/int64(time.Second), 10), true
	case attrQueueArn:
		return q.arn, true
	}
	return q.cfg.settable(name)
}

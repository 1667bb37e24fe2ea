package sqsfake

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Inspection: copied snapshots of the fake's state for tests to assert on. Nothing returned
// here shares memory with the fake, and reading it changes nothing — except that, like any
// call, it first brings queues up to the clock's current time.
//
// One rule for every inspection method that takes a queue (by name, URL or ARN): when no
// queue has that name, it returns an error that wraps ErrNoQueue and names the queues the
// fake has, so that a typo is never read as an empty queue.

// The errors the inspections wrap; test with errors.Is.
var (
	// ErrNoQueue is wrapped by the error of an inspection method given a queue that does not
	// exist: Queue, Message, InFlight, DeadLettersFrom, DeadLettersIn, Tenants, NoisyPeriods
	// (and package companion's Page and NextVisible). The error's text names the queue and
	// lists the queues the fake has, such as "sqsfake: queue orderz does not exist; the fake
	// has orders, orders-dlq".
	ErrNoQueue = errors.New("sqsfake: no such queue")
	// ErrNoMessage is wrapped by the error of Message when the queue exists but does not hold
	// the message. The error's text says where the message is, or how it left, such as
	// "sqsfake: queue orders does not hold message …: it is in queue orders-dlq, visible,
	// received 3 times".
	ErrNoMessage = errors.New("sqsfake: the queue does not hold the message")
)

// inspectError is the error of an inspection method: its text, and the sentinel it wraps.
type inspectError struct {
	text string
	kind error
}

func (e *inspectError) Error() string { return "sqsfake: " + e.text }
func (e *inspectError) Unwrap() error { return e.kind }

// maxNamed bounds how many queue names an error lists.
const maxNamed = 20

// noQueueText says that ref names no queue, and which queues there are. f.mu is held.
func (f *Fake) noQueueText(ref string) string {
	qs := f.sortedQueues()
	if len(qs) == 0 {
		return fmt.Sprintf("queue %s does not exist; the fake has no queues", ref)
	}
	names := make([]string, 0, min(len(qs), maxNamed+1))
	for i, q := range qs {
		if i == maxNamed {
			names = append(names, fmt.Sprintf("… and %d more", len(qs)-maxNamed))
			break
		}
		names = append(names, q.name)
	}
	text := fmt.Sprintf("queue %s does not exist; the fake has %s", ref, strings.Join(names, ", "))
	// A queue of that name in another account or region (ActAs) is named by its ARN.
	var arns []string
	for _, q := range qs {
		if q.name == lastSegment(ref) && len(arns) < maxNamed {
			arns = append(arns, q.arn)
		}
	}
	if len(arns) > 0 {
		text += fmt.Sprintf(" (%s of another account or region: name it by its ARN, %s)",
			lastSegment(ref), strings.Join(arns, " or "))
	}
	return text
}

// lookupInspected finds the queue an inspection method names, or returns the error that says
// it does not exist. f.mu is held.
func (f *Fake) lookupInspected(ref string) (*queue, error) {
	if q := f.lookupQueue(ref); q != nil {
		return q, nil
	}
	return nil, &inspectError{text: f.noQueueText(ref), kind: ErrNoQueue}
}

// MessageState is where a message stands in its queue.
type MessageState int

// The states of a stored message.
const (
	// StateDelayed: sent with a delay that has not ended; no receive can return it.
	StateDelayed MessageState = iota + 1
	// StateVisible: a receive can return it (on a FIFO queue, once its group's lock allows).
	StateVisible
	// StateInFlight: received, and hidden until its visibility timeout ends.
	StateInFlight
)

// String returns the state in words.
func (s MessageState) String() string {
	switch s {
	case StateDelayed:
		return "delayed"
	case StateVisible:
		return "visible"
	case StateInFlight:
		return "in flight"
	}
	return "unknown"
}

// MarshalText renders the state in words, as in JSON snapshots.
func (s MessageState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// MessageInfo is a snapshot of one stored message.
type MessageInfo struct {
	MessageID  string                                 `json:"messageId"`
	Body       string                                 `json:"body"`
	Attributes map[string]types.MessageAttributeValue `json:"attributes,omitempty"`
	State      MessageState                           `json:"state"`
	// ReceiveCount is ApproximateReceiveCount: how many times it has been received.
	ReceiveCount int `json:"receiveCount"`
	// ReceiptHandle is the handle of its latest receive; "" before the first.
	ReceiptHandle string `json:"receiptHandle,omitempty"`
	// VisibleAt is when a delayed or in-flight message becomes visible; zero when visible.
	VisibleAt       time.Time `json:"visibleAt"`
	SentAt          time.Time `json:"sentAt"`
	FirstReceivedAt time.Time `json:"firstReceivedAt"` // zero before the first receive
	// GroupID is its MessageGroupId (FIFO queues, and fair standard queues).
	GroupID string `json:"groupId,omitempty"`
	// DeduplicationID and SequenceNumber are set on FIFO queues.
	DeduplicationID string `json:"deduplicationId,omitempty"`
	SequenceNumber  string `json:"sequenceNumber,omitempty"`
	// DeadLetterSourceArn is the ARN of the queue it was dead-lettered from, if it was.
	DeadLetterSourceArn string `json:"deadLetterSourceArn,omitempty"`
	// TraceHeader is its AWSTraceHeader system attribute, if it was sent with one.
	TraceHeader string `json:"traceHeader,omitempty"`
}

// QueueStats counts a queue's traffic in CloudWatch's terms.
type QueueStats struct {
	NumberOfMessagesSent     int64 `json:"numberOfMessagesSent"`
	NumberOfMessagesReceived int64 `json:"numberOfMessagesReceived"`
	// NumberOfMessagesDeleted counts every successful delete, duplicate deletions of one
	// message included, as CloudWatch does.
	NumberOfMessagesDeleted int64 `json:"numberOfMessagesDeleted"`
	NumberOfEmptyReceives   int64 `json:"numberOfEmptyReceives"`
	// ApproximateAgeOfOldestMessage is how long the oldest stored message has waited, on
	// the fake's clock (in JSON, nanoseconds). As in CloudWatch, a standard queue leaves
	// out its poison pills, messages received three times or more and not deleted; it is 0
	// when no message counts.
	ApproximateAgeOfOldestMessage time.Duration `json:"approximateAgeOfOldestMessage"`
}

// QueueInfo is a snapshot of one queue.
type QueueInfo struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	Arn  string `json:"arn"`
	// AccountID and Region are the account and region the queue belongs to: the account of
	// whoever created it, in the region it acted in.
	AccountID string `json:"accountId"`
	Region    string `json:"region"`
	FIFO      bool   `json:"fifo"`
	// Attributes are what GetQueueAttributes with "All" returns.
	Attributes map[string]string `json:"attributes"`
	// Tags are what ListQueueTags returns.
	Tags map[string]string `json:"tags,omitempty"`
	// Counts, exact: ApproximateNumberOfMessages, …NotVisible and …Delayed.
	Visible  int `json:"visible"`
	InFlight int `json:"inFlight"`
	Delayed  int `json:"delayed"`
	// Messages are the stored messages in the order they arrived.
	Messages []MessageInfo `json:"messages"`
	Stats    QueueStats    `json:"stats"`
}

// settleAll brings every queue up to the clock's current time.
func (f *Fake) settleAll() int64 {
	now := f.now()
	f.progressTasks(now)
	for _, q := range f.sortedQueues() {
		f.settleAt(q, now)
	}
	return now
}

// sortedQueues returns the queues in name order; queues of one name in several spaces by
// account, then region.
func (f *Fake) sortedQueues() []*queue {
	qs := make([]*queue, 0, len(f.queues))
	for _, q := range f.queues {
		qs = append(qs, q)
	}
	sort.Slice(qs, func(i, j int) bool {
		a, b := qs[i], qs[j]
		if a.name != b.name {
			return a.name < b.name
		}
		if a.sp.account != b.sp.account {
			return a.sp.account < b.sp.account
		}
		return a.sp.region < b.sp.region
	})
	return qs
}

// inSendOrder returns q's messages in the order they arrived.
func (q *queue) inSendOrder() []*message {
	ms := make([]*message, 0, len(q.msgs))
	for _, m := range q.msgs {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].seq < ms[j].seq })
	return ms
}

// lookupQueue finds a queue by name, URL or ARN. A bare name, or a URL that names no region,
// names a queue of the fake's own region; a URL on an AWS host names its host's region, so
// that every URL the fake handed out finds its queue.
func (f *Fake) lookupQueue(ref string) *queue {
	if q := f.lookupARN(ref); q != nil {
		return q
	}
	r, ok := parseQueueURL(ref)
	if !ok {
		return nil
	}
	if r.region == "" {
		r.region = r.hostRegion
	}
	return f.queueAt(r, f.home)
}

// messageInfo snapshots m, a message of q.
func (f *Fake) messageInfo(q *queue, m *message) MessageInfo {
	info := MessageInfo{
		MessageID:    uuidFor(f.seed, streamMessageID, m.idNum),
		Body:         m.body,
		Attributes:   copyMessageAttributes(m.attributes()),
		ReceiveCount: int(m.receiveCount),
		SentAt:       time.Unix(0, m.sentAt).UTC(),
	}
	switch {
	case m.inFlight():
		info.State = StateInFlight
	case m.pending:
		info.State = StateDelayed
	default:
		info.State = StateVisible
	}
	if m.pending {
		info.VisibleAt = time.Unix(0, m.at).UTC()
	}
	if m.receiveCount > 0 {
		r := receipt{queue: q.id, msg: m.idNum, receive: m.receiveCount}
		if x := m.ext; x != nil && x.dlqSource != "" && x.movedReceive == m.receiveCount {
			// Not received from the DLQ yet: its source's handle is the latest.
			r = receipt{queue: x.movedFrom, msg: m.idNum, receive: x.movedReceive}
		}
		info.ReceiptHandle = encodeReceipt(f.receiptKey(), r)
		info.FirstReceivedAt = time.Unix(0, m.firstRecvAt).UTC()
	}
	if x := m.ext; x != nil {
		info.GroupID = x.groupID
		info.DeduplicationID = x.dedupID
		if x.seqNo != 0 {
			info.SequenceNumber = sequenceNumber(x.seqNo)
		}
		info.DeadLetterSourceArn = x.dlqSource
		if x.traceHeader != nil {
			info.TraceHeader = *x.traceHeader
		}
	}
	return info
}

// poisonReceives is how many receives make a standard queue's message a poison pill that
// ApproximateAgeOfOldestMessage leaves out (SQS developer guide, "Available CloudWatch
// metrics").
const poisonReceives = 3

// queueInfo snapshots q with all its messages.
func (f *Fake) queueInfo(q *queue, now int64) QueueInfo {
	info := f.queueHead(q, now)
	for _, m := range q.inSendOrder() {
		info.Messages = append(info.Messages, f.messageInfo(q, m))
	}
	return info
}

// queueHead snapshots q without its messages.
func (f *Fake) queueHead(q *queue, now int64) QueueInfo {
	info := QueueInfo{Name: q.name, URL: q.url, Arn: q.arn, AccountID: q.sp.account, Region: q.sp.region, FIFO: q.fifo != nil, Attributes: map[string]string{}}
	for _, n := range allQueueAttributeNames {
		if v, ok := q.attribute(n); ok {
			info.Attributes[n] = v
		}
	}
	if len(q.tags) > 0 {
		info.Tags = make(map[string]string, len(q.tags))
		for k, v := range q.tags {
			info.Tags[k] = v
		}
	}
	info.Visible, info.InFlight, info.Delayed = q.counts()
	oldest := now
	for _, m := range q.msgs {
		// A message's age counts from when it entered this queue: its send, or its move
		// into a DLQ. A standard DLQ keeps the original enqueue time for retention, but AWS
		// counts ApproximateAgeOfOldestMessage from the move (SQS developer guide, "Setting
		// up dead-letter queue retention"); a FIFO DLQ restarts both at the move.
		entered := m.retainFrom
		if x := m.ext; x != nil && x.dlqSource != "" && x.movedAt > entered {
			entered = x.movedAt
		}
		receives := m.receiveCount
		if x := m.ext; x != nil && x.dlqSource != "" {
			receives -= x.movedReceive // only the receives in this queue count
		}
		if q.fifo == nil && receives >= poisonReceives {
			continue // SQS moves it to the back of the queue, out of the metric
		}
		oldest = min(oldest, entered)
	}
	info.Stats = QueueStats{
		NumberOfMessagesSent:          q.stats.sent,
		NumberOfMessagesReceived:      q.stats.received,
		NumberOfMessagesDeleted:       q.stats.deleted,
		NumberOfEmptyReceives:         q.stats.emptyReceives,
		ApproximateAgeOfOldestMessage: time.Duration(now - oldest),
	}
	return info
}

// Queue returns a snapshot of the queue with the given name, URL or ARN, with all its
// messages in arrival order; when there is no such queue, an error that wraps ErrNoQueue.
func (f *Fake) Queue(ref string) (QueueInfo, error) {
	f.catchUpNow()
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.settleAll()
	q, err := f.lookupInspected(ref)
	if err != nil {
		return QueueInfo{}, err
	}
	return f.queueInfo(q, now), nil
}

// queuePage is a snapshot of a queue with one page of its messages (companion.QueuePage,
// which the console's api/messages also answers from).
type queuePage struct {
	QueueInfo
	Truncated bool   // messages follow the page: those that arrived after Next
	Next      uint64 // the arrival number of the page's last message when Truncated; 0 otherwise
}

// pageOf returns a snapshot of the queue named by ref (name, URL or ARN), as Queue does but
// bringing only that queue up to the clock's time, with at most limit of its messages: those
// that arrived after the message whose arrival number is after (0 for the first page), in
// arrival order (companion.QueuePage, which documents it). It panics on a negative limit.
func (f *Fake) pageOf(ref string, after uint64, limit int) (queuePage, error) {
	if limit < 0 {
		panic("sqsfake: QueuePage with a negative limit")
	}
	f.catchUpNow()
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.lookupInspected(ref)
	if err != nil {
		return queuePage{}, err
	}
	// Only this queue is brought up to the clock's time, as an SQS call on it would be: a
	// caller that pages through every queue does not settle every queue for each.
	now := f.settle(q)
	page := queuePage{QueueInfo: f.queueHead(q, now)}
	ms, more := q.arrivedAfter(after, limit)
	page.Messages = f.messageInfos(q, ms)
	if more {
		page.Truncated, page.Next = true, after
		if len(ms) > 0 {
			page.Next = ms[len(ms)-1].seq
		}
	}
	return page, nil
}

// arrivedAfter returns the first limit messages of q that arrived after the arrival number
// after, in arrival order, and whether more follow. It holds at most limit messages at a
// time: a max-heap on the arrival number keeps the earliest ones seen so far.
func (q *queue) arrivedAfter(after uint64, limit int) ([]*message, bool) {
	page := make(arrivalHeap, 0, min(limit, len(q.msgs)))
	more := false
	for _, m := range q.msgs {
		switch {
		case m.seq <= after:
		case len(page) < limit:
			heap.Push(&page, m)
		default:
			more = true
			if limit > 0 && m.seq < page[0].seq {
				page[0] = m
				heap.Fix(&page, 0)
			}
		}
	}
	slices.SortFunc(page, func(a, b *message) int { return cmp.Compare(a.seq, b.seq) })
	return page, more
}

// arrivalHeap is a max-heap of messages on their arrival number.
type arrivalHeap []*message

func (h arrivalHeap) Len() int           { return len(h) }
func (h arrivalHeap) Less(i, j int) bool { return h[i].seq > h[j].seq }
func (h arrivalHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *arrivalHeap) Push(x any)        { *h = append(*h, x.(*message)) }
func (h *arrivalHeap) Pop() any {
	old := *h
	m := old[len(old)-1]
	*h = old[:len(old)-1]
	return m
}

// queueNames returns the names of every queue, in name order; queues of one name in several
// accounts or regions appear once each, by account, then region (companion.QueueNames).
func (f *Fake) allQueueNames() []string { return f.eachQueue(func(q *queue) string { return q.name }) }

// queueARNs returns the ARN of every queue, in the order of allQueueNames (companion.QueueARNs).
func (f *Fake) allQueueARNs() []string { return f.eachQueue(func(q *queue) string { return q.arn }) }

// eachQueue returns what of every queue, in the order of sortedQueues.
func (f *Fake) eachQueue(what func(*queue) string) []string {
	f.catchUpNow()
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.queues))
	for _, q := range f.sortedQueues() {
		out = append(out, what(q))
	}
	return out
}

// Queues returns a snapshot of every queue, in name order.
func (f *Fake) Queues() []QueueInfo {
	f.catchUpNow()
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.settleAll()
	var out []QueueInfo
	for _, q := range f.sortedQueues() {
		out = append(out, f.queueInfo(q, now))
	}
	return out
}

// Message returns a snapshot of the message with the given MessageId in the queue named by
// ref (name, URL or ARN). When there is no such queue the error wraps ErrNoQueue; when the
// queue does not hold the message, it wraps ErrNoMessage and says where the message is, or
// how it left (deleted, dead-lettered, never sent).
func (f *Fake) Message(ref, messageID string) (MessageInfo, error) {
	f.catchUpNow()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settleAll()
	q, err := f.lookupInspected(ref)
	if err != nil {
		return MessageInfo{}, err
	}
	if n, ok := f.idNumOf(messageID); ok && q.msgs[n] != nil {
		return f.messageInfo(q, q.msgs[n]), nil
	}
	l := f.locateLocked(ref, messageID)
	var b strings.Builder
	fmt.Fprintf(&b, "queue %s does not hold message %s: ", q.name, messageID)
	switch {
	case !l.known:
		b.WriteString("this fake never stored a message with that MessageId")
	case l.holder != "":
		fmt.Fprintf(&b, "it is in queue %s, %s", l.holder, describeMessage(l.info))
	default:
		fmt.Fprintf(&b, "no queue holds it (%s)", l.departure())
	}
	return MessageInfo{}, &inspectError{text: b.String(), kind: ErrNoMessage}
}

// FindMessage returns a snapshot of the message with the given MessageId wherever it is
// stored, with the name of its queue; false when no queue holds it.
func (f *Fake) FindMessage(messageID string) (MessageInfo, string, bool) {
	f.catchUpNow()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settleAll()
	n, ok := f.idNumOf(messageID)
	if !ok {
		return MessageInfo{}, "", false
	}
	for _, q := range f.sortedQueues() {
		if m := q.msgs[n]; m != nil {
			return f.messageInfo(q, m), q.name, true
		}
	}
	return MessageInfo{}, "", false
}

// InFlight returns the in-flight messages of the queue named by ref — received, and hidden
// until their visibility timeout ends — in arrival order; when there is no such queue, an
// error that wraps ErrNoQueue.
func (f *Fake) InFlight(ref string) ([]MessageInfo, error) {
	f.catchUpNow()
	return f.messagesWhere(ref, func(m *message) bool { return m.inFlight() })
}

// DeadLettersFrom returns the messages that were dead-lettered from the source queue named
// by source — the queue whose RedrivePolicy moved them — and still sit in a dead-letter
// queue, whichever it is, in arrival order there. A dead-letter queue given as source has
// dead-lettered nothing (unless it has a RedrivePolicy of its own): DeadLettersIn lists what
// sits in it. When there is no such queue it returns an error that wraps ErrNoQueue.
func (f *Fake) DeadLettersFrom(source string) ([]MessageInfo, error) {
	f.catchUpNow()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settleAll()
	src, err := f.lookupInspected(source)
	if err != nil {
		return nil, err
	}
	var out []MessageInfo
	for _, q := range f.sortedQueues() {
		var ms []*message
		for _, m := range q.inSendOrder() {
			if m.ext != nil && m.ext.dlqSource == src.arn {
				ms = append(ms, m)
			}
		}
		out = append(out, f.messageInfos(q, ms)...)
	}
	return out, nil
}

// DeadLettersIn returns the dead-lettered messages that sit in the dead-letter queue named by
// dlq, in arrival order there, each with the DeadLetterSourceArn of the queue it came from.
// Messages sent to dlq directly are not dead letters and are left out (Queue lists every
// message). When there is no such queue it returns an error that wraps ErrNoQueue.
func (f *Fake) DeadLettersIn(dlq string) ([]MessageInfo, error) {
	f.catchUpNow()
	return f.messagesWhere(dlq, func(m *message) bool { return m.ext != nil && m.ext.dlqSource != "" })
}

// messageInfos snapshots ms, messages of q, reading the event log at most once.
func (f *Fake) messageInfos(q *queue, ms []*message) []MessageInfo {
	if len(ms) == 0 {
		return nil
	}
	out := make([]MessageInfo, len(ms))
	for i, m := range ms {
		out[i] = f.messageInfo(q, m)
	}
	return out
}

// messagesWhere returns the messages of the queue named by ref that keep keeps.
func (f *Fake) messagesWhere(ref string, keep func(*message) bool) ([]MessageInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settleAll()
	q, err := f.lookupInspected(ref)
	if err != nil {
		return nil, err
	}
	var ms []*message
	for _, m := range q.inSendOrder() {
		if keep(m) {
			ms = append(ms, m)
		}
	}
	return f.messageInfos(q, ms), nil
}

// Reset empties the fake between subtests: every queue, message, move task and timeline
// goes, parked long polls return empty, injected faults are removed, the call record and
// LastError are cleared (CallCount starts again from 0), and the identifier counters and the
// chaos generator start again, so what follows gives the same MessageIds, request ids and
// chaos as a new fake would. Receipt handles are the only identifiers that differ: each
// Reset starts a new epoch, whose handles are the same on every run but never one issued
// before, so a handle kept from before the reset fails with ReceiptHandleIsInvalid instead
// of naming the message that took its place. The clock is left where it is. Then the
// companions' hooks (companion.OnReset) run.
func (f *Fake) Reset() {
	f.reset()
	f.runResetHooks()
}

func (f *Fake) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.pollers) > 0 {
		pl := f.pollers[0]
		f.finishPoll(pl, emptyReceive())
	}
	clear(f.queues)
	f.lastLookup = lookupCache{}
	clear(f.queuesByID)
	clear(f.deletedAt)
	clear(f.queueNames)
	f.hist.reset()
	f.codes, f.codeIndex = nil, nil
	f.calls.reset()
	f.callGen++
	f.idIndex, f.idIndexed = nil, 0
	f.tasks, f.runningTasks = nil, nil
	f.nextQueueID, f.nextMsgID, f.nextSeqNum, f.nextTaskID = 0, 0, 0, 0
	f.serviceAttrs = sharedAttributes{}
	f.epoch++
	f.handles = newHandleKey(f.creds.handleSecret(), f.seed, f.epoch)
	f.requests.Store(0)
	f.releaseHeld()
	f.resetFaults()
	f.lastErr.Store(nil)
	if f.dist != nil {
		f.dist.reset() // chaos starts again, as in a new fake
	}
}

package sqsfake

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Chaos: the disturbances SQS permits and the fake otherwise never shows, decided from a seed
// at every place one can happen. WithChaos turns them on for a test; Explore runs a scenario
// under many seeds of them (explore.go). SPEC.md §15 gives the AWS source that permits each.

// Chaos configures the disturbances SQS permits, which the fake otherwise never shows. Each
// rate is the probability, between 0 and 1, that a disturbance happens at a place where it
// can: on a standard queue, a receive may return a message again while it is in flight (a
// duplicate delivery), return a later message before an earlier one, or a successful delete
// may leave the message to come back; a short poll may return fewer of the messages it
// could, or none; and a message call — SendMessage, ReceiveMessage, DeleteMessage,
// ChangeMessageVisibility and their batches — may lose its answer, be throttled for a
// stretch of the clock, fail with a server error, fail some batch entries, or answer late.
// Calls that manage queues (CreateQueue, attributes, purge, tags, …) are left alone. FIFO
// queues get only what SQS permits there: no duplicates, reordering or redelivery.
//
// Whether a disturbance happens at a place depends only on the seed and the place (a
// message's delivery, a call's number among the calls of its operation), so the same seed
// gives the same run for the same sequence of calls; consumers that race each other in
// goroutines make their own sequence, run by run.
type Chaos struct {
	Seed uint64
	// DuplicateRate is the probability that a message a receive returns from a standard
	// queue leaves a copy visible — on a server that missed the receive — so that a later
	// receive returns it again, while the first still holds it or after it deleted it (the
	// delete misses that copy too).
	DuplicateRate float64
	// ReorderRate is the probability that a receive from a standard queue takes the next
	// visible message in send order before the first.
	ReorderRate float64
	// RedeliverRate is the probability that a successful DeleteMessage (or batch entry) of
	// a standard queue's message leaves it in the queue, to be received again when its
	// visibility timeout ends — SQS's rare redelivery of a deleted message (DeleteMessage
	// API reference).
	RedeliverRate float64
	// ShortPollRate is the probability that a short poll — a receive that waits 0 seconds —
	// that could return messages returns fewer than it could, or none: a short poll asks
	// only a sample of SQS's servers (ReceiveMessage API reference). Long polls ask every
	// server and are never sampled.
	ShortPollRate float64
	// LostResponseRate is the probability that a message call's answer is lost after the
	// operation took effect: the caller gets ErrLostResponse, a timeout, as when the
	// network drops SQS's answer (through Handler the connection is dropped).
	LostResponseRate float64
	// ThrottleRate is the probability that a message call starts a stretch of throttling on
	// its queue: it, and every message call to that queue until the clock has moved on
	// 100 ms to 1 s, fails with RequestThrottled (HTTP 403, which the SDK retries) without
	// effect — a retry at once is throttled again, a back-off gets through.
	ThrottleRate float64
	// ServerErrorRate is the probability that a message call fails without effect with a
	// server error the SDK retries: InternalError (HTTP 500) or ServiceUnavailable (503).
	ServerErrorRate float64
	// FailedEntryRate is the probability that an entry of a SendMessageBatch,
	// DeleteMessageBatch or ChangeMessageVisibilityBatch fails without effect, listed in the
	// answer's Failed with InternalError (SenderFault false), while the call and its other
	// entries succeed.
	FailedEntryRate float64
	// LateAnswerRate is the probability that a message call's answer comes late: the
	// operation takes effect at once, and its answer waits until the clock has moved on
	// 0.5 s to 5 s. WaitForCalls counts such a call as waiting on the clock.
	LateAnswerRate float64
}

// WithChaos turns on the disturbances SQS permits, at c's rates: each a probability between
// 0 and 1.
func WithChaos(c Chaos) Option {
	return func(f *Fake) {
		if value := checkChaos(c); value != "" {
			f.refuse("WithChaos", value, chaosRule)
			return
		}
		f.chaos = &c
		f.dist = newDisturber(c.Seed, c.rates())
	}
}

// rates returns c's rates by class.
func (c *Chaos) rates() [numDistClasses]float64 {
	return [numDistClasses]float64{
		distDuplicate:   c.DuplicateRate,
		distReorder:     c.ReorderRate,
		distRedeliver:   c.RedeliverRate,
		distShortPoll:   c.ShortPollRate,
		distLost:        c.LostResponseRate,
		distThrottle:    c.ThrottleRate,
		distServerError: c.ServerErrorRate,
		distFailedEntry: c.FailedEntryRate,
		distLate:        c.LateAnswerRate,
	}
}

// rateNames are the names of Chaos's rates, by class.
var rateNames = [numDistClasses]string{
	"DuplicateRate", "ReorderRate", "RedeliverRate", "ShortPollRate", "LostResponseRate",
	"ThrottleRate", "ServerErrorRate", "FailedEntryRate", "LateAnswerRate",
}

// checkChaos reports what is wrong with c for WithChaos, or "".
func checkChaos(c Chaos) (value string) {
	var bad []string
	for class, rate := range c.rates() {
		if !(rate >= 0 && rate <= 1) { // NaN too
			bad = append(bad, rateNames[class]+": "+strconv.FormatFloat(rate, 'g', -1, 64))
		}
	}
	if bad == nil {
		return ""
	}
	return "Chaos{" + strings.Join(bad, ", ") + "}"
}

// distClass is a class of disturbance.
type distClass uint8

const (
	distDuplicate distClass = iota
	distReorder
	distRedeliver
	distShortPoll
	distLost
	distThrottle
	distServerError
	distFailedEntry
	distLate
	numDistClasses
)

// distNames name the classes in replay lists.
var distNames = [numDistClasses]string{"dup", "reorder", "redeliver", "sample", "lost", "throttle", "5xx", "entry", "late"}

// distKey names one place a disturbance of a class can happen: a message's delivery (a is
// the message, b its receive count), a reorder (the message taken first and its receive
// count, the one passed over and its), or a call or batch entry: op, what it is about (a and
// b, its subject) and how many times a call of op was about that (c, from 1). A call's subject
// is the message its receipt handle names (and that receive), the message a receive would
// take first, or a hash of the body a send sends: a place that does not move when a replay
// leaves out a disturbance that came before it, as a count of calls would.
type distKey struct {
	class      distClass
	op         uint8
	a, b, c, d uint32
}

// subject is what a call or batch entry of op is about (distKey), with entry set for an
// entry's.
type subject struct {
	op    uint8
	entry bool
	a, b  uint32
}

// disturber decides where disturbances happen, for WithChaos and for an Explore run. A
// place's disturbance happens when a hash of the seed and its key falls under its class's
// rate — or, when Explore replays a run, when its key is on the replay list. No decision
// depends on another, so a replay of some of a run's disturbances makes exactly those happen.
// Its state is guarded by the fake's lock.
type disturber struct {
	seed   uint64
	thresh [numDistClasses]uint64 // rate × 2⁶⁴
	always [numDistClasses]bool   // rate 1
	on     [numDistClasses]bool   // the class can happen at all
	replay map[distKey]bool       // Explore's replay list; nil: decide by rate
	record func(distKey, func() string)

	calls     [len(operationNames)]uint32 // the message calls so far, by operation
	attempts  map[subject]uint32          // the calls so far about each subject
	throttled map[string]int64            // the end of each queue's throttling, by the URL the calls name
}

func newDisturber(seed uint64, rates [numDistClasses]float64) *disturber {
	d := &disturber{seed: seed}
	for class, r := range rates {
		switch {
		case r >= 1:
			d.always[class], d.on[class] = true, true
		case r > 0:
			d.thresh[class] = uint64(r * (1 << 64))
			d.on[class] = true
		}
	}
	return d
}

// replaying makes d fire exactly the keys of list.
func (d *disturber) replaying(list []distKey) {
	d.replay = make(map[distKey]bool, len(list))
	d.on = [numDistClasses]bool{}
	for _, k := range list {
		d.replay[k] = true
		d.on[k.class] = true
	}
}

// reset starts the counts again, as in a new fake (Reset).
func (d *disturber) reset() {
	d.calls = [len(operationNames)]uint32{}
	clear(d.attempts)
	clear(d.throttled)
}

// attempt counts a call (or entry) about s and returns the key of its disturbances (class
// left to set): this is the n-th about s.
func (d *disturber) attempt(s subject) distKey {
	if d.attempts == nil {
		d.attempts = make(map[subject]uint32)
	}
	d.attempts[s]++
	return distKey{op: s.op, a: s.a, b: s.b, c: d.attempts[s]}
}

// hash mixes the seed, salt and k.
func (d *disturber) hash(k distKey, salt uint64) uint64 {
	h := mix64(d.seed ^ salt<<40 ^ uint64(k.class)<<56 ^ uint64(k.op)<<48)
	h = mix64(h ^ uint64(k.a)<<32 ^ uint64(k.b))
	return mix64(h ^ uint64(k.c)<<32 ^ uint64(k.d))
}

// fires decides whether the disturbance k happens, noting it with words when it does and
// Explore records.
func (d *disturber) fires(k distKey, words func() string) bool {
	if !d.on[k.class] {
		return false
	}
	var yes bool
	if d.replay != nil {
		yes = d.replay[k]
	} else {
		yes = d.always[k.class] || d.hash(k, 0) < d.thresh[k.class]
	}
	if yes && d.record != nil && words != nil {
		d.record(k, words)
	}
	return yes
}

// param draws a number below n for the disturbance k: how long a throttle lasts, how many
// messages a sampled poll returns. It depends on the seed and k alone, so a replay draws the
// same.
func (d *disturber) param(k distKey, n uint64) uint64 { return d.hash(k, 1) % n }

// msgName names m in Explore's words: m-3 "first bytes of its body".
func msgName(m *message) string { return fmt.Sprintf("m-%d %q", m.idNum, snippet(m.body)) }

// snippet is the start of a body, for Explore's words.
func snippet(body string) string {
	if len(body) > 24 {
		return strings.ToValidUTF8(body[:21], "") + "…"
	}
	return body
}

// callName names a call in Explore's words: DeleteMessage #7.
func callName(id callID) string {
	return fmt.Sprintf("%s #%d", operationNames[id.op], id.ord)
}

// chaosDuplicate reports whether m, just received by the call id, stays visible. Called with
// f.mu held.
func (f *Fake) chaosDuplicate(m *message, id callID) bool {
	d := f.dist
	if d == nil || !d.on[distDuplicate] {
		return false
	}
	return d.fires(distKey{class: distDuplicate, a: uint32(m.idNum), b: m.receiveCount}, func() string {
		return fmt.Sprintf("duplicate delivery of %s by %s: a copy stayed visible, for a later receive", msgName(m), callName(id))
	})
}

// chaosReorders reports whether d may take a later message before the head of a standard
// queue's visible messages.
func (f *Fake) chaosReorders() bool { return f.dist != nil && f.dist.on[distReorder] }

// chaosReorder reports whether the call id takes second before first. Called with f.mu held.
func (f *Fake) chaosReorder(first, second *message, id callID) bool {
	return f.dist.fires(distKey{class: distReorder, a: uint32(second.idNum), b: second.receiveCount, c: uint32(first.idNum), d: first.receiveCount}, func() string {
		return fmt.Sprintf("%s delivered before %s by %s", msgName(second), msgName(first), callName(id))
	})
}

// chaosRedeliver reports whether m, just deleted by the call id, stays. Called with f.mu held.
func (f *Fake) chaosRedeliver(m *message, id callID) bool {
	d := f.dist
	if d == nil || !d.on[distRedeliver] {
		return false
	}
	return d.fires(distKey{class: distRedeliver, a: uint32(m.idNum), b: m.receiveCount}, func() string {
		return fmt.Sprintf("deleted %s comes back: %s succeeded, but a copy stayed, visible again when its visibility timeout ends", msgName(m), callName(id))
	})
}

// chaosSample returns how many messages the short poll id of q may return at most, or -1
// when it is not sampled. Called with f.mu held, for a short poll of a queue with messages to
// take.
func (f *Fake) chaosSample(q *queue, id callID, max int) (limit int, k distKey) {
	d := f.dist
	if d == nil || !d.on[distShortPoll] {
		return -1, k
	}
	k = d.attempt(receiveSubject(q, id.op))
	k.class = distShortPoll
	if !d.fires(k, nil) {
		return -1, k
	}
	h := d.param(k, 1<<32)
	if max == 1 || h&1 == 0 {
		return 0, k
	}
	return 1 + int(h>>1)%(max-1), k
}

// noteSample records a sampled short poll that returned got messages, fewer than it could.
func (f *Fake) noteSample(k distKey, id callID, got int) {
	f.noteChaos(id)
	if f.dist.record == nil {
		return
	}
	f.dist.record(k, func() string {
		if got == 0 {
			return fmt.Sprintf("short poll %s sampled: it returned no message while some were visible", callName(id))
		}
		return fmt.Sprintf("short poll %s sampled: it returned only %d while more were visible", callName(id), got)
	})
}

// messageOps are the operations chaos disturbs.
var messageOps = func() (ops [len(operationNames)]bool) {
	for _, op := range []string{"SendMessage", "SendMessageBatch", "ReceiveMessage", "DeleteMessage", "DeleteMessageBatch", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch"} {
		ops[opIndex(op)] = true
	}
	return ops
}()

// chaosFault numbers a message call among its operation's calls and returns the disturbance
// chaos makes of it, or nil: a throttle, a server error, a lost or late answer, or failed
// batch entries — one of them at most. A call an injected fault disturbs already is numbered
// and left to it.
func (f *Fake) chaosFault(c *call, params any) *takenFault {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.dist
	d.calls[c.id.op]++
	c.id.ord = d.calls[c.id.op]
	if c.fault != nil {
		return c.fault
	}
	id := c.id
	url := queueURLOf(params)
	now := f.now()
	k := d.attempt(f.callSubject(c, params))
	if until, ok := d.throttled[url]; ok {
		if now < until {
			return &takenFault{Fault: Fault{Err: ErrThrottled}, chaos: true}
		}
		delete(d.throttled, url)
	}
	k.class = distThrottle
	var stretch time.Duration
	if d.on[distThrottle] {
		stretch = time.Duration(1+d.param(k, 10)) * 100 * time.Millisecond
	}
	if d.fires(k, func() string {
		return fmt.Sprintf("queue %s throttled for %v from %s: it and every message call to the queue until then failed with RequestThrottled", queueNameOf(url), stretch, callName(id))
	}) {
		if d.throttled == nil {
			d.throttled = make(map[string]int64)
		}
		d.throttled[url] = now + int64(stretch)
		return &takenFault{Fault: Fault{Err: ErrThrottled}, chaos: true}
	}
	k.class = distServerError
	serverErr, code := ErrInternal, "InternalError (HTTP 500)"
	if d.on[distServerError] && d.param(k, 2) == 1 {
		serverErr, code = ErrServiceUnavailable, "ServiceUnavailable (HTTP 503)"
	}
	if d.fires(k, func() string {
		return fmt.Sprintf("%s%s failed with %s, without effect", callName(id), f.callDetail(params), code)
	}) {
		return &takenFault{Fault: Fault{Err: serverErr}, chaos: true}
	}
	k.class = distLost
	if d.fires(k, func() string {
		effect := "it took effect"
		if _, ok := params.(*sqs.ReceiveMessageInput); ok {
			effect = "it took effect (what it received stays in flight, unseen, until its visibility timeout ends)"
		}
		return fmt.Sprintf("lost response to %s%s: %s; the caller got a timeout", callName(id), f.callDetail(params), effect)
	}) {
		return &takenFault{Fault: Fault{LoseResponse: true}, chaos: true}
	}
	k.class = distLate
	var late time.Duration
	if d.on[distLate] {
		late = time.Duration(5+d.param(k, 46)) * 100 * time.Millisecond
	}
	if d.fires(k, func() string {
		return fmt.Sprintf("late answer to %s%s: it took effect at once, and its answer came %v later", callName(id), f.callDetail(params), late)
	}) {
		return &takenFault{Fault: Fault{Latency: late}, chaos: true}
	}
	if !d.on[distFailedEntry] || !batchOperations[operationNames[id.op]] {
		return nil
	}
	var failing map[string]bool
	for i, eid := range batchEntryIDs(params) {
		if eid == nil {
			continue
		}
		k := d.attempt(f.entrySubject(id.op, params, i))
		k.class = distFailedEntry
		if d.fires(k, func() string {
			return fmt.Sprintf("entry %q of %s%s failed with InternalError, without effect", *eid, callName(id), f.entryDetail(params, i))
		}) {
			if failing == nil {
				failing = make(map[string]bool)
			}
			failing[*eid] = true
		}
	}
	if failing == nil {
		return nil
	}
	return &takenFault{Fault: Fault{FailEntries: func(id string) bool { return failing[id] }}, failing: failing, chaos: true}
}

// callSubject returns what a message call is about (distKey). Called with f.mu held.
func (f *Fake) callSubject(c *call, params any) subject {
	switch in := params.(type) {
	case *sqs.SendMessageInput:
		return subject{op: c.id.op, a: bodyHash(in.MessageBody)}
	case *sqs.SendMessageBatchInput:
		return f.entrySubject(c.id.op, params, 0).whole(len(in.Entries))
	case *sqs.ReceiveMessageInput:
		q, err := f.queueFor(c.who, aws.ToString(in.QueueUrl), "ReceiveMessage")
		if err != nil {
			return subject{op: c.id.op}
		}
		return receiveSubject(q, c.id.op)
	case *sqs.DeleteMessageInput:
		return f.handleSubject(c.id.op, in.ReceiptHandle)
	case *sqs.ChangeMessageVisibilityInput:
		return f.handleSubject(c.id.op, in.ReceiptHandle)
	case *sqs.DeleteMessageBatchInput, *sqs.ChangeMessageVisibilityBatchInput:
		return f.entrySubject(c.id.op, params, 0).whole(len(batchEntryIDs(params)))
	}
	return subject{op: c.id.op}
}

// whole turns the subject of a batch's first entry into the batch's.
func (s subject) whole(entries int) subject {
	s.entry = false
	s.b ^= uint32(entries) << 24
	return s
}

// entrySubject returns what entry i of a batch call of op is about. Called with f.mu held.
func (f *Fake) entrySubject(op uint8, params any, i int) subject {
	var s subject
	switch in := params.(type) {
	case *sqs.SendMessageBatchInput:
		if i < len(in.Entries) {
			s = subject{op: op, a: bodyHash(in.Entries[i].MessageBody)}
		}
	case *sqs.DeleteMessageBatchInput:
		if i < len(in.Entries) {
			s = f.handleSubject(op, in.Entries[i].ReceiptHandle)
		}
	case *sqs.ChangeMessageVisibilityBatchInput:
		if i < len(in.Entries) {
			s = f.handleSubject(op, in.Entries[i].ReceiptHandle)
		}
	}
	s.op, s.entry = op, true
	return s
}

// handleSubject returns the subject of a call of op that names a receipt handle: its
// message and receive.
func (f *Fake) handleSubject(op uint8, handle *string) subject {
	if handle != nil {
		if r, err := f.readReceipt(*handle); err == nil {
			return subject{op: op, a: uint32(r.msg), b: r.receive}
		}
	}
	return subject{op: op}
}

// receiveSubject returns the subject of a receive of q: the message it would take first, and
// that message's receive count.
func receiveSubject(q *queue, op uint8) subject {
	if m := q.oldestAvailable(); m != nil {
		return subject{op: op, a: uint32(m.idNum), b: m.receiveCount}
	}
	return subject{op: op}
}

// bodyHash is FNV-1a of a body.
func bodyHash(body *string) uint32 {
	h := uint32(2166136261)
	for _, c := range []byte(aws.ToString(body)) {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// queueURLOf returns the QueueUrl a message call names.
func queueURLOf(params any) string {
	var url *string
	switch in := params.(type) {
	case *sqs.SendMessageInput:
		url = in.QueueUrl
	case *sqs.SendMessageBatchInput:
		url = in.QueueUrl
	case *sqs.ReceiveMessageInput:
		url = in.QueueUrl
	case *sqs.DeleteMessageInput:
		url = in.QueueUrl
	case *sqs.DeleteMessageBatchInput:
		url = in.QueueUrl
	case *sqs.ChangeMessageVisibilityInput:
		url = in.QueueUrl
	case *sqs.ChangeMessageVisibilityBatchInput:
		url = in.QueueUrl
	}
	return aws.ToString(url)
}

// queueNameOf returns the queue name a QueueUrl ends with.
func queueNameOf(url string) string {
	if i := strings.LastIndexByte(url, '/'); i >= 0 {
		return url[i+1:]
	}
	return url
}

// callDetail says, in Explore's words, which message a call is about, or "". Called with
// f.mu held.
func (f *Fake) callDetail(params any) string {
	switch in := params.(type) {
	case *sqs.SendMessageInput:
		return fmt.Sprintf(" (body %q)", snippet(aws.ToString(in.MessageBody)))
	case *sqs.DeleteMessageInput:
		return f.handleDetail(in.ReceiptHandle)
	case *sqs.ChangeMessageVisibilityInput:
		return f.handleDetail(in.ReceiptHandle)
	}
	return ""
}

// entryDetail says which message a batch entry is about, or "". Called with f.mu held.
func (f *Fake) entryDetail(params any, i int) string {
	switch in := params.(type) {
	case *sqs.SendMessageBatchInput:
		return fmt.Sprintf(" (body %q)", snippet(aws.ToString(in.Entries[i].MessageBody)))
	case *sqs.DeleteMessageBatchInput:
		return f.handleDetail(in.Entries[i].ReceiptHandle)
	case *sqs.ChangeMessageVisibilityBatchInput:
		return f.handleDetail(in.Entries[i].ReceiptHandle)
	}
	return ""
}

// handleDetail names the message a receipt handle names: " (m-3)", or "".
func (f *Fake) handleDetail(handle *string) string {
	if handle == nil {
		return ""
	}
	r, err := f.readReceipt(*handle)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" (m-%d)", r.msg)
}

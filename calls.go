package sqsfake

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/smithy-go"
)

// The call record: every call into the fake, through every door, in the order the calls
// began. Entries hold small facts — message numbers, counts, the strings the input already
// had (calllog.go) — and Calls renders them on demand.

// Door is the way a call came into the fake.
type Door uint8

// The fake's doors.
const (
	// DoorMethods: the fake's own methods, the method set of *sqs.Client.
	DoorMethods Door = iota + 1
	// DoorClient: a *sqs.Client that Client returned.
	DoorClient
	// DoorHTTP: the wire protocol, through Handler, HTTPClient or the sqsfake server.
	DoorHTTP
)

// String names the door: "methods", "client" or "http".
func (d Door) String() string {
	switch d {
	case DoorMethods:
		return "methods"
	case DoorClient:
		return "client"
	case DoorHTTP:
		return "http"
	}
	return "Door(" + strconv.Itoa(int(d)) + ")"
}

// Caller says who made a call: the door it came through, and the account, region and
// principal it acted as — the fake's own account and region and that account's root user,
// unless the call acted as another identity (ActAs, a client's Region, a wire request's
// signature).
type Caller struct {
	Door         Door
	AccountID    string
	Region       string
	PrincipalARN string
	// Other reports that the call acted as another identity than the fake's own root user
	// in the fake's own region; String shows it. A wire request refused before it was
	// authenticated (a bad signature in signed mode) has Other set and no account, region or
	// principal: the record does not take the word of a request it refused.
	Other bool
}

// Call is one call in the fake's call record (Calls).
type Call struct {
	// Seq numbers the call: it is the Seq-th call since New or Reset, counting every door
	// and the requests the wire protocol refused. CallCount is the latest Seq.
	Seq uint64
	// RequestID is the request id the caller got (x-amzn-RequestId; the SDK's
	// awsmiddleware.GetRequestIDMetadata).
	RequestID string
	// Operation is the SQS operation, e.g. "SendMessage". A wire request the fake could not
	// route has what its X-Amz-Target header named instead ("" when it had none).
	Operation string
	Caller    Caller
	// Start is when the call began on the fake's clock, End when it returned: later than
	// Start for a long poll or a response an injected Latency held back, and zero while the
	// call has not returned.
	Start, End time.Time
	// Queue is the name of the queue the input names (by URL, name or ARN), or "" for an
	// operation that names none.
	Queue string
	// Input summarises the rest of the input: a message body's first characters and
	// length, a receipt handle with the message and receive it names, wait and visibility
	// times, entry counts. Output summarises what the call answered — the MessageIds it
	// sent or received, batch results with the codes of failed entries — or what the
	// operation did when an injected fault replaced its answer with an error.
	Input, Output string
	// MessageIDs are the MessageIds of the messages the call sent or received.
	MessageIDs []string
	// Err is the error the caller got, nil when it succeeded; ErrorCode is its ErrorCode()
	// when it is an SQS error (through Handler, as the SDK reads it from the wire answer),
	// else "" — a client-side validation error, a lost response, a cancelled context.
	Err       error
	ErrorCode string
	// Fault reports that an injected Fault disturbed the call; Chaos that WithChaos changed
	// what it did (a received message left visible, a reorder, a delete that missed).
	Fault, Chaos bool
	// Waited reports that the call waited on the fake's clock: a receive that parked in a
	// long poll, or a response an injected Latency held back.
	Waited bool
}

// String renders the call on one line, as the call assertions print it:
//
//	#2 2025-01-01T00:00:00Z SendMessage jobs: body "hello" (5 bytes) → message 0d7c…
func (c Call) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s", c.Seq, formatTime(c.Start), c.Operation)
	if c.Operation == "" {
		b.WriteString("(no operation)")
	}
	if c.Queue != "" {
		b.WriteString(" ")
		b.WriteString(c.Queue)
	}
	if c.Input != "" {
		b.WriteString(": ")
		b.WriteString(c.Input)
	}
	b.WriteString(" → ")
	switch {
	case c.End.IsZero() && c.Waited:
		b.WriteString("still waiting")
		if c.Output != "" {
			b.WriteString(" (" + c.Output + ")")
		}
	case c.End.IsZero():
		b.WriteString("still running")
		if c.Output != "" {
			b.WriteString(" (" + c.Output + ")")
		}
	case c.Err != nil:
		b.WriteString("error ")
		if c.ErrorCode != "" {
			b.WriteString(c.ErrorCode)
			if msg := errorMessageOf(c.Err); msg != "" {
				b.WriteString(": " + msg)
			}
		} else {
			b.WriteString(strings.Join(strings.Fields(c.Err.Error()), " "))
		}
		if c.Output != "" {
			b.WriteString(" (the operation took effect: " + c.Output + ")")
		}
	default:
		b.WriteString(c.Output)
	}
	if !c.End.IsZero() && !c.End.Equal(c.Start) {
		fmt.Fprintf(&b, " at %s", formatTime(c.End))
	}
	if c.Fault {
		b.WriteString(" [fault]")
	}
	if c.Chaos {
		b.WriteString(" [chaos]")
	}
	if c.Caller.Door != DoorMethods {
		b.WriteString(" [" + c.Caller.Door.String() + "]")
	}
	switch {
	case c.Caller.Other && c.Caller.PrincipalARN == "":
		b.WriteString(" [unauthenticated]")
	case c.Caller.Other:
		b.WriteString(" [as " + c.Caller.PrincipalARN + " in " + c.Caller.Region + "]")
	}
	return b.String()
}

// errorMessageOf is the message of an SQS error, shortened for one line.
func errorMessageOf(err error) string {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return ""
	}
	return abbreviate(api.ErrorMessage(), 120)
}

// CallFilter selects calls of the record. Its zero value selects every call.
type CallFilter struct {
	// Operation, if set, is the operation the calls are, e.g. "DeleteMessage". It must name
	// an SQS operation, or a companion's as its calls carry it (companion.RegisterOperations), such as
	// "SNS.Publish" for package snsfake's.
	Operation string
	// Queue, if set, is the queue the calls name: a name, URL or ARN, matched by the
	// queue's name.
	Queue string
}

// String describes the calls the filter selects, e.g. "DeleteMessage calls on queue jobs".
func (cf CallFilter) String() string {
	s := "calls"
	if cf.Operation != "" {
		s = cf.Operation + " calls"
	}
	if cf.Queue != "" {
		s += " on queue " + lastSegment(cf.Queue)
	}
	return s
}

// count says "n calls" of the kind the filter selects, e.g. "1 DeleteMessage call on queue jobs".
func (cf CallFilter) count(n int) string {
	s := strconv.Itoa(n) + " "
	if cf.Operation != "" {
		s += cf.Operation + " "
	}
	if s += "call"; n != 1 {
		s += "s"
	}
	if cf.Queue != "" {
		s += " on queue " + lastSegment(cf.Queue)
	}
	return s
}

// check reports a filter that names no operation of f's, SQS's or a companion's.
func (cf CallFilter) check(f *Fake) error {
	if cf.Operation == "" {
		return nil
	}
	if _, ok := operationIndex[cf.Operation]; !ok && !f.serviceOperation(cf.Operation) {
		return errors.New("CallFilter.Operation " + f.notAnOperation(cf.Operation))
	}
	return nil
}

// match reports whether the filter selects a call of the operation named op.
func (cf CallFilter) match(op, queue string) bool {
	if cf.Operation != "" && op != cf.Operation {
		return false
	}
	if cf.Queue != "" && (queue == "" || lastSegment(queue) != lastSegment(cf.Queue)) {
		return false
	}
	return true
}

// Calls returns the fake's call record, oldest call first: every call through every door
// since New or Reset — its operation, caller, times, input and outcome — as far as
// WithCallLimit keeps it. With filters, it returns the calls that match any of them. A call
// enters the record when it begins, so a long poll still parked is there, with a zero End.
// It panics when a filter's Operation names no operation, SQS's or a companion's
// ("SNS.Publish"): a misspelt name would silently match nothing.
//
// The record is deterministic: the same calls in the same order, on the same clock moves,
// give the same record.
func (f *Fake) Calls(filters ...CallFilter) []Call {
	f.catchUpNow()
	for _, cf := range filters {
		if err := cf.check(f); err != nil {
			panic("sqsfake: Calls: " + err.Error())
		}
	}
	views, seqs := f.callRecords(filters)
	calls := make([]Call, len(views))
	for i := range views {
		calls[i] = f.renderCall(seqs[i], &views[i])
	}
	return calls
}

// CallCount returns how many calls the fake has had since New or Reset, through every door,
// the requests the wire protocol refused included (and the calls WithCallLimit forgot): the
// Seq of the latest call. The next call to begin is CallCount()+1 — the number to give
// WaitForCalls.
func (f *Fake) CallCount() int { return int(f.requests.Load()) }

// WithCallLimit bounds the call record (Calls), forgetting the oldest calls first, as
// WithHistoryLimit bounds timelines: it keeps the newest n calls at least, and fewer than
// n+8,192. CallCount, WaitForCalls and LastError never depend on it. The default is
// DefaultCallLimit; WithCallLimit(math.MaxInt) keeps every call until Reset. An assertion
// on calls that fails says so when the record has forgotten calls. A call's entry costs 40
// bytes, 16 more for a call with a body or a label, and it keeps the strings its input named:
// a body of up to 256 bytes (of a longer one, a copy of its first 64 bytes), a label; queue
// URLs and names are kept once each. n must be 0 or more; 0 keeps the smallest record, the
// newest 4,096 calls at least.
func WithCallLimit(n int) Option {
	return func(f *Fake) {
		if n < 0 {
			f.refuse("WithCallLimit", strconv.Itoa(n), callLimitRule)
			return
		}
		f.calls.setLimit(max(n, logChunk))
	}
}

// callRecords copies the entries the filters select, with what they index, and their
// sequence numbers, under the lock; rendering them needs no lock.
func (f *Fake) callRecords(filters []CallFilter) (views []callView, seqs []uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := &f.calls
	seq := l.recs.forgot
	l.recs.each(func(r *callRec) {
		seq++
		queue := l.queueOf(r)
		if len(filters) > 0 && !matchAny(filters, l.opNameOf(r), queue) {
			return
		}
		v := callView{callRec: *r, queue: queue, key: l.keyOf(r), handles: f.handles}
		if r.flags&callHasExtra != 0 {
			v.x = *l.extra(r)
		}
		views = append(views, v)
		seqs = append(seqs, seq)
	})
	return views, seqs
}

// opNameOf is the name of the operation of an entry: SQS's, or the name a companion's call
// (or a refused wire request) carries.
func (l *callLogs) opNameOf(r *callRec) string {
	if r.op == 0 && r.flags&callHasExtra != 0 {
		return l.extra(r).opName
	}
	return operationNames[r.op]
}

func matchAny(filters []CallFilter, op, queue string) bool {
	for _, cf := range filters {
		if cf.match(op, queue) {
			return true
		}
	}
	return false
}

// renderCall turns an entry into a Call.
func (f *Fake) renderCall(seq uint64, v *callView) Call {
	c := Call{
		Seq:       seq,
		RequestID: uuidFor(f.seed, streamRequestID, seq),
		Operation: operationNames[v.op],
		Caller:    Caller{Door: v.door, AccountID: f.account, Region: f.region, PrincipalARN: f.homeActor.principal},
		Start:     time.Unix(0, v.start).UTC(),
		Fault:     v.flags&callFault != 0,
		Chaos:     v.flags&callChaos != 0,
		Waited:    v.flags&callWaited != 0,
	}
	if v.queue != "" {
		c.Queue = lastSegment(v.queue)
	}
	if v.op == 0 {
		c.Operation = v.x.opName
	}
	if a := v.x.who; a != nil {
		c.Caller.AccountID, c.Caller.Region, c.Caller.PrincipalARN = "", "", ""
		if a.sp != nil {
			c.Caller.AccountID, c.Caller.Region, c.Caller.PrincipalARN = a.sp.account, a.sp.region, a.principal
		}
		c.Caller.Other = true
	}
	if v.flags&callReturned != 0 {
		c.End = c.Start
		if v.x.end != 0 {
			c.End = time.Unix(0, v.x.end).UTC()
		}
	}
	if v.ref != 0 && v.flags&callReceipt == 0 {
		c.MessageIDs = append(c.MessageIDs, uuidFor(f.seed, streamMessageID, v.ref))
		for _, n := range v.x.ids {
			c.MessageIDs = append(c.MessageIDs, uuidFor(f.seed, streamMessageID, n))
		}
	}
	c.Err = v.x.err
	if v.x.err != nil {
		c.ErrorCode = callErrorCode(v.x.err, v.door)
	}
	if v.flags&callUnread == 0 {
		c.Input = f.renderInput(v)
	}
	if v.flags&callAnswered != 0 || c.End.IsZero() && len(c.MessageIDs) > 0 {
		c.Output = renderOutput(c.Operation, v, c.MessageIDs)
	}
	return c
}

// callErrorCode is the ErrorCode() a caller through door sees for err, or "".
func callErrorCode(err error, door Door) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	if door == DoorHTTP && !isLostResponse(err) {
		// Door 3 answers every error in SQS's shape (serviceErrorOf); the SDK reads the code
		// from the x-amzn-query-error header.
		return serviceErrorOf(err).code
	}
	return ""
}

func (f *Fake) renderInput(r *callView) string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	switch operationNames[r.op] {
	case "SendMessage":
		add("body %s", describeBody(r.key, r.n2))
		if r.n1 != 0 {
			add("delay %ds", r.n1)
		}
		if r.x.group != "" {
			add("group %q", r.x.group)
		}
	case "SendMessageBatch":
		add("%s", entryCount(r.n1))
		if r.n1 > 0 {
			add("first body %s", describeBody(r.key, r.n2))
		}
	case "ReceiveMessage":
		if r.n1 != 0 {
			add("max %d", r.n1)
		}
		if r.n2 != 0 {
			add("wait %ds", r.n2)
		}
		if r.callRec.key != 0 {
			add("visibility %ds", int32(r.callRec.key))
		}
	case "DeleteMessage":
		add("%s", f.describeHandle(r))
	case "ChangeMessageVisibility":
		add("%s", f.describeHandle(r))
		add("visibility %ds", r.n1)
	case "DeleteMessageBatch", "ChangeMessageVisibilityBatch":
		add("%s", entryCount(r.n1))
	case "CreateQueue":
		if r.n1 > 0 {
			add("%s", plural(int(r.n1), "attribute"))
		}
		if r.n2 > 0 {
			add("%s", plural(int(r.n2), "tag"))
		}
	case "GetQueueAttributes":
		add("%s", plural(int(r.n1), "attribute name"))
	case "SetQueueAttributes":
		add("%s", plural(int(r.n1), "attribute"))
	case "TagQueue":
		add("%s", plural(int(r.n1), "tag"))
	case "UntagQueue":
		add("%s", plural(int(r.n1), "tag key"))
	case "ListQueues":
		if r.key != "" {
			add("prefix %q", r.key)
		}
	case "AddPermission", "RemovePermission":
		add("label %q", r.key)
	case "StartMessageMoveTask":
		if r.key != "" {
			add("to %s", lastSegment(r.key))
		}
		if r.n1 != 0 {
			add("%d messages a second", r.n1)
		}
	case "CancelMessageMoveTask":
		add("task %s", abbreviate(r.key, 16))
	}
	return strings.Join(parts, ", ")
}

func renderOutput(op string, r *callView, ids []string) string {
	var b strings.Builder
	switch op {
	case "SendMessage":
		if len(ids) > 0 {
			b.WriteString("message " + ids[0])
		}
	case "ReceiveMessage":
		switch len(ids) {
		case 0:
			b.WriteString("no messages")
		default:
			fmt.Fprintf(&b, "%s: %s", plural(len(ids), "message"), strings.Join(ids, ", "))
		}
	case "SendMessageBatch":
		fmt.Fprintf(&b, "%d sent", r.x.count)
		if len(ids) > 0 {
			b.WriteString(": " + strings.Join(ids, ", "))
		}
	case "DeleteMessageBatch":
		fmt.Fprintf(&b, "%d deleted", r.x.count)
	case "ChangeMessageVisibilityBatch":
		fmt.Fprintf(&b, "%d changed", r.x.count)
	case "ListQueues", "ListDeadLetterSourceQueues":
		b.WriteString(plural(int(r.n2), "queue"))
	default:
		b.WriteString("ok")
	}
	if len(r.x.failed) > 0 {
		fmt.Fprintf(&b, "; %d failed:", len(r.x.failed))
		for i, e := range r.x.failed {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %s", e.id, e.code)
		}
	}
	return b.String()
}

// entryCount says how many entries a batch had.
func entryCount(n int32) string {
	if n == 1 {
		return "1 entry"
	}
	return strconv.Itoa(int(n)) + " entries"
}

// describeBody quotes the start of a body and gives its length.
func describeBody(kept string, n int32) string {
	q := shortBody(kept)
	if len(kept) < int(n) && !strings.HasSuffix(q, "…") {
		q += "…"
	}
	return fmt.Sprintf("%s (%s)", q, plural(int(n), "byte"))
}

// describeHandle abbreviates the receipt handle of a call and says which message and
// receive it names.
func (f *Fake) describeHandle(r *callView) string {
	if r.flags&callReceipt == 0 {
		if r.key == "" {
			return "no receipt handle"
		}
		return "handle " + strconv.Quote(abbreviate(r.key, 24)) + " (not one this fake issued)"
	}
	rc := receipt{queue: r.callRec.key, msg: r.ref, receive: uint32(r.n2)}
	return fmt.Sprintf("handle %s (message %s, receive %d)", abbreviate(encodeReceipt(&r.handles, rc), 12),
		uuidFor(f.seed, streamMessageID, rc.msg), rc.receive)
}

// abbreviate cuts s to at most n characters, marking the cut with "…".
func abbreviate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

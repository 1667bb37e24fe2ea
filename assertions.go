package sqsfake

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/aws/smithy-go"
)

// Assertions in testify's style (ECOSYSTEM.md §4): each AssertX takes a small TestingT,
// reports a failure with t.Errorf and returns false, and takes testify's msgAndArgs; each
// RequireX calls its AssertX and stops the test with FailNow when it fails. A failure says
// what was expected, what is there, and prints the timelines that explain it, so the test
// author sees why without a debugger. A queue is named by its name, URL or ARN; a queue that
// does not exist fails the assertion with the queues the fake has. Why every AssertX has a
// RequireX twin: docs/api.md ("Why Assert and Require twins").

// TestingT is what the assertions need of a test. *testing.T, *testing.B, testify's
// *assert.CollectT and a recording fake all satisfy it, and it is interchangeable with
// testify's assert.TestingT. If t also has a Helper method, the assertions call it, so that
// failures point at the caller's line.
type TestingT interface {
	Errorf(format string, args ...any)
}

// RequireT is a TestingT that can stop the test, as the Require* assertions do. *testing.T
// and testify's *assert.CollectT satisfy it, and it is interchangeable with testify's
// require.TestingT.
type RequireT interface {
	TestingT
	FailNow()
}

// CleanupT is what NewForTest needs of a test: *testing.T and *testing.B satisfy it.
type CleanupT interface {
	TestingT
	Helper()
	Cleanup(func())
}

type tHelper interface{ Helper() }

// NewForTest returns a new Fake, like New, for the test t, and registers a cleanup that
// fails t when calls are still waiting on the fake's clock once the test is over: long
// polls still parked, or responses still held back by an injected Latency. Such a call is
// a goroutine the test leaked — started, and then neither answered by moving the clock nor
// ended by cancelling its context — and it usually hides a missing assertion about what it
// would have received. A call whose context is already cancelled is not a leak, even if its
// goroutine has not yet returned. The cleanup ends the leaked long polls with empty results,
// so their goroutines can finish.
func NewForTest(t CleanupT, opts ...Option) *Fake {
	t.Helper()
	f := New(opts...)
	t.Cleanup(func() {
		t.Helper()
		f.mu.Lock()
		polls, held := 0, 0
		for _, pl := range f.pollers {
			if !done(pl.ctxDone) {
				polls++
			}
		}
		for _, h := range f.held {
			if !done(h.ctxDone) {
				held++
			}
		}
		for len(f.pollers) > 0 {
			f.finishPoll(f.pollers[0], emptyReceive())
		}
		f.releaseHeld()
		f.mu.Unlock()
		if leak := leakReport(polls, held); leak != "" {
			t.Errorf("%s", leak)
		}
	})
	return f
}

// leakReport says what NewForTest's cleanup found still waiting on the clock — only what
// leaked — or "" when nothing did.
func leakReport(polls, held int) string {
	var what []string
	if polls > 0 {
		what = append(what, plural(polls, "long poll")+" "+wasWere(polls)+" still parked")
	}
	if held > 0 {
		what = append(what, plural(held, "response")+" "+wasWere(held)+" still held back by an injected Latency")
	}
	if what == nil {
		return ""
	}
	return "sqsfake: " + strings.Join(what, " and ") + ", waiting on the fake's clock when the test ended (leaked): " +
		"move the clock past the wait with Advance, or end the call by cancelling its context"
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// AssertVisibleCount asserts that the queue holds n visible messages
// (ApproximateNumberOfMessages).
func AssertVisibleCount(t TestingT, f *Fake, queue string, n int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return assertCount(t, f, queue, n, "visible", StateVisible, msgAndArgs)
}

// AssertInFlightCount asserts that the queue holds n messages in flight: received and not
// yet visible again (ApproximateNumberOfMessagesNotVisible).
func AssertInFlightCount(t TestingT, f *Fake, queue string, n int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return assertCount(t, f, queue, n, "in flight", StateInFlight, msgAndArgs)
}

// AssertDelayedCount asserts that the queue holds n delayed messages
// (ApproximateNumberOfMessagesDelayed).
func AssertDelayedCount(t TestingT, f *Fake, queue string, n int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return assertCount(t, f, queue, n, "delayed", StateDelayed, msgAndArgs)
}

// AssertQueueEmpty asserts that the queue holds no message at all: none visible, in flight
// or delayed.
func AssertQueueEmpty(t TestingT, f *Fake, queue string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return assertCount(t, f, queue, 0, "", 0, msgAndArgs)
}

// assertCount checks the number of messages of queue in state, or of every message when
// state is 0.
func assertCount(t TestingT, f *Fake, queue string, n int, what string, state MessageState, msgAndArgs []any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	f.mu.Lock()
	f.settleAll()
	q := f.lookupQueue(queue)
	got := 0
	if q != nil {
		visible, inFlight, delayed := q.counts()
		switch state {
		case StateVisible:
			got = visible
		case StateInFlight:
			got = inFlight
		case StateDelayed:
			got = delayed
		default:
			got = visible + inFlight + delayed
		}
	}
	f.mu.Unlock()
	if q != nil && got == n {
		return true
	}
	var b strings.Builder
	switch {
	case q == nil:
		b.WriteString(f.noSuchQueue(queue))
	case state == 0:
		fmt.Fprintf(&b, "expected queue %s to be empty, but it holds %s", q.name, plural(got, "message"))
	default:
		fmt.Fprintf(&b, "expected %s %s in queue %s, but there %s %d", plural(n, "message"), what, q.name, isAre(got), got)
	}
	if q != nil {
		b.WriteString("\n")
		b.WriteString(f.describeQueue(queue))
	}
	return fail(t, b.String(), msgAndArgs)
}

// AssertReceiveCount asserts that the message with the given MessageId has been received n
// times (its ApproximateReceiveCount): as the queue reports it while the queue holds the
// message, and as its last receive from the queue reported it once the message has left
// (deleted, or moved to a dead-letter queue). queue is the queue whose receives count: the
// source for the receives before a dead-letter move, the dead-letter queue for the count
// there (which goes on from the source's, as on SQS).
func AssertReceiveCount(t TestingT, f *Fake, queue, messageID string, n int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	l := f.locate(queue, messageID)
	got, ok := l.receiveCount()
	if ok && got == n {
		return true
	}
	var b strings.Builder
	switch {
	case !l.queueExists && !l.wasIn():
		b.WriteString(f.noSuchQueue(queue))
	case !ok:
		fmt.Fprintf(&b, "expected message %s to have been received %s from queue %s, but it was never in that queue", messageID, plural(n, "time"), l.queueName)
	default:
		fmt.Fprintf(&b, "expected message %s to have been received %s, but it has been received %s", messageID, plural(n, "time"), plural(got, "time"))
	}
	return fail(t, l.explain(&b), msgAndArgs)
}

// AssertInFlight asserts that the queue holds the message with the given MessageId and that
// it is in flight: received, and hidden until its visibility timeout ends.
func AssertInFlight(t TestingT, f *Fake, queue, messageID string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	l := f.locate(queue, messageID)
	if l.held && l.info.State == StateInFlight {
		return true
	}
	var b strings.Builder
	if l.queueExists {
		fmt.Fprintf(&b, "expected message %s to be in flight in queue %s, but ", messageID, l.queueName)
	}
	return fail(t, l.explainState(&b, queue), msgAndArgs)
}

// AssertNotInFlight asserts that the queue holds the message with the given MessageId and
// that it is not in flight: visible (its visibility timeout ended, or was set to 0) or
// delayed. A message that is gone fails it; use AssertDeleted for that.
func AssertNotInFlight(t TestingT, f *Fake, queue, messageID string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	l := f.locate(queue, messageID)
	if l.held && l.info.State != StateInFlight {
		return true
	}
	var b strings.Builder
	if l.queueExists {
		fmt.Fprintf(&b, "expected message %s not to be in flight in queue %s, but ", messageID, l.queueName)
	}
	return fail(t, l.explainState(&b, queue), msgAndArgs)
}

// AssertVisibleAt asserts that the message with the given MessageId, delayed or in flight in
// the queue, becomes visible exactly at the instant at on the fake's clock: the end of its
// delay or of its visibility timeout.
func AssertVisibleAt(t TestingT, f *Fake, queue, messageID string, at time.Time, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	l := f.locate(queue, messageID)
	if l.held && l.info.State != StateVisible && l.info.VisibleAt.Equal(at) {
		return true
	}
	var b strings.Builder
	if l.queueExists {
		fmt.Fprintf(&b, "expected message %s in queue %s to become visible at %s, but ", messageID, l.queueName, formatTime(at))
	}
	return fail(t, l.explainState(&b, queue), msgAndArgs)
}

// AssertMovedToDLQ asserts that the message with the given MessageId was dead-lettered by a
// receive, and that queue is either end of the move: the source queue whose RedrivePolicy
// moved it, or the dead-letter queue it was moved to. It holds while the message sits in the
// dead-letter queue (with that DeadLetterQueueSourceArn), and after it left, from its
// timeline (it may have been deleted or redriven from the DLQ since).
func AssertMovedToDLQ(t TestingT, f *Fake, queue, messageID string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	l := f.locate(queue, messageID)
	if l.holder != "" && l.info.DeadLetterSourceArn != "" &&
		(lastSegment(l.info.DeadLetterSourceArn) == l.queueName || l.held) {
		return true
	}
	for _, e := range l.timeline.Events {
		if e.Kind == EventMovedToDLQ && (e.Queue == l.queueName || e.ToQueue == l.queueName) {
			return true
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "expected message %s to have been moved to a dead-letter queue from or into queue %s, but ", messageID, l.queueName)
	switch {
	case !l.known:
		b.WriteString("this fake never stored a message with that MessageId")
	case l.holder != "":
		fmt.Fprintf(&b, "it is in queue %s, %s", l.holder, describeMessage(l.info))
		if l.info.DeadLetterSourceArn != "" {
			fmt.Fprintf(&b, ", dead-lettered from %s", l.info.DeadLetterSourceArn)
		}
	default:
		fmt.Fprintf(&b, "no queue holds it (%s)", l.departure())
	}
	switch {
	case !l.queueExists:
		fmt.Fprintf(&b, "\nqueue %s does not exist", l.queueName)
	case l.redrivePolicy == "":
		fmt.Fprintf(&b, "\nqueue %s has no RedrivePolicy", l.queueName)
	default:
		fmt.Fprintf(&b, "\nqueue %s has RedrivePolicy %s", l.queueName, l.redrivePolicy)
	}
	b.WriteString("\n")
	b.WriteString(l.timeline.String())
	return fail(t, b.String(), msgAndArgs)
}

// AssertDeleted asserts that the message with the given MessageId was deleted with
// DeleteMessage (or DeleteMessageBatch) and that no queue holds it. A message that left its
// queue another way — purged, expired, its queue deleted — fails it.
func AssertDeleted(t TestingT, f *Fake, messageID string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	l := f.locate("", messageID)
	if l.holder == "" && l.timeline.Has(EventDeleted) {
		return true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "expected message %s to have been deleted, but ", messageID)
	switch {
	case !l.known:
		b.WriteString("this fake never stored a message with that MessageId")
	case l.holder != "":
		fmt.Fprintf(&b, "it is still in queue %s, %s", l.holder, describeMessage(l.info))
	default:
		fmt.Fprintf(&b, "it left its queue without a DeleteMessage (%s)", l.departure())
	}
	b.WriteString("\n")
	b.WriteString(l.timeline.String())
	return fail(t, b.String(), msgAndArgs)
}

var errorType = reflect.TypeFor[error]()

// AssertLastError asserts that the last error an operation call on the fake returned (see
// LastError) matches target. A pointer target is matched with errors.As and receives the
// error, as in
//
//	var missing *types.QueueDoesNotExist
//	sqsfake.AssertLastError(t, f, &missing)
//
// or new(*types.QueueDoesNotExist); a ServiceError such as ErrThrottled, or a string such as
// "AWS.SimpleQueueService.NonExistentQueue", matches any error with that ErrorCode; any
// other error value is matched with errors.Is (ErrLostResponse).
func AssertLastError(t TestingT, f *Fake, target any, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	last := f.LastError()
	want, matched, bad := matchError(last, target)
	if bad != "" {
		return fail(t, "AssertLastError: "+bad, msgAndArgs)
	}
	if matched {
		return true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "expected the last error to be %s, but ", want)
	if last == nil {
		b.WriteString("no call has failed on the service's side")
	} else {
		fmt.Fprintf(&b, "it is: %v", last)
		var api smithy.APIError
		if errors.As(last, &api) {
			fmt.Fprintf(&b, "\n(%T, ErrorCode %s)", api, api.ErrorCode())
		}
	}
	return fail(t, b.String(), msgAndArgs)
}

// matchError matches err against an assertion's target (see AssertLastError). It returns
// what the target wants, in words, whether err matched, and what is wrong with a target of
// no kind it knows.
func matchError(err error, target any) (want string, matched bool, bad string) {
	switch tgt := target.(type) {
	case *sqsError:
		return "an SQS error with ErrorCode " + tgt.code, hasErrorCode(err, tgt.code), ""
	case string:
		if tgt == "" {
			return "", false, "the error code must not be empty"
		}
		return "an SQS error with ErrorCode " + tgt, hasErrorCode(err, tgt), ""
	}
	v := reflect.ValueOf(target)
	switch {
	case target != nil && v.Kind() == reflect.Pointer && !v.IsNil() &&
		(v.Type().Elem().Kind() == reflect.Interface || v.Type().Elem().Implements(errorType)):
		return "an error of type " + v.Type().Elem().String() + " (errors.As)", err != nil && errors.As(err, target), ""
	case target != nil && v.Type().Implements(errorType):
		want = fmt.Sprintf("an error that is %q (errors.Is)", target)
		if v.Kind() == reflect.Pointer && v.Type().Elem().PkgPath() == sqsTypesPath {
			// errors.Is compares identity; a typed SDK error is matched by its type.
			want += "; to match any error of its type, pass new(" + v.Type().String() + ")"
		}
		return want, errors.Is(err, target.(error)), ""
	}
	return "", false, fmt.Sprintf("target must be a non-nil pointer to an error type or an interface, an error, or an error code; got %T", target)
}

// hasErrorCode reports whether err is an SQS error with the given ErrorCode.
func hasErrorCode(err error, code string) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == code
}

// RequireVisibleCount is AssertVisibleCount, stopping the test when it fails.
func RequireVisibleCount(t RequireT, f *Fake, queue string, n int, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertVisibleCount(t, f, queue, n, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireInFlightCount is AssertInFlightCount, stopping the test when it fails.
func RequireInFlightCount(t RequireT, f *Fake, queue string, n int, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertInFlightCount(t, f, queue, n, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireDelayedCount is AssertDelayedCount, stopping the test when it fails.
func RequireDelayedCount(t RequireT, f *Fake, queue string, n int, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertDelayedCount(t, f, queue, n, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireQueueEmpty is AssertQueueEmpty, stopping the test when it fails.
func RequireQueueEmpty(t RequireT, f *Fake, queue string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertQueueEmpty(t, f, queue, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireReceiveCount is AssertReceiveCount, stopping the test when it fails.
func RequireReceiveCount(t RequireT, f *Fake, queue, messageID string, n int, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertReceiveCount(t, f, queue, messageID, n, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireInFlight is AssertInFlight, stopping the test when it fails.
func RequireInFlight(t RequireT, f *Fake, queue, messageID string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertInFlight(t, f, queue, messageID, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireNotInFlight is AssertNotInFlight, stopping the test when it fails.
func RequireNotInFlight(t RequireT, f *Fake, queue, messageID string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertNotInFlight(t, f, queue, messageID, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireVisibleAt is AssertVisibleAt, stopping the test when it fails.
func RequireVisibleAt(t RequireT, f *Fake, queue, messageID string, at time.Time, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertVisibleAt(t, f, queue, messageID, at, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireMovedToDLQ is AssertMovedToDLQ, stopping the test when it fails.
func RequireMovedToDLQ(t RequireT, f *Fake, queue, messageID string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertMovedToDLQ(t, f, queue, messageID, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireDeleted is AssertDeleted, stopping the test when it fails.
func RequireDeleted(t RequireT, f *Fake, messageID string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertDeleted(t, f, messageID, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireLastError is AssertLastError, stopping the test when it fails.
func RequireLastError(t RequireT, f *Fake, target any, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertLastError(t, f, target, msgAndArgs...) {
		t.FailNow()
	}
}

// fail reports a failed assertion, with the caller's message after it, as testify does.
func fail(t TestingT, failure string, msgAndArgs []any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	text := "sqsfake: " + failure
	if m := messageFromMsgAndArgs(msgAndArgs); m != "" {
		text += "\nMessages: " + m
	}
	t.Errorf("%s", text)
	return false
}

// messageFromMsgAndArgs formats msgAndArgs as testify does: a lone value as it is, a first
// string as the format of the rest. Where testify panics (a format that is not a string),
// it prints the values.
func messageFromMsgAndArgs(msgAndArgs []any) string {
	switch {
	case len(msgAndArgs) == 0:
		return ""
	case len(msgAndArgs) == 1:
		if s, ok := msgAndArgs[0].(string); ok {
			return s
		}
		return fmt.Sprintf("%+v", msgAndArgs[0])
	}
	if format, ok := msgAndArgs[0].(string); ok {
		return fmt.Sprintf(format, msgAndArgs[1:]...)
	}
	return fmt.Sprintf("%+v", msgAndArgs)
}

// maxListed bounds how many messages, and how many timelines, a failure prints.
const maxListed = 20

// describeQueue lists a queue's messages with their states, and the timelines of the ones in
// flight.
func (f *Fake) describeQueue(ref string) string {
	info, err := f.Queue(ref)
	if err != nil {
		return strings.TrimPrefix(err.Error(), "sqsfake: ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "queue %s at %s: %d visible, %d in flight, %d delayed", info.Name, formatTime(f.Now()),
		info.Visible, info.InFlight, info.Delayed)
	var inFlight []string
	for i, m := range info.Messages {
		if m.State == StateInFlight {
			inFlight = append(inFlight, m.MessageID)
		}
		if i == maxListed {
			fmt.Fprintf(&b, "\n  … and %d more", len(info.Messages)-maxListed)
			continue
		}
		if i > maxListed {
			continue
		}
		fmt.Fprintf(&b, "\n  %s  %s, body %s", m.MessageID, describeMessage(m), shortBody(m.Body))
	}
	for i, id := range inFlight {
		if i == maxListed {
			fmt.Fprintf(&b, "\n(%d more timelines left out)", len(inFlight)-maxListed)
			break
		}
		b.WriteString("\n")
		b.WriteString(f.Timeline(id).String())
	}
	return b.String()
}

// noSuchQueue says that ref names no queue, and which queues there are.
func (f *Fake) noSuchQueue(ref string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.noQueueText(ref)
}

// located is what an assertion about one message found, all read at one instant.
type located struct {
	queueName     string // the queue the assertion names (its name, when it does not exist)
	queueExists   bool
	redrivePolicy string
	known         bool        // the fake has stored a message with this MessageId
	held          bool        // the named queue holds it
	holder        string      // the queue that holds it, whichever it is; "" when none
	info          MessageInfo // its snapshot, when a queue holds it
	timeline      Timeline
	now           time.Time
}

// locate finds the message with the given MessageId and reads what the assertions need
// about it and about the queue named by ref ("" for none), under one lock.
func (f *Fake) locate(ref, messageID string) located {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settleAll()
	return f.locateLocked(ref, messageID)
}

// locateLocked is locate with f.mu held and the queues brought up to the clock's time.
func (f *Fake) locateLocked(ref, messageID string) located {
	now := f.now()
	l := located{queueName: lastSegment(ref), now: time.Unix(0, now).UTC()}
	q := f.lookupQueue(ref)
	if q != nil {
		l.queueName, l.queueExists = q.name, true
		l.redrivePolicy, _ = q.attribute(attrRedrivePolicy)
	}
	n, ok := f.idNumOf(messageID)
	if !ok {
		l.timeline = Timeline{MessageID: messageID}
		return l
	}
	l.known = true
	for _, hq := range f.sortedQueues() {
		if m := hq.msgs[n]; m != nil {
			l.holder, l.held, l.info = hq.name, hq == q, f.messageInfo(hq, m)
			break
		}
	}
	l.timeline = f.timeline(messageID)
	return l
}

// wasIn reports whether the message's timeline shows it in the named queue.
func (l located) wasIn() bool {
	for _, e := range l.timeline.Events {
		if e.Queue == l.queueName {
			return true
		}
	}
	return false
}

// receiveCount is the message's receive count in the named queue: from the snapshot while
// the queue holds it, else the count of its last receive from that queue in its timeline.
func (l located) receiveCount() (int, bool) {
	if l.held {
		return l.info.ReceiveCount, true
	}
	if !l.wasIn() {
		return 0, false
	}
	n := 0
	for _, e := range l.timeline.Events {
		if e.Kind == EventReceived && e.Queue == l.queueName {
			n = e.ReceiveCount
		}
	}
	return n, true
}

// departure says how the message left its last queue, from its timeline.
func (l located) departure() string {
	e, ok := l.timeline.Last()
	if !ok {
		return "it has no history"
	}
	switch e.Kind {
	case EventDeleted, EventPurged, EventExpired, EventQueueDeleted:
		return fmt.Sprintf("%s at %s", e.Kind, formatTime(e.At))
	case EventRedriven:
		return fmt.Sprintf("redriven to %s as message %s at %s", e.ToQueue, e.NewMessageID, formatTime(e.At))
	}
	return fmt.Sprintf("last event: %s", e.Kind)
}

// explain appends where the message is and its timeline to b.
func (l located) explain(b *strings.Builder) string {
	switch {
	case !l.known:
		b.WriteString("\nthis fake never stored a message with that MessageId")
	case l.holder != "":
		fmt.Fprintf(b, "\nit is in queue %s, %s", l.holder, describeMessage(l.info))
	default:
		fmt.Fprintf(b, "\nno queue holds it (%s)", l.departure())
	}
	b.WriteString("\n")
	b.WriteString(l.timeline.String())
	return b.String()
}

// explainState completes a failure about the message's state in the named queue: b ends in
// "but " when the queue exists.
func (l located) explainState(b *strings.Builder, ref string) string {
	switch {
	case !l.queueExists:
		b.Reset()
		fmt.Fprintf(b, "queue %s does not exist", ref)
		if l.holder != "" {
			fmt.Fprintf(b, "; message %s is in queue %s, %s", l.info.MessageID, l.holder, describeMessage(l.info))
		}
	case !l.known:
		b.WriteString("this fake never stored a message with that MessageId")
	case l.held:
		fmt.Fprintf(b, "it is %s (now %s)", describeMessage(l.info), formatTime(l.now))
	case l.holder != "":
		fmt.Fprintf(b, "it is not in that queue: it is in queue %s, %s", l.holder, describeMessage(l.info))
	default:
		fmt.Fprintf(b, "no queue holds it (%s)", l.departure())
	}
	b.WriteString("\n")
	b.WriteString(l.timeline.String())
	return b.String()
}

// describeMessage describes a message's state in a few words.
func describeMessage(m MessageInfo) string {
	var s string
	switch m.State {
	case StateInFlight:
		s = "in flight until " + formatTime(m.VisibleAt)
	case StateDelayed:
		s = "delayed until " + formatTime(m.VisibleAt)
	default:
		s = m.State.String()
	}
	return fmt.Sprintf("%s, received %s", s, plural(m.ReceiveCount, "time"))
}

func shortBody(body string) string {
	const max = 40
	if r := []rune(body); len(r) > max {
		return fmt.Sprintf("%q…", string(r[:max]))
	}
	return fmt.Sprintf("%q", body)
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// lastSegment returns the queue name at the end of a queue URL or ARN (or a name itself).
func lastSegment(ref string) string {
	if i := strings.LastIndexAny(strings.TrimSuffix(ref, "/"), "/:"); i >= 0 {
		return strings.TrimSuffix(ref, "/")[i+1:]
	}
	return ref
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

package snsfake

import (
	"container/heap"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
)

// HTTP/S delivery on the fake's clock (SPEC-sns.md §14).
//
// Each message on its way to an http or https subscription — a notification, a
// SubscriptionConfirmation — is a job with its own schedule: its first attempt at the
// publish (or Subscribe) instant, each retry when the fake's clock reaches it, as the
// effective DeliveryPolicy says. Jobs wait in one heap ordered by (due instant, sequence);
// attempts are made one at a time, outside s.mu (an endpoint's handler may call the fake),
// by whoever drains the heap: the call that made a job due now (Publish, PublishBatch,
// Subscribe), or a move of the clock, which the fake follows as package lambdasqs's
// triggers do — companion.OnMove calls onMove at each instant a move passes through; on a
// VirtualClock (and a RealClock) a timer armed at the next due instant stops the move there,
// on a benbjohnson mock the fake steps to the instant onMove returns. So a schedule is the
// same whether the clock moves by f.Advance, by the clock's own Add, or by the server's
// /_sqsfake/advance, and never waits in real time.

// AttemptResult is what one POST to an HTTP/S endpoint came to.
type AttemptResult uint8

// The results of an attempt.
const (
	// AttemptDelivered: the endpoint answered 2xx, or 3xx (SNS follows no redirect, and a
	// status in 200–4xx is no failure).
	AttemptDelivered AttemptResult = iota + 1
	// AttemptFailed: no answer (a refused or dropped connection, SNS's 15-second timeout),
	// or 429, 5xx or 1xx: SNS retries it by its policy.
	AttemptFailed
	// AttemptRefused: the endpoint answered another 4xx, a permanent failure SNS does not
	// retry: the message goes to the dead-letter queue, if any (SPEC-sns.md §14.3).
	AttemptRefused
)

// String names the result.
func (r AttemptResult) String() string {
	switch r {
	case AttemptDelivered:
		return "delivered"
	case AttemptFailed:
		return "failed"
	case AttemptRefused:
		return "refused"
	}
	return fmt.Sprintf("AttemptResult(%d)", uint8(r))
}

// MarshalText writes the result's name.
func (r AttemptResult) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Attempt is one POST to an HTTP/S endpoint.
type Attempt struct {
	// N is 1 for the first attempt, 2 for the first retry, ….
	N int
	// Time is the instant it was made, on the fake's clock.
	Time  time.Time
	Phase Phase
	// Status is the endpoint's HTTP status; 0 when it gave none.
	Status int
	// Error says why there is no status (a refused or dropped connection, the 15-second
	// timeout, a handler's panic, an injected fault), or what a status meant.
	Error  string
	Result AttemptResult
	// Held is how long the subscription's throttle policy held the attempt back after its
	// due instant.
	Held time.Duration `json:",omitempty"`
}

// String renders the attempt on one line, as the assertions print it.
func (a Attempt) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s: ", a.N, timestamp(a.Time), a.Phase)
	if a.Status != 0 {
		fmt.Fprintf(&b, "%d ", a.Status)
	}
	b.WriteString(a.Result.String())
	if a.Error != "" {
		b.WriteString(" (" + a.Error + ")")
	}
	if a.Held > 0 {
		fmt.Fprintf(&b, "; held %v by the throttle policy", a.Held)
	}
	return b.String()
}

// messageLifetime: "The maximum lifetime of a message in the system is one hour" — no
// attempt is made later than this after the first (SPEC-sns.md §14.4).
const messageLifetime = time.Hour

// The message types SNS POSTs (x-amz-sns-message-type).
const (
	typeNotification = "Notification"
	typeConfirmation = "SubscriptionConfirmation"
)

// deliverOperation is each POST's name in the queue fake's call record and faults.
const deliverOperation = "SNS.Deliver"

// httpJob is one message on its way to one HTTP/S subscription.
type httpJob struct {
	seq   uint64 // order among jobs due at the same instant
	due   int64  // the next attempt's instant, ns since 1970
	index int    // in the heap; -1 when not queued
	phase Phase  // the next attempt's

	sub         *subscription
	kind        string // typeNotification or typeConfirmation
	messageID   string
	body        string
	raw         bool
	contentType string
	policy      httpPolicy
	rawAttrs    map[string]sqstypes.MessageAttributeValue // a raw notification's attributes, for the dead-letter queue
	start       int64                                     // the first attempt's instant
	ended       int64                                     // when the last attempt ended (+15 s for a timeout)
	held        int64                                     // how long the throttle has held the next attempt

	attempts []Attempt
	outcome  Outcome
	reason   string
	dlqArn   string
	sqsID    string
}

// jobHeap orders jobs by due instant, then sequence.
type jobHeap []*httpJob

func (h jobHeap) Len() int { return len(h) }
func (h jobHeap) Less(i, j int) bool {
	return h[i].due < h[j].due || h[i].due == h[j].due && h[i].seq < h[j].seq
}
func (h jobHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *jobHeap) Push(x any) {
	j := x.(*httpJob)
	j.index = len(*h)
	*h = append(*h, j)
}
func (h *jobHeap) Pop() any {
	old := *h
	j := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	j.index = -1
	return j
}

// httpDeliveries is the fake's delivery state; s.mu guards it but queued, which a call
// reads without the lock to skip draining when nothing waits.
type httpDeliveries struct {
	jobs     jobHeap
	seq      uint64
	queued   atomic.Int32
	draining bool
	detach   func() // the OnMove function, registered with the first job
	wakeAt   int64  // the instant the clock timer is armed at; 0: none
	stopWake func()
	gen      uint64 // Reset's generation: a drain of an older one records nothing

	waitTimer *time.Timer // the drainer's, for HandlerWait (serveMemory); not s.mu's
}

// schedule queues j for its next attempt at due. s.mu is held.
func (s *Fake) schedule(j *httpJob, due int64, phase Phase) {
	hd := &s.hd
	hd.seq++
	j.seq, j.due, j.phase = hd.seq, due, phase
	heap.Push(&hd.jobs, j)
	hd.queued.Add(1)
	if hd.detach == nil {
		hd.detach = companion.OnMove(s.sq, s.onMove)
	}
}

// newJob starts the delivery of a message to an HTTP/S subscription at now. s.mu is held.
func (s *Fake) newJob(sub *subscription, kind, messageID, body string, raw bool, now int64) *httpJob {
	hp := effectivePolicy(sub.delivery, sub.t.delivery)
	j := &httpJob{sub: sub, kind: kind, messageID: messageID, body: body, raw: raw, policy: hp, start: now, ended: now,
		outcome: Retrying, index: -1, contentType: hp.contentType}
	if kind != typeNotification {
		j.contentType = DefaultContentType
	}
	s.schedule(j, now, PhaseInitial)
	return j
}

// runDue makes the attempts due by now, after a call that queued some (Publish,
// PublishBatch, Subscribe) has released s.mu: the first attempt is made at the publish
// instant, before the call returns.
//
// On a fake that follows a benbjohnson mock (companion.CatchesUp) it first brings the
// fake up to the mock's time, so that attempts due earlier are made at their own instants,
// and afterwards lets the fake arm its mock timer, so that the mock's next move steps to the
// next attempt.
func (s *Fake) runDue() {
	if s.hd.queued.Load() == 0 {
		return
	}
	catchesUp := companion.CatchesUp(s.sq)
	if catchesUp {
		companion.CatchUp(s.sq)
	}
	s.drain()
	if catchesUp {
		companion.CatchUp(s.sq)
	}
}

// onMove is the fake's step at an instant a move of the clock passes through (companion.OnMove):
// it makes the attempts due by then and returns the next due instant — or now, when an
// endpoint called the fake meanwhile, so that every companion looks again at this instant.
func (s *Fake) onMove(now time.Time) time.Time {
	if s.hd.queued.Load() == 0 {
		return time.Time{}
	}
	calls := s.sq.CallCount()
	made := s.drain()
	s.mu.Lock()
	next := int64(0)
	if len(s.hd.jobs) > 0 {
		next = s.hd.jobs[0].due
	}
	s.mu.Unlock()
	if s.sq.CallCount()-calls > made {
		return now
	}
	if next == 0 {
		return time.Time{}
	}
	return time.Unix(0, next).In(now.Location())
}

// drain makes every attempt due by the fake's current time, in (due, sequence) order, and
// arms the clock for the next; it returns how many it made. One drain runs at a time: a
// call made meanwhile (an endpoint's Publish, say) queues its job, which the running drain
// makes.
func (s *Fake) drain() int {
	s.mu.Lock()
	if s.hd.draining {
		s.mu.Unlock()
		return 0
	}
	s.hd.draining = true
	gen := s.hd.gen
	made := 0
	for len(s.hd.jobs) > 0 {
		now := s.sq.Now().UnixNano()
		j := s.hd.jobs[0]
		if j.due > now {
			break
		}
		heap.Pop(&s.hd.jobs)
		s.hd.queued.Add(-1)
		req, ok := s.prepare(j, now)
		if !ok {
			continue
		}
		s.mu.Unlock()
		res := s.post(j, req, now)
		made++
		s.mu.Lock()
		if s.hd.gen != gen {
			break // Reset meanwhile: the job is gone with the rest
		}
		s.settle(j, res, now)
	}
	s.hd.draining = false
	next := int64(0)
	if len(s.hd.jobs) > 0 {
		next = s.hd.jobs[0].due
	}
	s.rearm(next)
	s.mu.Unlock()
	return made
}

// rearm keeps one timer armed on the fake's clock at the next due instant, so that a move
// of a VirtualClock (or the passing of a RealClock) stops there; on a fake that catches up
// with a benbjohnson mock the fake steps to onMove's answer instead. s.mu is held.
func (s *Fake) rearm(at int64) {
	hd := &s.hd
	if hd.wakeAt == at {
		return
	}
	if hd.stopWake != nil {
		hd.stopWake()
		hd.stopWake = nil
	}
	hd.wakeAt = at
	if at == 0 || companion.CatchesUp(s.sq) {
		return
	}
	timed, cancel := s.sq.Clock().WithDeadline(context.Background(), time.Unix(0, at))
	fire := func() {
		s.mu.Lock()
		if hd.wakeAt == at {
			hd.wakeAt, hd.stopWake = 0, nil
		}
		s.mu.Unlock()
		s.onMove(s.sq.Now())
	}
	var stop func() bool
	if a, ok := timed.(interface{ AfterFunc(func()) func() bool }); ok {
		stop = a.AfterFunc(fire)
	} else {
		stop = context.AfterFunc(timed, fire)
	}
	hd.stopWake = func() { stop(); cancel() } // unregister first: cancel would run fire
}

// attemptRequest is what an attempt sends, prepared under s.mu.
type attemptRequest struct {
	endpoint, key string // the URL, and as handlerFor compares it
	url           *url.URL
	urlErr        error
	header        http.Header
	held          time.Duration
}

// prepare decides whether j's attempt due now is made: its subscription still wants it,
// its message is under an hour old, the throttle lets it through (else it is queued again
// for the next window). s.mu is held.
func (s *Fake) prepare(j *httpJob, now int64) (attemptRequest, bool) {
	sub := j.sub
	switch {
	case s.subs[sub.arn] != sub:
		s.giveUp(j, "the subscription was deleted", false)
		return attemptRequest{}, false
	case j.kind == typeConfirmation && !sub.pending:
		s.finish(j, Delivered, "the subscription was confirmed meanwhile: SNS sends no more confirmations")
		return attemptRequest{}, false
	case now-j.start > int64(messageLifetime):
		s.giveUp(j, "the message's lifetime of one hour ended before its next attempt", true)
		return attemptRequest{}, false
	}
	if rate := j.policy.throttle; rate > 0 && j.kind == typeNotification {
		window := now / int64(time.Second)
		if sub.throttleWindow != window {
			sub.throttleWindow, sub.throttleCount = window, 0
		}
		if sub.throttleCount >= rate {
			next := (window + 1) * int64(time.Second)
			j.held += next - now
			if next-j.start > int64(messageLifetime) {
				s.giveUp(j, "the throttle policy held the message for more than an hour", true)
				return attemptRequest{}, false
			}
			s.schedule(j, next, j.phase)
			return attemptRequest{}, false
		}
		sub.throttleCount++
	}
	// AWS's headers (SPEC-sns.md §14.2), their values in one array.
	vals := make([]string, 0, 8)
	h := make(http.Header, 9)
	add := func(k, v string) {
		vals = append(vals, v)
		h[k] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	add("X-Amz-Sns-Message-Type", j.kind)
	add("X-Amz-Sns-Message-Id", j.messageID)
	add("X-Amz-Sns-Topic-Arn", sub.t.arn)
	if j.kind != typeConfirmation {
		add("X-Amz-Sns-Subscription-Arn", sub.arn)
	}
	if j.raw {
		add("X-Amz-Sns-Rawdelivery", "true")
	}
	add("Content-Type", j.contentType)
	add("User-Agent", "Amazon Simple Notification Service Agent")
	add("Accept-Encoding", "gzip,deflate")
	held := time.Duration(j.held)
	j.held = 0
	if sub.endpointKey == "" {
		sub.endpointKey = normalizeEndpoint(sub.endpoint)
		sub.endpointURL, sub.endpointErr = url.Parse(sub.endpoint)
	}
	return attemptRequest{endpoint: sub.endpoint, key: sub.endpointKey, url: sub.endpointURL, urlErr: sub.endpointErr, header: h, held: held}, true
}

// DeliveryAttempt is the input of an "SNS.Deliver" call in the queue fake's call record,
// one per POST to an HTTP/S endpoint: what a Fault's Match sees.
type DeliveryAttempt struct {
	SubscriptionArn, Endpoint string
	// MessageType is "Notification" or "SubscriptionConfirmation".
	MessageType string
	MessageID   string
	// N is the attempt's number, 1 for the first.
	N     int
	Phase Phase
}

// EndpointStatus returns an error that, as the Err of a fault injected on "SNS.Deliver",
// makes the attempt come back with that HTTP status, as if the endpoint had answered it
// (the endpoint is not called). Any other Err fails the attempt as a refused connection.
func EndpointStatus(code int) error { return endpointStatus(code) }

type endpointStatus int

func (e endpointStatus) Error() string {
	return fmt.Sprintf("the endpoint answered %d %s", int(e), http.StatusText(int(e)))
}

// post makes one attempt: an "SNS.Deliver" call in the queue fake's call record, whose
// injected fault may fail it, then the POST, in memory or over the network. It runs
// outside s.mu.
func (s *Fake) post(j *httpJob, req attemptRequest, now int64) (res attemptResult) {
	n := len(j.attempts) + 1
	in := &DeliveryAttempt{SubscriptionArn: j.sub.arn, Endpoint: req.endpoint, MessageType: j.kind, MessageID: j.messageID, N: n, Phase: j.phase}
	sc := companion.BeginServiceCall(s.sq, deliverOperation, sqsfake.DoorMethods, nil, in, true)
	defer sc.End(nil) // a failed attempt is the endpoint's failure, not the caller's error
	res.held = req.held
	lose := false
	if fl := sc.Fault; fl != nil {
		switch {
		case fl.Err != nil && !fl.LoseResponse:
			if code, ok := fl.Err.(endpointStatus); ok {
				res.answer = answer{status: int(code)}
			} else {
				res.answer = answer{err: "injected fault: " + fl.Err.Error()}
			}
			res.fault = true
			return res
		case fl.Latency >= endpointTimeout:
			lose = true // the endpoint gets the POST; its answer comes too late for SNS
		case fl.LoseResponse:
			lose = true
		}
	}
	res.answer = s.postTo(j, req)
	if lose {
		res.answer = answer{timeout: true, err: "injected fault: the endpoint's answer (" + describeAnswer(res.answer) + ") never reached SNS"}
	}
	return res
}

func describeAnswer(a answer) string {
	if a.status != 0 {
		return fmt.Sprint(a.status)
	}
	return a.err
}

type attemptResult struct {
	answer
	held  time.Duration
	fault bool
}

// postTo POSTs j's message to the endpoint: to its in-memory handler, else over the network
// when allowed, else it fails as a refused connection.
func (s *Fake) postTo(j *httpJob, req attemptRequest) answer {
	e := &s.endpoints
	h := e.handlerForKey(req.key)
	e.mu.RLock()
	wait, client := e.cfg.HandlerWait, e.client
	e.mu.RUnlock()
	if h == nil && client == nil {
		return answer{err: "connection refused: no handler is registered for " + req.endpoint + " (snsfake.Fake.HandleEndpoint), and HTTPDelivery.Network is off"}
	}
	if req.urlErr != nil {
		return answer{err: "the endpoint's URL does not parse: " + req.urlErr.Error()}
	}
	u := new(url.URL)
	*u = *req.url // the request's own, as a server gives each
	catchesUp := companion.CatchesUp(s.sq)
	ctx := &attemptCtx{Context: stepContext(catchesUp)}
	defer ctx.cancel()
	r := new(http.Request).WithContext(ctx)
	r.Method, r.URL, r.Proto, r.ProtoMajor, r.ProtoMinor = http.MethodPost, u, "HTTP/1.1", 1, 1
	r.Header, r.Body, r.ContentLength, r.Host = req.header, http.NoBody, int64(len(j.body)), u.Host
	if u.User != nil {
		pw, _ := u.User.Password()
		r.SetBasicAuth(u.User.Username(), pw) // SNS sends the URL's credentials (SPEC-sns.md §14.2)
	}
	if h == nil {
		r.Body = stringBody(j.body)
		return serveNetwork(client, r)
	}
	r.Body = stringBody(j.body)
	r.RequestURI = u.RequestURI()
	r.RemoteAddr = "192.0.2.1:443" // TEST-NET-1: SNS's address is its own
	if wait <= 0 {
		wait = DefaultHandlerWait
	}
	return s.serveMemory(h, r, wait)
}

// settle records an attempt's result and decides what comes next: done, another attempt
// by the retry policy, or the dead-letter queue. s.mu is held.
func (s *Fake) settle(j *httpJob, res attemptResult, now int64) {
	a := Attempt{N: len(j.attempts) + 1, Time: time.Unix(0, now).In(s.sq.Now().Location()), Phase: j.phase, Status: res.status,
		Error: capError(res.err), Held: res.held}
	switch st := res.status; {
	case st >= 200 && st < 400:
		a.Result = AttemptDelivered
	case st == http.StatusTooManyRequests, st >= 500, st != 0 && st < 200:
		a.Result = AttemptFailed
	case st >= 400:
		a.Result = AttemptRefused
		if a.Error == "" {
			a.Error = "a 4xx other than 429 is a permanent failure: SNS does not retry it"
		}
	default:
		a.Result = AttemptFailed
	}
	j.attempts = append(j.attempts, a)
	j.ended = now
	if res.timeout {
		j.ended = now + int64(endpointTimeout)
	}
	switch a.Result {
	case AttemptDelivered:
		s.finish(j, Delivered, "")
		return
	case AttemptRefused:
		s.giveUp(j, fmt.Sprintf("the endpoint answered %d: a permanent failure, not retried", res.status), true)
		return
	}
	k := len(j.attempts) // the retry to make next
	if k > j.policy.retry.NumRetries {
		s.giveUp(j, fmt.Sprintf("the retry policy is exhausted after %d attempt(s)", len(j.attempts)), true)
		return
	}
	r := j.policy.retry.retry(k)
	s.schedule(j, j.ended+int64(r.Delay), r.Phase)
}

// finish ends j with its outcome. The record keeps its attempts; the message itself (for
// the POSTs and the dead-letter queue) goes.
func (s *Fake) finish(j *httpJob, o Outcome, reason string) {
	j.outcome, j.reason = o, reason
	j.body, j.rawAttrs = "", nil
}

// maxAttemptError bounds what an attempt keeps of an error — a panic's value, a network
// error — so that an endpoint cannot grow the record: its first bytes, cut at a character.
const maxAttemptError = 256

func capError(e string) string {
	if len(e) <= maxAttemptError {
		return e
	}
	n := maxAttemptError
	for n > 0 && !utf8.RuneStart(e[n]) {
		n--
	}
	return e[:n] + "…"
}

// giveUp ends j undelivered: into the subscription's dead-letter queue, if it has one and
// the message is a notification (dlq), with the body and attributes the endpoint would have
// got (SPEC-sns.md §14.6); else discarded. s.mu is held.
func (s *Fake) giveUp(j *httpJob, why string, dlq bool) {
	sub := j.sub
	if !dlq || j.kind != typeNotification || sub.dlqArn == "" {
		if j.kind != typeNotification && dlq {
			why += "; SNS does not dead-letter a confirmation"
		}
		s.finish(j, Discarded, why)
		return
	}
	in := &sqs.SendMessageInput{MessageBody: aws.String(j.body)}
	if j.raw && len(j.rawAttrs) > 0 {
		in.MessageAttributes = j.rawAttrs
	}
	id, err := s.sendAs(serviceContext(sub.t, sub.dlq.region), &sub.dlq, in)
	if err != nil {
		s.finish(j, Discarded, why+"; the dead-letter queue "+sub.dlqArn+" refused it: "+reasonOf(err))
		return
	}
	j.dlqArn, j.sqsID = sub.dlqArn, id
	s.finish(j, DeadLettered, why)
}

// fill completes a delivery's record from its job, for a caller outside the fake (the job
// goes on changing; the copy does not). s.mu is held.
func (d *Delivery) fill() {
	j := d.job
	if j == nil {
		return
	}
	d.job = nil
	d.Attempts = append([]Attempt(nil), j.attempts...)
	d.Outcome, d.Reason = j.outcome, j.reason
	d.DeadLetterQueue, d.SQSMessageID = j.dlqArn, j.sqsID
	if j.outcome == Retrying && j.index >= 0 {
		d.NextAttempt = time.Unix(0, j.due).In(time.UTC)
	}
}

func stringBody(s string) *bodyReader { return &bodyReader{s: s} }

// bodyReader is a request body over a string, read without copying it first.
type bodyReader struct {
	s string
	i int
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.i >= len(b.s) {
		return 0, io.EOF
	}
	n := copy(p, b.s[b.i:])
	b.i += n
	return n, nil
}

func (b *bodyReader) Close() error { return nil }

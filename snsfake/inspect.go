package snsfake

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sns/types"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
)

// Outcome is what became of a publication for one subscription.
type Outcome uint8

// The outcomes of a delivery.
const (
	// Delivered: the message is in the subscription's queue.
	Delivered Outcome = iota + 1
	// Filtered: the subscription's filter policy does not match the message: SNS does not
	// deliver it, and that is no failure.
	Filtered
	// Pending: the subscription awaits its confirmation and gets nothing.
	Pending
	// Lost: SQS refused the message — the queue does not exist (or was deleted), its policy
	// does not let the topic send, SQS rejected the message — and the subscription has no
	// dead-letter queue (or that refused it too). Publish still succeeded, as on AWS.
	Lost
	// DeadLettered: SQS refused the message — or, to an HTTP/S endpoint, SNS gave up on it
	// (its retry policy exhausted, a 4xx other than 429, its hour of lifetime over) — and it
	// went to the subscription's dead-letter queue (RedrivePolicy), with the body and
	// attributes it would have had.
	DeadLettered
	// Retrying: an HTTP/S delivery whose attempts so far failed and whose next is due at
	// NextAttempt on the fake's clock.
	Retrying
	// Discarded: SNS gave up on an HTTP/S delivery (see DeadLettered) and the subscription
	// has no dead-letter queue (or it refused the message), or the subscription went away
	// before the next attempt. Publish still succeeded, as on AWS.
	Discarded
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case Filtered:
		return "filtered"
	case Pending:
		return "pending"
	case Lost:
		return "lost"
	case DeadLettered:
		return "dead-lettered"
	case Retrying:
		return "retrying"
	case Discarded:
		return "discarded"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// MarshalText writes the outcome's name, as String does (for JSON, as the server's
// /_sqsfake/topics answers it).
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Delivery is what one publication did for one sqs, http or https subscription of its
// topic.
type Delivery struct {
	SubscriptionArn string
	// Endpoint is the subscribed queue's ARN, or the HTTP/S endpoint's URL.
	Endpoint string
	Raw      bool
	// FilterPolicy and FilterPolicyScope are the subscription's at the publish ("" when
	// it had no filter policy).
	FilterPolicy, FilterPolicyScope string
	Outcome                         Outcome
	// Reason says why a message was not delivered: the filter, the pending confirmation,
	// or SQS's error code and message.
	Reason string
	// Body is the beginning of the SQS message body, or the HTTP/S request body, SNS sent:
	// the envelope or, raw, the message — its first RecordedBodyBytes (the queue or the
	// endpoint has the message), and none for a Lost delivery, which no queue holds.
	// BodySize is the whole body's length in bytes.
	Body     string
	BodySize int
	// SQSMessageID is the MessageId of the SQS message, in the queue or in the
	// DeadLetterQueue.
	SQSMessageID    string
	DeadLetterQueue string
	// Attempts are an HTTP/S delivery's POSTs, oldest first, each with its instant, phase
	// and result (nil for a queue).
	Attempts []Attempt `json:",omitempty"`
	// NextAttempt is when a Retrying delivery makes its next attempt.
	NextAttempt time.Time `json:",omitzero"`

	job *httpJob // an HTTP/S delivery's state, which goes on changing (httpdelivery.go)
}

// Publication is one message published to a topic, or a SubscriptionConfirmation SNS sent,
// with what became of it for every sqs subscription of the topic at that moment.
type Publication struct {
	MessageID, SequenceNumber string
	TopicArn                  string
	Subject, Message          string
	MessageAttributes         map[string]types.MessageAttributeValue
	MessageGroupID            string
	// MessageDeduplicationID is the FIFO deduplication id: the one sent, or the SHA-256 of
	// the message that content-based deduplication computed.
	MessageDeduplicationID string
	Time                   time.Time
	// Duplicate reports a FIFO publish deduplicated against an earlier one: it got the
	// earlier MessageId and SequenceNumber and reached no subscription.
	Duplicate bool
	// Confirmation reports a SubscriptionConfirmation sent to a pending subscription.
	Confirmation bool
	Deliveries   []Delivery

	attrs []packedAttr // MessageAttributes as the record keeps them
	size  int          // what the record counts it as (record.go)
}

// Published returns the publications of a topic (its ARN, or its name in the fake's account
// and region; "" for every topic), oldest first, copied. A topic that does not exist, and
// that no publication in the record names (a deleted topic's stay), is an error that wraps
// ErrNoTopic and names the topics there are. HTTP/S deliveries come with their attempts so
// far; like the other inspections, on a fake that follows a benbjohnson mock it first
// catches up with the mock's own moves (companion.CatchUp), so that the attempts they
// made due are made.
func (s *Fake) Published(topic string) ([]Publication, error) {
	companion.CatchUp(s.sq) // on a benbjohnson mock, the HTTP/S attempts its own moves made due
	s.mu.Lock()
	defer s.mu.Unlock()
	arn := ""
	if topic != "" {
		var err error
		if arn, err = s.publishedTopicLocked(topic); err != nil {
			return nil, err
		}
	}
	var out []Publication
	for _, p := range s.rec.all() {
		if arn == "" || p.TopicArn == arn {
			p.MessageAttributes = unpackAttrs(p.attrs)
			p.Deliveries = cloneDeliveries(p.Deliveries)
			out = append(out, p)
		}
	}
	return out, nil
}

// publishedTopicLocked resolves the topic Published names: a topic of the fake, or one a
// publication in the record names. s.mu is held.
func (s *Fake) publishedTopicLocked(ref string) (string, error) {
	if t := s.topicByRefLocked(ref); t != nil {
		return t.arn, nil
	}
	for _, p := range s.rec.all() {
		if p.TopicArn == ref {
			return ref, nil
		}
	}
	return "", s.noTopicLocked(ref)
}

// Publication returns the publication with the MessageId Publish or PublishBatch answered
// (the first one: a duplicate shares its MessageId), or a SubscriptionConfirmation's. When
// nothing was published with it, the error wraps ErrNoPublication and says what the id is
// if the fake knows it otherwise (the SQS MessageId of a delivery), or lists the latest
// publications.
func (s *Fake) Publication(messageID string) (Publication, error) {
	companion.CatchUp(s.sq) // on a benbjohnson mock, the HTTP/S attempts its own moves made due
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.rec.all() {
		if p.MessageID == messageID {
			p.MessageAttributes = unpackAttrs(p.attrs)
			p.Deliveries = cloneDeliveries(p.Deliveries)
			return p, nil
		}
	}
	return Publication{}, s.noPublicationLocked(messageID)
}

// noPublicationLocked says that nothing was published with the MessageId id. s.mu is held.
func (s *Fake) noPublicationLocked(id string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "nothing was published with MessageId %s", id)
	for _, p := range s.rec.all() {
		for _, d := range p.Deliveries {
			if d.SQSMessageID != "" && d.SQSMessageID == id {
				fmt.Fprintf(&b, "; %s is the SQS MessageId of publication %s's delivery into %s (Publication takes the MessageId Publish answered: %s)",
					id, p.MessageID, d.Endpoint, p.MessageID)
				return &inspectError{text: b.String(), kind: ErrNoPublication}
			}
		}
	}
	if hint := s.whatIsLocked(id); hint != "" {
		b.WriteString("; " + hint)
	}
	pubs := s.rec.all()
	switch n := len(pubs); {
	case n == 0:
		b.WriteString("; the fake has no publications")
	default:
		b.WriteString("; the latest publications: ")
		for i := n - 1; i >= max(0, n-maxNamed/4); i-- {
			if i < n-1 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s (%s)", pubs[i].MessageID, pubs[i].TopicArn)
		}
		if n > maxNamed/4 {
			fmt.Fprintf(&b, ", … and %d more", n-maxNamed/4)
		}
	}
	return &inspectError{text: b.String(), kind: ErrNoPublication}
}

// Deliveries returns every delivery into a queue (its ARN or name; "" for all), oldest
// first, of every outcome. A queue that neither exists on the queue fake nor was ever
// subscribed is an error that wraps sqsfake.ErrNoQueue and names the queues the fake has, as
// the queue fake's inspections do — and says so when the argument is a publication's
// MessageId.
func (s *Fake) Deliveries(queue string) ([]Delivery, error) {
	companion.CatchUp(s.sq) // on a benbjohnson mock, the HTTP/S attempts its own moves made due
	s.mu.Lock()
	defer s.mu.Unlock()
	if queue != "" && !s.queueKnownLocked(queue) {
		return nil, s.noQueueLocked(queue)
	}
	var out []Delivery
	for _, p := range s.rec.all() {
		for _, d := range p.Deliveries {
			if queue == "" || queueMatches(d.Endpoint, queue) {
				d.fill()
				out = append(out, d)
			}
		}
	}
	return out, nil
}

// queueKnownLocked reports whether a queue (ARN or name) is one a subscription or a
// delivery names, or one the queue fake has. s.mu is held.
func (s *Fake) queueKnownLocked(ref string) bool {
	for _, sub := range s.subs {
		if queueMatches(sub.endpoint, ref) {
			return true
		}
	}
	for _, p := range s.rec.all() {
		for _, d := range p.Deliveries {
			if queueMatches(d.Endpoint, ref) {
				return true
			}
		}
	}
	_, err := s.sq.Queue(ref) // only when no subscription names it
	return err == nil
}

// noQueueLocked is the queue fake's error for a queue that does not exist, with what ref is
// if the fake knows it otherwise. s.mu is held.
func (s *Fake) noQueueLocked(ref string) error {
	_, err := s.sq.Queue(ref)
	if err == nil {
		err = fmt.Errorf("sqsfake: queue %s does not exist: %w", ref, sqsfake.ErrNoQueue)
	}
	text := strings.TrimPrefix(err.Error(), "sqsfake: ")
	if hint := s.whatIsLocked(ref); hint != "" {
		text += "; " + hint
	}
	return &inspectError{text: text, kind: sqsfake.ErrNoQueue}
}

// cloneDeliveries copies a publication's deliveries for a caller, HTTP/S ones as they stand.
// s.mu is held.
func cloneDeliveries(ds []Delivery) []Delivery {
	out := slices.Clone(ds)
	for i := range out {
		out[i].fill()
	}
	return out
}

func queueMatches(arn, ref string) bool {
	return arn == ref || strings.HasSuffix(arn, ":"+ref)
}

// ErrNoTopic is wrapped by the error of an inspection or assertion given a topic that does
// not exist: Topic, Published, AssertPublished, SubscribeQueue. The error's text names the
// topic and lists the topics the fake has, such as "snsfake: topic orderz does not exist;
// the fake has orders, payments".
var ErrNoTopic = errors.New("snsfake: no such topic")

// ErrNoPublication is wrapped by the error of Publication, and the failure of
// AssertDelivered and AssertNotDelivered, given a MessageId nothing was published with. The
// text says what the id is if the fake knows it otherwise, such as the SQS MessageId of a
// delivery, or lists the latest publications.
var ErrNoPublication = errors.New("snsfake: no such publication")

// inspectError is the error of an inspection: its text, and the sentinel it wraps.
type inspectError struct {
	text string
	kind error
}

func (e *inspectError) Error() string { return "snsfake: " + e.text }
func (e *inspectError) Unwrap() error { return e.kind }

// maxNamed bounds how many names an error lists.
const maxNamed = 20

// topicByRefLocked finds a topic by ARN, or by name in the fake's own account and region.
// s.mu is held.
func (s *Fake) topicByRefLocked(ref string) *topic {
	if t := s.topics[ref]; t != nil {
		return t
	}
	return s.topics[topicARN(companion.Region(s.sq), companion.AccountID(s.sq), ref)]
}

// noTopicLocked says that ref names no topic, which topics there are, and what ref is if the
// fake knows it otherwise. s.mu is held.
func (s *Fake) noTopicLocked(ref string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "topic %s does not exist; ", ref)
	arns := make([]string, 0, len(s.topics))
	for arn := range s.topics {
		arns = append(arns, arn)
	}
	slices.Sort(arns)
	if len(arns) == 0 {
		b.WriteString("the fake has no topics")
	} else {
		b.WriteString("the fake has ")
		var elsewhere []string
		own := topicARN(companion.Region(s.sq), companion.AccountID(s.sq), "")
		for i, arn := range arns {
			if i == maxNamed {
				fmt.Fprintf(&b, ", … and %d more", len(arns)-maxNamed)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			name, isOwn := strings.CutPrefix(arn, own)
			if !isOwn {
				name = arn
			}
			b.WriteString(name)
			if !isOwn && s.topics[arn].name == lastField(ref) {
				elsewhere = append(elsewhere, arn)
			}
		}
		if len(elsewhere) > 0 {
			fmt.Fprintf(&b, " (%s of another account or region: name it by its ARN, %s)", lastField(ref), strings.Join(elsewhere, " or "))
		}
	}
	if hint := s.whatIsLocked(ref); hint != "" {
		b.WriteString("; " + hint)
	}
	return &inspectError{text: b.String(), kind: ErrNoTopic}
}

// whatIsLocked says what else the fake knows ref as — a publication's MessageId, a
// subscription, a queue — for an error about a name it did not find; "" when nothing. s.mu
// is held.
func (s *Fake) whatIsLocked(ref string) string {
	for _, p := range s.rec.all() {
		if p.MessageID == ref {
			return ref + " is the MessageId of a publication to " + p.TopicArn + ": Publication(" + ref + ") has its deliveries"
		}
	}
	if sub := s.subs[ref]; sub != nil {
		return ref + " is a subscription of " + sub.t.arn + " to " + sub.endpoint
	}
	if strings.HasPrefix(ref, "arn:") && strings.Contains(ref, ":sqs:") {
		return ref + " is a queue's ARN"
	}
	if strings.HasPrefix(ref, "arn:") && strings.Contains(ref, ":sns:") {
		return ""
	}
	for _, sub := range s.subs {
		if queueMatches(sub.endpoint, ref) {
			return ref + " is a subscribed queue, " + sub.endpoint
		}
	}
	return ""
}

// lastField is what follows the last ':' of an ARN, or ref itself.
func lastField(ref string) string { return ref[strings.LastIndexByte(ref, ':')+1:] }

// TopicInfo is a snapshot of a topic.
type TopicInfo struct {
	Arn, Name, AccountID, Region string
	FIFO                         bool
	Attributes                   map[string]string // as GetTopicAttributes answers
	Tags                         map[string]string
	Subscriptions                []SubscriptionInfo
}

// SubscriptionInfo is a snapshot of a subscription.
type SubscriptionInfo struct {
	Arn, TopicArn, Protocol, Endpoint, Owner string
	Pending                                  bool
	// Token is the confirmation token of a pending subscription (what the
	// SubscriptionConfirmation carries), for a test to confirm it.
	Token      string
	Attributes map[string]string // as GetSubscriptionAttributes answers
}

// Topics returns every topic of every account and region, by ARN.
func (s *Fake) Topics() []TopicInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	arns := make([]string, 0, len(s.topics))
	for arn := range s.topics {
		arns = append(arns, arn)
	}
	slices.Sort(arns)
	out := make([]TopicInfo, 0, len(arns))
	for _, arn := range arns {
		out = append(out, s.topicInfo(s.topics[arn]))
	}
	return out
}

// Topic returns a topic by ARN or by name (in the fake's own account and region). When there
// is no such topic it returns an error that wraps ErrNoTopic and names the topics there are.
func (s *Fake) Topic(ref string) (TopicInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.topicByRefLocked(ref)
	if t == nil {
		return TopicInfo{}, s.noTopicLocked(ref)
	}
	return s.topicInfo(t), nil
}

func (s *Fake) topicInfo(t *topic) TopicInfo {
	ti := TopicInfo{Arn: t.arn, Name: t.name, AccountID: t.account, Region: t.region, FIFO: t.fifo, Attributes: t.attributes(),
		Tags: make(map[string]string, len(t.tags))}
	for k, v := range t.tags {
		ti.Tags[k] = v
	}
	for _, sub := range t.subs {
		ti.Subscriptions = append(ti.Subscriptions, SubscriptionInfo{Arn: sub.arn, TopicArn: t.arn, Protocol: sub.protocol,
			Endpoint: sub.endpoint, Owner: sub.owner, Pending: sub.pending, Token: sub.token, Attributes: sub.attributes()})
	}
	return ti
}

// String renders the delivery on one line, as the assertions print it: the subscription,
// the queue, the outcome and why, the filter policy.
func (d Delivery) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s → %s: %s", d.SubscriptionArn, d.Endpoint, d.Outcome)
	if d.Reason != "" {
		fmt.Fprintf(&b, " (%s)", d.Reason)
	}
	if d.FilterPolicy != "" {
		fmt.Fprintf(&b, "; filter %s on %s", d.FilterPolicy, d.FilterPolicyScope)
	}
	if d.Raw {
		b.WriteString("; raw")
	}
	if !d.NextAttempt.IsZero() {
		b.WriteString("; next attempt at " + timestamp(d.NextAttempt))
	}
	for _, a := range d.Attempts {
		b.WriteString("\n      " + a.String())
	}
	return b.String()
}

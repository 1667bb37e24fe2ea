package snsfake

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sns/types"
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
	// Body is the SQS message body or HTTP/S request body SNS sent (or would have): the
	// envelope or, raw, the message.
	Body string
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
}

// Published returns the publications of a topic (its ARN; "" for every topic), oldest
// first, copied, HTTP/S deliveries with their attempts so far. Like the other inspections,
// on a fake that follows a benbjohnson mock it first catches up with the mock's own moves
// (sqsfake.Fake.CatchUp), so that the attempts they made due are made.
func (s *Fake) Published(topicArn string) []Publication {
	s.sq.CatchUp() // on a benbjohnson mock, the HTTP/S attempts its own moves made due
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Publication
	for _, p := range s.pubs {
		if topicArn == "" || p.TopicArn == topicArn {
			p.MessageAttributes = unpackAttrs(p.attrs)
			p.Deliveries = cloneDeliveries(p.Deliveries)
			out = append(out, p)
		}
	}
	return out
}

// Publication returns the publication with the MessageId (the first one: a duplicate
// shares its MessageId).
func (s *Fake) Publication(messageID string) (Publication, bool) {
	s.sq.CatchUp() // on a benbjohnson mock, the HTTP/S attempts its own moves made due
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pubs {
		if p.MessageID == messageID {
			p.MessageAttributes = unpackAttrs(p.attrs)
			p.Deliveries = cloneDeliveries(p.Deliveries)
			return p, true
		}
	}
	return Publication{}, false
}

// Deliveries returns every delivery into a queue (its ARN or name; "" for all), oldest
// first, of every outcome.
func (s *Fake) Deliveries(queue string) []Delivery {
	s.sq.CatchUp() // on a benbjohnson mock, the HTTP/S attempts its own moves made due
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Delivery
	for _, p := range s.pubs {
		for _, d := range p.Deliveries {
			if queue == "" || queueMatches(d.Endpoint, queue) {
				d.fill()
				out = append(out, d)
			}
		}
	}
	return out
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

// Topic returns a topic by ARN or by name (in the fake's own account and region).
func (s *Fake) Topic(ref string) (TopicInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.topics[ref]
	if t == nil {
		t = s.topics[topicARN(s.sq.Region(), s.sq.AccountID(), ref)]
	}
	if t == nil {
		return TopicInfo{}, false
	}
	return s.topicInfo(t), true
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

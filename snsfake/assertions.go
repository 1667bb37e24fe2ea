package snsfake

import (
	"fmt"
	"strings"

	"github.com/sqsfake/sqsfake"
)

// Assertions in the house style (sqsfake's): each AssertX takes a small TestingT, reports a
// failure with t.Errorf and returns false, and takes testify's msgAndArgs. A failure says
// what was expected and what happened: every delivery of the publication, with its
// subscription, outcome, reason and filter policy. A queue is named by its ARN or name.

type tHelper interface{ Helper() }

// AssertPublished asserts that n messages were published to the topic (its ARN or name in
// the fake's account and region), duplicates a FIFO topic deduplicated included, not the
// SubscriptionConfirmations SNS sent.
func AssertPublished(t sqsfake.TestingT, s *Fake, topic string, n int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	info, err := s.Topic(topic)
	if err != nil {
		return fail(t, fmt.Sprintf("expected %d publication(s) to topic %s, but %s", n, topic, strings.TrimPrefix(err.Error(), "snsfake: ")), msgAndArgs)
	}
	pubs, _ := s.Published(info.Arn)
	var got []Publication
	for _, p := range pubs {
		if !p.Confirmation {
			got = append(got, p)
		}
	}
	if len(got) == n {
		return true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "expected %d publication(s) to topic %s, got %d", n, info.Arn, len(got))
	for _, p := range got {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return fail(t, b.String(), msgAndArgs)
}

// AssertDelivered asserts that the publication with the MessageId (Publish's answer) was
// delivered into the queue: it is there, or was, SQS having taken it (its SQS MessageId is
// in the publication's Deliveries).
func AssertDelivered(t sqsfake.TestingT, s *Fake, messageID, queue string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	p, err := s.Publication(messageID)
	if err != nil {
		return fail(t, fmt.Sprintf("expected message %s to be delivered into %s, but %s", messageID, queue, strings.TrimPrefix(err.Error(), "snsfake: ")), msgAndArgs)
	}
	if p.deliveredInto(queue) {
		return true
	}
	if err := s.knownQueue(queue); err != nil {
		return fail(t, fmt.Sprintf("expected message %s to be delivered into %s, but %s\n%s", messageID, queue, strings.TrimPrefix(err.Error(), "snsfake: "), p.explain()), msgAndArgs)
	}
	return fail(t, fmt.Sprintf("expected message %s to be delivered into %s, but it was not:\n%s", messageID, queue, p.explain()), msgAndArgs)
}

// AssertNotDelivered asserts that the publication with the MessageId did not reach the
// queue: filtered, lost, dead-lettered, pending, or the queue not subscribed at all. The
// failure shows the delivery that did reach it.
func AssertNotDelivered(t sqsfake.TestingT, s *Fake, messageID, queue string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	p, err := s.Publication(messageID)
	if err != nil {
		return fail(t, fmt.Sprintf("expected message %s not to be delivered into %s, but %s", messageID, queue, strings.TrimPrefix(err.Error(), "snsfake: ")), msgAndArgs)
	}
	if p.deliveredInto(queue) {
		return fail(t, fmt.Sprintf("expected message %s not to be delivered into %s, but it was:\n%s", messageID, queue, p.explain()), msgAndArgs)
	}
	// A queue that does not exist was not delivered into, but a typo must not pass.
	if err := s.knownQueue(queue); err != nil {
		return fail(t, fmt.Sprintf("expected message %s not to be delivered into %s, but %s\n%s", messageID, queue, strings.TrimPrefix(err.Error(), "snsfake: "), p.explain()), msgAndArgs)
	}
	return true
}

// String renders the publication on one line.
func (p Publication) String() string {
	var b strings.Builder
	kind := "message"
	if p.Confirmation {
		kind = "SubscriptionConfirmation"
	}
	fmt.Fprintf(&b, "%s %s at %s", kind, p.MessageID, timestamp(p.Time))
	if p.MessageGroupID != "" {
		fmt.Fprintf(&b, " group %s", p.MessageGroupID)
	}
	if p.Duplicate {
		b.WriteString(" (duplicate: delivered nowhere)")
	}
	fmt.Fprintf(&b, " %.40q", p.Message)
	return b.String()
}

// explain lists what became of p for every subscription.
func (p Publication) explain() string {
	var b strings.Builder
	b.WriteString("  " + p.String())
	if len(p.Deliveries) == 0 {
		b.WriteString("\n    no sqs subscription received it")
	}
	for _, d := range p.Deliveries {
		b.WriteString("\n    " + d.String())
	}
	return b.String()
}

func fail(t sqsfake.TestingT, failure string, msgAndArgs []any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	text := "snsfake: " + failure
	switch {
	case len(msgAndArgs) == 1:
		text += "\nMessages: " + fmt.Sprintf("%+v", msgAndArgs[0])
	case len(msgAndArgs) > 1:
		if format, ok := msgAndArgs[0].(string); ok {
			text += "\nMessages: " + fmt.Sprintf(format, msgAndArgs[1:]...)
		} else {
			text += "\nMessages: " + fmt.Sprint(msgAndArgs...)
		}
	}
	t.Errorf("%s", text)
	return false
}

// deliveredInto reports whether the publication was delivered into the queue (its name or
// ARN, as queueMatches takes it).
func (p Publication) deliveredInto(queue string) bool {
	for _, d := range p.Deliveries {
		if queueMatches(d.Endpoint, queue) && d.Outcome == Delivered {
			return true
		}
	}
	return false
}

// knownQueue returns the error Deliveries gives for a queue that neither exists nor was ever
// subscribed, or nil.
func (s *Fake) knownQueue(queue string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queueKnownLocked(queue) {
		return nil
	}
	return s.noQueueLocked(queue)
}

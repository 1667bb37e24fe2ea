package snsfake

import (
	"fmt"
	"strings"

	"github.com/sqsfake/sqsfake"
)

// Assertions on HTTP/S deliveries: what SNS did with a publication at an endpoint (its URL,
// as subscribed), attempt by attempt. A failure prints the publication's every delivery, with
// each attempt's instant, phase and result.

// AssertOutcome asserts that the publication with the MessageId came, at the endpoint or
// queue (a URL, or a queue's ARN or name), to the outcome want: Delivered, Retrying,
// DeadLettered, Discarded, … as Delivery.Outcome says now.
func AssertOutcome(t sqsfake.TestingT, s *Fake, messageID, endpoint string, want Outcome, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	p, d, failure := deliveryAt(s, messageID, endpoint, fmt.Sprintf("expected message %s to be %s at %s", messageID, want, endpoint))
	if failure != "" {
		return fail(t, failure, msgAndArgs)
	}
	if d.Outcome == want {
		return true
	}
	return fail(t, fmt.Sprintf("expected message %s to be %s at %s, but it is %s:\n%s", messageID, want, endpoint, d.Outcome, p.explain()), msgAndArgs)
}

// AssertAttempts asserts that SNS made n attempts (POSTs) to deliver the publication with the
// MessageId to the HTTP/S endpoint (its URL).
func AssertAttempts(t sqsfake.TestingT, s *Fake, messageID, endpoint string, n int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	p, d, failure := deliveryAt(s, messageID, endpoint, fmt.Sprintf("expected %d attempt(s) to deliver message %s to %s", n, messageID, endpoint))
	if failure != "" {
		return fail(t, failure, msgAndArgs)
	}
	if len(d.Attempts) == n {
		return true
	}
	return fail(t, fmt.Sprintf("expected %d attempt(s) to deliver message %s to %s, got %d:\n%s", n, messageID, endpoint, len(d.Attempts), p.explain()), msgAndArgs)
}

// deliveryAt finds the publication's delivery at an endpoint or queue; failure says why there
// is none, after what (the expectation).
func deliveryAt(s *Fake, messageID, endpoint, what string) (Publication, Delivery, string) {
	p, err := s.Publication(messageID)
	if err != nil {
		return p, Delivery{}, what + ", but " + strings.TrimPrefix(err.Error(), "snsfake: ")
	}
	for _, d := range p.Deliveries {
		if d.Endpoint == endpoint || queueMatches(d.Endpoint, endpoint) {
			return p, d, ""
		}
	}
	return p, Delivery{}, what + ", but no subscription of its topic had that endpoint when it was published:\n" + p.explain()
}

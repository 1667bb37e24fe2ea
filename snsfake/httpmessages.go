package snsfake

import (
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/aws"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// The messages SNS POSTs to HTTP/S endpoints: notifications (the envelope of the queue
// deliveries, or the raw message) and SubscriptionConfirmations (SPEC-sns.md §14.1–§14.2).

// protocolMessage is what an http or https subscription gets of e: with
// MessageStructure=json the string of its protocol's key, else of "default".
func protocolMessage(e *entry, protocol string) string {
	if e.structure != "json" {
		return e.message
	}
	var parts map[string]any
	_ = json.Unmarshal([]byte(e.message), &parts)
	if v, ok := parts[protocol].(string); ok {
		return v
	}
	s, _ := parts["default"].(string)
	return s
}

// sendHTTP starts the delivery of a publication to an http/https subscription: its first
// attempt is made when the publishing call has released s.mu (runDue), at the publish
// instant. s.mu is held.
func (s *Fake) sendHTTP(sub *subscription, st *publishState, d *Delivery) {
	text := st.sqsText
	if st.e.structure == "json" {
		text = protocolMessage(&st.e, sub.protocol)
	}
	body := text
	if !sub.raw {
		if text == st.sqsText {
			body = s.envelope(sub, st)
		} else {
			var sig string
			body = s.envelopeOf(sub, st, text, &sig)
		}
	}
	j := s.newJob(sub, typeNotification, st.messageID, body, sub.raw, st.time.UnixNano())
	if sub.raw && len(st.e.attrs) > 0 && sub.dlqArn != "" {
		// Kept for the dead-letter queue (a raw message's attributes become SQS message
		// attributes there), when the subscription has one as the message is published.
		j.rawAttrs = make(map[string]sqstypes.MessageAttributeValue, len(st.e.attrs))
		for k, v := range st.e.attrs {
			j.rawAttrs[k] = sqstypes.MessageAttributeValue{DataType: aws.String(aws.ToString(v.DataType)),
				StringValue: copyStringPtr(v.StringValue), BinaryValue: append([]byte(nil), v.BinaryValue...)}
		}
	}
	d.Body, d.BodySize, d.Outcome, d.job = st.keepBody(body), len(body), Retrying, j
}

func copyStringPtr(p *string) *string {
	if p == nil {
		return nil
	}
	return aws.String(*p)
}

// sendHTTPConfirmation starts the delivery of a pending http/https subscription's
// SubscriptionConfirmation: retried by the subscription's effective policy, like a
// notification ("This applies to all messages, including the subscription confirmation
// message", SPEC-sns.md §14.1). s.mu is held.
func (s *Fake) sendHTTPConfirmation(sub *subscription) {
	p, body := s.confirmation(sub)
	j := s.newJob(sub, typeConfirmation, p.MessageID, body, false, p.Time.UnixNano())
	p.Deliveries = []Delivery{{SubscriptionArn: sub.arn, Endpoint: sub.endpoint, Body: keepBody(body, ""), BodySize: len(body),
		Outcome: Retrying, job: j}}
	s.rec.add(p)
}

// clearHTTP forgets every HTTP/S delivery, for Reset: an attempt under way records
// nothing. s.mu is held (or the fake is new).
func (s *Fake) clearHTTP() {
	hd := &s.hd
	if hd.stopWake != nil {
		hd.stopWake()
	}
	for _, j := range hd.jobs {
		j.index = -1
	}
	hd.jobs, hd.wakeAt, hd.stopWake = nil, 0, nil
	hd.queued.Store(0)
	hd.gen++
}

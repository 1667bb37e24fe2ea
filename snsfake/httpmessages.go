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

// sendHTTP readies the delivery of publication p to an http/https subscription, whose
// Delivery will be p.Deliveries[i]: its body, and what its job needs, which startHTTP
// makes once s.mu is held again; its first attempt is made when the publishing call has
// released s.mu and its topic's turn (runDue), at the publish instant. sub is the
// subscription itself (a job keeps it), snap its state as the publish found it. t's turn
// is held, s.mu is not.
func (s *Fake) sendHTTP(sub, snap *subscription, st *publishState, p *Publication, i int, d *Delivery) {
	text := st.sqsText
	if st.e.structure == "json" {
		text = protocolMessage(&st.e, snap.protocol)
	}
	body := text
	if !snap.raw {
		if text == st.sqsText {
			body = s.envelope(snap, st)
		} else {
			var sig string
			body = s.envelopeOf(snap, st, text, &sig)
		}
	}
	h := httpStart{p: p, i: i, sub: sub, messageID: st.messageID, body: body, raw: snap.raw, now: st.time.UnixNano()}
	if snap.raw && len(st.e.attrs) > 0 && snap.dlqArn != "" {
		// Kept for the dead-letter queue (a raw message's attributes become SQS message
		// attributes there), when the subscription has one as the message is published.
		h.rawAttrs = make(map[string]sqstypes.MessageAttributeValue, len(st.e.attrs))
		for k, v := range st.e.attrs {
			h.rawAttrs[k] = sqstypes.MessageAttributeValue{DataType: aws.String(aws.ToString(v.DataType)),
				StringValue: copyStringPtr(v.StringValue), BinaryValue: append([]byte(nil), v.BinaryValue...)}
		}
	}
	st.dl.http = append(st.dl.http, h)
	d.Body, d.BodySize, d.Outcome = st.keepBody(body), len(body), Retrying
}

// httpStart is an HTTP/S delivery a publish readied (sendHTTP), to be started.
type httpStart struct {
	p               *Publication
	i               int
	sub             *subscription
	messageID, body string
	raw             bool
	now             int64
	rawAttrs        map[string]sqstypes.MessageAttributeValue
}

// startHTTP starts the HTTP/S deliveries the publish readied: each its job, which its
// Delivery points to. s.mu and the topic's turn are held.
func (s *Fake) startHTTP(dl *deliveryState) {
	for _, h := range dl.http {
		j := s.newJob(h.sub, typeNotification, h.messageID, h.body, h.raw, h.now)
		j.rawAttrs = h.rawAttrs
		h.p.Deliveries[h.i].job = j
	}
	clear(dl.http)
	dl.http = dl.http[:0]
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

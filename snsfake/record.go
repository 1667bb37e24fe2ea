package snsfake

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

// The publication record: each publication, and each SubscriptionConfirmation SNS sent, with
// what became of it for every subscription of its topic — what Published, Publication,
// Deliveries and the assertions read, and the server's GET /_sqsfake/topics. It is bounded
// as the queue fake's call record is: by a limit with a default (WithRecordBytes), beyond
// which the oldest publications are forgotten whole, and by what each keeps:
//
//   - a publication's Message, Subject and attributes whole (SNS bounds them: at most the
//     topic's MaximumMessageSize, 1 MiB);
//   - of each delivery's body only its first RecordedBodyBytes (the queue holds the message;
//     BodySize says how long it was), one copy for the deliveries of a publication whose
//     bodies begin alike — an envelope longer than that, or a raw message — and no body at
//     all for a delivery that was lost, which no queue holds.
//
// A publication is counted as its strings' bytes and its deliveries', plus a fixed cost for
// each record; a fan-out to n subscriptions costs about n × 200 bytes besides its bodies.
// The newest publication is always kept, whatever its size.
//
// Record (s.rec.add) is the one way into it: every delivery a publication makes — into a
// queue, or to an HTTP/S endpoint — goes into the Publication before it is recorded, its
// Body cut with keepBody.

// DefaultRecordBytes is how much the publication record keeps when no WithRecordBytes is
// given: every publication of a test of ordinary size (a thousand 64 KiB publications, or a
// hundred thousand small ones with a delivery each), in memory that stays bounded.
const DefaultRecordBytes = 64 << 20

// RecordedBodyBytes is how much of each delivery's body the record keeps (Delivery.Body):
// every envelope of a message of up to about 3 KiB whole, the beginning of a longer one.
const RecordedBodyBytes = 4 << 10

// Option configures a Fake (New).
type Option func(*Fake)

// WithRecordBytes bounds the publication record (Published, Publication, Deliveries) to
// about n bytes, forgetting the oldest publications first; the newest is always kept. n ≤ 0
// keeps every publication until Reset. The default is DefaultRecordBytes; cmd/sqsfake uses
// the default too. What each publication costs: see record.go.
func WithRecordBytes(n int) Option {
	return func(s *Fake) { s.rec.limit = n }
}

// record is the publication record.
type record struct {
	pubs   []Publication // pubs[head:] are kept, oldest first
	head   int
	size   int // the estimated size of the kept publications
	limit  int // in bytes; ≤ 0: none
	forgot int // how many publications were forgotten since Reset
}

// all returns the kept publications, oldest first; the caller must not keep the slice
// beyond s.mu.
func (r *record) all() []Publication { return r.pubs[r.head:] }

// clear empties the record, keeping its limit.
func (r *record) clear() {
	*r = record{limit: r.limit}
}

// add records p, then forgets the oldest publications while the record is over its limit.
func (r *record) add(p Publication) {
	n := recordSize(&p)
	p.size = n
	r.pubs = append(r.pubs, p)
	r.size += n
	for r.limit > 0 && r.size > r.limit && len(r.pubs)-r.head > 1 {
		r.size -= r.pubs[r.head].size
		r.pubs[r.head] = Publication{}
		r.head++
		r.forgot++
	}
	if r.head > 64 && r.head > len(r.pubs)/2 {
		// Compact: the forgotten half's slots go.
		n := copy(r.pubs, r.pubs[r.head:])
		clear(r.pubs[n:])
		r.pubs, r.head = r.pubs[:n], 0
	}
}

// The fixed costs of a record, besides its strings.
var (
	publicationCost = int(unsafe.Sizeof(Publication{}))
	deliveryCost    = int(unsafe.Sizeof(Delivery{}))
)

// recordSize estimates what p keeps: its structs and their strings, a body shared by
// several deliveries once.
func recordSize(p *Publication) int {
	n := publicationCost + len(p.MessageID) + len(p.SequenceNumber) + len(p.TopicArn) + len(p.Subject) + len(p.Message) +
		len(p.MessageGroupID) + len(p.MessageDeduplicationID)
	for _, a := range p.attrs {
		n += 64 + len(a.name) + len(a.dataType) + len(a.value) + len(a.binary)
	}
	var last *byte
	for i := range p.Deliveries {
		d := &p.Deliveries[i]
		n += deliveryCost + len(d.SubscriptionArn) + len(d.Endpoint) + len(d.FilterPolicy) + len(d.Reason) + len(d.SQSMessageID) +
			len(d.DeadLetterQueue)
		if b := unsafe.StringData(d.Body); b != last {
			n += len(d.Body)
			last = b
		}
		if d.job != nil {
			// An HTTP/S delivery's attempts, made later: at most its policy's.
			n += (d.job.policy.retry.NumRetries + 1) * attemptRecordBytes
		}
	}
	return n
}

// attemptRecordBytes is what an HTTP/S delivery's attempt may keep: its struct and an
// Error of at most maxAttemptError bytes.
var attemptRecordBytes = int(unsafe.Sizeof(Attempt{})) + maxAttemptError

// prefixOf is body's first RecordedBodyBytes, cut at a character boundary (no copy).
func prefixOf(body string) string {
	if len(body) <= RecordedBodyBytes {
		return body
	}
	n := RecordedBodyBytes
	for n > 0 && !utf8.RuneStart(body[n]) {
		n--
	}
	return body[:n]
}

// keepBody is what the record keeps of a delivery's body: its first RecordedBodyBytes, cut
// at a character boundary, copied — or prev itself when that is the same text, so that the
// deliveries of one publication whose bodies begin alike share one copy.
func keepBody(body, prev string) string {
	cut := prefixOf(body)
	if cut == prev {
		return prev
	}
	return strings.Clone(cut)
}

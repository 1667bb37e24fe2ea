package snsfake

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/sqsfake/sqsfake/companion"
	"github.com/sqsfake/sqsfake/internal/eventpattern"
)

const (
	// DefaultMaximumMessageSize is SNS's limit on a message with its attributes, 256 KiB,
	// unless the topic's MaximumMessageSize says otherwise.
	DefaultMaximumMessageSize = 262144
	dedupWindow               = 5 * time.Minute
	maxBatchEntries           = 10
	// SenderID is the SenderId system attribute of the messages SNS delivers into a queue:
	// an id in the form of SNS's (SPEC-sns.md §3, eu-west-2's).
	SenderID = "AIDAIVEA3AGEU7NF6DRAG"
	// Principal is the service principal SNS delivers as, which a queue's Policy must admit
	// (SPEC-sns.md §7.6).
	Principal = "sns.amazonaws.com"
)

// entry is one message to publish, from Publish or one PublishBatch entry.
type entry struct {
	message, subject, structure string
	hasSubject                  bool
	attrs                       map[string]types.MessageAttributeValue
	groupID, dedupID            string
	trace                       string // the publish's X-Ray trace header, for AWSTraceHeader
}

// checkEntry applies SNS's checks of a message (SPEC-sns.md §6.2) for topic t; the
// attribute errors are ParameterValueInvalid, the rest InvalidParameter. It returns the
// entry's size, for PublishBatch's total.
func checkEntry(t *topic, e *entry) (int, *snsError) {
	if e.message == "" {
		return 0, errInvalidParameter("Empty message")
	}
	if e.hasSubject && !validSubject(e.subject) {
		return 0, errInvalidParameter("Subject")
	}
	size := len(e.message)
	for name, a := range e.attrs {
		if err := checkAttribute(name, a); err != nil {
			return 0, err
		}
		size += len(name) + len(*a.DataType) + len(attributeText(a))
	}
	limit := DefaultMaximumMessageSize
	if v, ok := t.attrs["MaximumMessageSize"]; ok {
		limit, _ = strconv.Atoi(v)
	}
	if size > limit {
		return 0, errInvalidParameter("Message too long")
	}
	if e.structure != "" {
		if e.structure != "json" {
			return 0, errInvalidParameter("MessageStructure")
		}
		var parts map[string]any
		if json.Unmarshal([]byte(e.message), &parts) != nil || parts == nil {
			return 0, errInvalidParameter("Message Structure - JSON message body failed to parse")
		}
		if _, ok := parts["default"].(string); !ok {
			return 0, errInvalidParameter("Message Structure - No default entry in JSON message body")
		}
	}
	if t.fifo {
		if e.groupID == "" {
			return 0, errInvalidParameter("The MessageGroupId parameter is required for FIFO topics")
		}
		if e.dedupID == "" && t.attrs["ContentBasedDeduplication"] != "true" {
			return 0, errInvalidParameter("The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly")
		}
	} else if e.dedupID != "" {
		return 0, errInvalidParameter("MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type")
	}
	for _, id := range [...]struct{ name, v string }{{"MessageGroupId", e.groupID}, {"MessageDeduplicationId", e.dedupID}} {
		if id.v != "" && !validGroupID(id.v) {
			// The model's rule; SNS's text is UNVERIFIED (SPEC-sns.md §6.2).
			return 0, errInvalidParameter(id.name)
		}
	}
	return size, nil
}

// validSubject: UTF-8, no line breaks or control characters, under 100 characters [MODEL].
func validSubject(s string) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) >= 100 {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func validGroupID(s string) bool {
	if len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// checkAttribute applies SNS's rules to one message attribute (SPEC-sns.md §6.2,
// ParameterValueInvalid).
func checkAttribute(name string, a types.MessageAttributeValue) *snsError {
	bad := func(msg string) *snsError { return newError("ParameterValueInvalid", msg) }
	if len(name) > 256 {
		return bad("Length of message attribute name must be less than 256 bytes.")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return bad("Invalid non-alphanumeric character '#x" + strings.ToUpper(strconv.FormatInt(int64(c), 16)) +
				"' was found in the message attribute name. Can only include alphanumeric characters, hyphens, underscores, or dots.")
		}
	}
	switch {
	case strings.HasPrefix(name, "."):
		return bad("Invalid message attribute name starting with character '.' was found.")
	case strings.HasSuffix(name, "."):
		return bad("Invalid message attribute name ending with character '.' was found.")
	case strings.Contains(name, ".."):
		return bad("Message attribute name can not have successive '.' character.")
	}
	dt := *a.DataType
	base, suffix, custom := strings.Cut(dt, ".")
	if base != "String" && base != "Number" && base != "Binary" || custom && strings.TrimSpace(suffix) == "" {
		return bad("The message attribute '" + name + "' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.")
	}
	switch base {
	case "Binary":
		if a.BinaryValue == nil && a.StringValue != nil {
			return bad("The message attribute '" + name + "' with type 'Binary' must use field 'Binary'.")
		}
		if len(a.BinaryValue) == 0 {
			return bad("The message attribute '" + name + "' must contain non-empty message attribute value for message attribute type 'Binary'.")
		}
	default:
		if a.StringValue == nil && a.BinaryValue != nil {
			return bad("The message attribute '" + name + "' with type '" + base + "' must use field 'String'.")
		}
		if aws.ToString(a.StringValue) == "" {
			return bad("The message attribute '" + name + "' must contain non-empty message attribute value for message attribute type '" + base + "'.")
		}
	}
	return nil
}

// Publish publishes a message to a topic (TopicArn, or a topic's ARN as TargetArn) and
// delivers it, at the fake's current time, into the queue of every confirmed sqs
// subscription whose filter policy matches it (SPEC-sns.md §6, §7). PhoneNumber and
// platform-endpoint TargetArns are refused as SNS refuses unknown ones: the fake models no
// SMS or mobile push.
func (s *Fake) Publish(ctx context.Context, params *sns.PublishInput, optFns ...func(*sns.Options)) (out *sns.PublishOutput, err error) {
	if params == nil {
		params = &sns.PublishInput{}
	}
	c, err := s.begin(ctx, "Publish", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	defer s.runDue() // the first attempt of each HTTP/S delivery, at the publish instant
	s.mu.Lock()
	t, e := s.publishTarget(c, params)
	s.mu.Unlock()
	if e != nil {
		return nil, c.fail(e)
	}
	en := entry{message: *params.Message, subject: aws.ToString(params.Subject), hasSubject: params.Subject != nil,
		structure: aws.ToString(params.MessageStructure), attrs: params.MessageAttributes,
		groupID: aws.ToString(params.MessageGroupId), dedupID: aws.ToString(params.MessageDeduplicationId), trace: traceOf(ctx)}
	t.dl.turn.Lock()
	defer t.dl.turn.Unlock()
	s.mu.Lock()
	e = s.stillThere(t)
	if e == nil {
		_, e = checkEntry(t, &en)
	}
	if e != nil {
		s.mu.Unlock()
		return nil, c.fail(e)
	}
	p := s.preparePublication(t, &en)
	st := s.beginDeliveries(ctx, t)
	s.mu.Unlock()
	s.deliverPublication(st, &en, &p)
	s.mu.Lock()
	s.record(st, &p)
	s.mu.Unlock()
	st.dl.done()
	id, seq := p.MessageID, p.SequenceNumber
	res := &publishResult{id: id, seq: seq}
	res.out.MessageId = &res.id
	if seq != "" {
		res.out.SequenceNumber = &res.seq
	}
	return &res.out, nil
}

// publishResult holds a Publish output and the strings it points to in one allocation.
type publishResult struct {
	out     sns.PublishOutput
	id, seq string
}

func (s *Fake) publishTarget(c *call, in *sns.PublishInput) (*topic, *snsError) {
	switch {
	case in.TopicArn != nil:
		return s.topicFor(c, *in.TopicArn, "TopicArn", "Publish")
	case in.TargetArn != nil:
		if p := strings.Split(*in.TargetArn, ":"); len(p) == 6 && p[2] == "sns" && !strings.Contains(p[5], "/") {
			return s.topicFor(c, *in.TargetArn, "TargetArn", "Publish")
		}
		return nil, errInvalidParameter("TargetArn Reason: No endpoint found for the target arn specified")
	case in.PhoneNumber != nil:
		return nil, errInvalidParameter("PhoneNumber Reason: " + echo(*in.PhoneNumber) + " is not valid to publish to")
	}
	return nil, errInvalidParameter("TopicArn or TargetArn Reason: no value for required parameter")
}

// PublishBatch publishes up to 10 messages to a topic, in order (SPEC-sns.md §6.4). An
// entry SNS refuses fails the whole call, as on AWS; Failed is empty but for the entries an
// injected fault fails (sqsfake.Fault.FailEntries on "SNS.PublishBatch": they are not
// published, and are listed with the fault's Err's code and message — an InternalError,
// SenderFault false, when Err is nil).
func (s *Fake) PublishBatch(ctx context.Context, params *sns.PublishBatchInput, optFns ...func(*sns.Options)) (out *sns.PublishBatchOutput, err error) {
	if params == nil {
		params = &sns.PublishBatchInput{}
	}
	c, err := s.begin(ctx, "PublishBatch", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	defer s.runDue() // the first attempt of each HTTP/S delivery, at the publish instant
	s.mu.Lock()
	t, e := s.topicFor(c, *params.TopicArn, "TopicArn", "Publish")
	s.mu.Unlock()
	if e != nil {
		return nil, c.fail(e)
	}
	entries := params.PublishBatchRequestEntries
	switch {
	case len(entries) == 0:
		return nil, c.fail(newError("EmptyBatchRequest", "The batch request doesn't contain any entries."))
	case len(entries) > maxBatchEntries:
		return nil, c.fail(newError("TooManyEntriesInBatchRequest", "The batch request contains more entries than permissible."))
	}
	// The batch's own checks come first, then each entry's: a batch with two entries of one
	// Id and no MessageGroupId on a FIFO topic is BatchEntryIdsNotDistinct [AWS,
	// test_publish_batch_exceptions].
	seen := make(map[string]bool, len(entries))
	for _, be := range entries {
		if e := checkBatchEntryID(*be.Id, seen); e != nil {
			return nil, c.fail(e)
		}
	}
	ens := make([]entry, len(entries))
	for i, be := range entries {
		ens[i] = entry{message: *be.Message, subject: aws.ToString(be.Subject), hasSubject: be.Subject != nil,
			structure: aws.ToString(be.MessageStructure), attrs: be.MessageAttributes,
			groupID: aws.ToString(be.MessageGroupId), dedupID: aws.ToString(be.MessageDeduplicationId), trace: traceOf(ctx)}
	}
	t.dl.turn.Lock()
	defer t.dl.turn.Unlock()
	s.mu.Lock()
	total, e := 0, s.stillThere(t)
	for i := 0; i < len(ens) && e == nil; i++ {
		var n int
		n, e = checkEntry(t, &ens[i])
		total += n
	}
	if e == nil && total > DefaultMaximumMessageSize {
		e = newError("BatchRequestTooLong", "The length of all the messages put together is more than the limit.")
	}
	if e != nil {
		s.mu.Unlock()
		return nil, c.fail(e)
	}
	out = &sns.PublishBatchOutput{Successful: []types.PublishBatchResultEntry{}, Failed: []types.BatchResultErrorEntry{}}
	pubs := make([]Publication, 0, len(ens))
	published := make([]int, 0, len(ens)) // the entry of each publication
	for i := range ens {
		if fails, ferr := c.sc.FailsEntry(*entries[i].Id); fails {
			out.Failed = append(out.Failed, failedEntry(*entries[i].Id, ferr))
			continue
		}
		pubs = append(pubs, s.preparePublication(t, &ens[i]))
		published = append(published, i)
	}
	st := s.beginDeliveries(ctx, t)
	s.mu.Unlock()
	for k, i := range published {
		s.deliverPublication(st, &ens[i], &pubs[k])
	}
	s.mu.Lock()
	for k := range pubs {
		s.record(st, &pubs[k])
	}
	s.mu.Unlock()
	st.dl.done()
	for k, i := range published {
		r := types.PublishBatchResultEntry{Id: entries[i].Id, MessageId: aws.String(pubs[k].MessageID)}
		if pubs[k].SequenceNumber != "" {
			r.SequenceNumber = aws.String(pubs[k].SequenceNumber)
		}
		out.Successful = append(out.Successful, r)
	}
	return out, nil
}

// checkBatchEntryID applies SNS's rules to a PublishBatch entry's Id, seen holding the Ids
// before it (SPEC-sns.md §6.4).
func checkBatchEntryID(id string, seen map[string]bool) *snsError {
	if len(id) > 80 {
		return newError("InvalidBatchEntryId", "The Id of a batch entry in the batch request is too long: "+echo(id))
	}
	for j := 0; j < len(id); j++ {
		if !isTopicNameChar(id[j]) {
			return newError("InvalidBatchEntryId", "The Id of a batch entry in the batch request contains an impermissible character: "+echo(id))
		}
	}
	if id == "" {
		return newError("InvalidBatchEntryId", "The Id of a batch entry in the batch request contains an impermissible character: ")
	}
	if seen[id] {
		return newError("BatchEntryIdsNotDistinct", "Two or more batch entries in the request have the same Id.")
	}
	seen[id] = true
	return nil
}

// failedEntry is a PublishBatch entry an injected fault failed with err: its code and
// message when it is an SNS error (ServiceError), else SNS's InternalError.
func failedEntry(id string, err error) types.BatchResultErrorEntry {
	e, ok := err.(*snsError)
	if !ok {
		e = errInternal()
	}
	return types.BatchResultErrorEntry{Id: aws.String(id), Code: aws.String(e.code), Message: aws.String(e.message), SenderFault: e.status < 500}
}

// preparePublication makes the publication of one checked message: FIFO deduplication, its MessageId
// and SequenceNumber. A duplicate's publication is marked Duplicate: it delivers nothing.
// s.mu and t's turn are held.
func (s *Fake) preparePublication(t *topic, e *entry) Publication {
	now := s.sq.Now()
	var dedupKey string
	if t.fifo {
		if e.dedupID == "" {
			sum := sha256.Sum256([]byte(e.message))
			e.dedupID = hex.EncodeToString(sum[:])
		}
		dedupKey = e.dedupID
		if t.attrs["FifoThroughputScope"] == "MessageGroup" {
			dedupKey = e.groupID + "\x00" + e.dedupID
		}
		if hit, ok := t.dedup[dedupKey]; ok && now.UnixNano() < hit.until {
			return Publication{MessageID: hit.messageID, SequenceNumber: hit.sequenceNumber, TopicArn: t.arn,
				Message: e.message, Subject: e.subject, attrs: packAttrs(e.attrs), MessageGroupID: e.groupID,
				MessageDeduplicationID: e.dedupID, Time: now, Duplicate: true}
		}
	}
	s.nextMsg++
	id := s.uuid(streamMessage, s.nextMsg, 5)
	var seq string
	if t.fifo {
		seq = s.sequenceNumber()
		if t.dedup == nil {
			t.dedup = map[string]dedupHit{}
		}
		for k, hit := range t.dedup {
			if now.UnixNano() >= hit.until {
				delete(t.dedup, k)
			}
		}
		t.dedup[dedupKey] = dedupHit{messageID: id, sequenceNumber: seq, until: now.Add(dedupWindow).UnixNano()}
	}
	return Publication{MessageID: id, SequenceNumber: seq, TopicArn: t.arn, Message: e.message, Subject: e.subject,
		attrs: packAttrs(e.attrs), MessageGroupID: e.groupID, MessageDeduplicationID: e.dedupID, Time: now}
}

// stillThere refuses a publish to a topic deleted while it waited for its turn. s.mu is
// held.
func (s *Fake) stillThere(t *topic) *snsError {
	if s.topics[t.arn] != t {
		return errTopicNotFound()
	}
	return nil
}

// record records a delivered publication, unless the fake was reset meanwhile, after
// starting the HTTP/S deliveries its publish readied. s.mu is held.
func (s *Fake) record(st *publishState, p *Publication) {
	if st.gen != s.gen {
		clear(st.dl.http)
		st.dl.http = st.dl.http[:0]
		return
	}
	s.startHTTP(st.dl)
	s.rec.add(*p)
}

// packedAttr is one message attribute as the publication record keeps it: its strings
// cut from one copy of them all (packAttrs), so that a record costs two allocations
// whatever its string attributes.
type packedAttr struct {
	name, dataType, value string
	hasValue              bool
	binary                []byte
}

// packAttrs copies a publish's attributes for the record: nothing of the caller's input is
// kept.
func packAttrs(a map[string]types.MessageAttributeValue) []packedAttr {
	if len(a) == 0 {
		return nil
	}
	// One order for the three passes below: ranging over a map twice need not give the
	// same order twice, and the cuts must follow the appends.
	var nameBuf [16]string
	names := nameBuf[:0]
	for k := range a {
		names = append(names, k)
	}
	slices.Sort(names)
	n := 0
	for _, k := range names {
		v := a[k]
		n += len(k) + len(aws.ToString(v.DataType)) + len(aws.ToString(v.StringValue))
	}
	buf := make([]byte, 0, n)
	for _, k := range names {
		v := a[k]
		buf = append(buf, k...)
		buf = append(buf, aws.ToString(v.DataType)...)
		buf = append(buf, aws.ToString(v.StringValue)...)
	}
	text := string(buf)
	out := make([]packedAttr, 0, len(a))
	at := 0
	cut := func(l int) string { at += l; return text[at-l : at] }
	for _, k := range names {
		v := a[k]
		pa := packedAttr{name: cut(len(k)), dataType: cut(len(aws.ToString(v.DataType))), value: cut(len(aws.ToString(v.StringValue))),
			hasValue: v.StringValue != nil}
		if v.BinaryValue != nil {
			pa.binary = append([]byte(nil), v.BinaryValue...)
		}
		out = append(out, pa)
	}
	return out
}

// unpackAttrs is the record's attributes in the SDK's shape, fresh for the caller.
func unpackAttrs(packed []packedAttr) map[string]types.MessageAttributeValue {
	if len(packed) == 0 {
		return nil
	}
	out := make(map[string]types.MessageAttributeValue, len(packed))
	for _, pa := range packed {
		v := types.MessageAttributeValue{DataType: aws.String(pa.dataType)}
		if pa.hasValue {
			v.StringValue = aws.String(pa.value)
		}
		if pa.binary != nil {
			v.BinaryValue = append([]byte(nil), pa.binary...)
		}
		out[pa.name] = v
	}
	return out
}

// Deliveries run outside s.mu, so that a long fan-out holds up neither other topics' calls
// nor this one's other operations: only the next publish to the same topic, which waits for
// its turn (deliveryState.turn) so that a topic's publications are delivered in the order
// they were made. A publish takes its topic's turn, then s.mu to check, number and
// deduplicate its messages and to copy the topic's subscriptions as they are
// (beginDeliveries); releases s.mu to deliver them (deliverPublication); and takes it again
// to record them. What a delivery reads is that copy, the topic's immutable fields and the
// turn's scratch state, never the fake's maps; what it must change in the fake it changes
// with s.mu held (the record). The lock order is a topic's turn, then s.mu.

// deliveryState is a topic's delivery scratch, which only the holder of its turn uses.
type deliveryState struct {
	turn  sync.Mutex
	st    publishState
	in    sqs.SendMessageInput                            // the SendMessage of a delivery: SendMessage keeps nothing of it
	attrs map[string]sqstypes.MessageAttributeValue       // raw deliveries' attributes: SendMessage copies what it keeps
	arena []Delivery                                      // where publications' Deliveries are carved from
	subs  []subscription                                  // the topic's subscriptions as the publish found them
	orig  []*subscription                                 // the subscriptions themselves
	http  []httpStart                                     // the HTTP/S deliveries readied, to start (httpmessages.go)
	trace map[string]sqstypes.MessageSystemAttributeValue // a delivery's AWSTraceHeader
	ctx   map[string]context.Context                      // by queue region: the contexts deliveries are SendMessage calls in
}

// publishState is the delivery state shared by the subscriptions of one publication, built
// when first needed; a topic keeps one (deliveryState.st), reused publication after
// publication, and nothing of it outlives its publish.
type publishState struct {
	dl         *deliveryState
	gen        uint64          // the fake's Reset count when the publish began
	logCtx     context.Context // the publish's context, for the server's log (wirelog.go)
	version    string          // the topic's SignatureVersion
	e          entry
	t          *topic
	messageID  string
	seq        string
	time       time.Time
	ts         string
	sqsText    string                       // the message an sqs subscription gets (MessageStructure=json: its sqs or default part)
	attrs      map[string]eventpattern.Attr // the filter's view of the attributes; reused, cleared
	attrsDone  bool
	body       map[string]any
	bodyDone   bool
	signature  string
	sqsAttrs   map[string]sqstypes.MessageAttributeValue // raw deliveries' attributes, shared: SendMessage copies them
	lastBody   string                                    // the body the record kept of the last delivery
	lastReason string                                    // the last lost delivery's reason
}

// timestamp is the envelope's Timestamp, formatted once.
func (st *publishState) timestamp() string {
	if st.ts == "" {
		st.ts = timestamp(st.time)
	}
	return st.ts
}

func (st *publishState) filterAttrs() map[string]eventpattern.Attr {
	if !st.attrsDone {
		st.attrsDone = true
		if st.attrs == nil {
			st.attrs = make(map[string]eventpattern.Attr, len(st.e.attrs))
		}
		for k, v := range st.e.attrs {
			if !strings.HasPrefix(*v.DataType, "Binary") {
				st.attrs[k] = eventpattern.Attr{Type: *v.DataType, Value: aws.ToString(v.StringValue)}
			}
		}
	}
	return st.attrs
}

func (st *publishState) filterBody() map[string]any {
	if !st.bodyDone {
		st.body, _ = eventpattern.ParseBody(st.sqsText)
		st.bodyDone = true
	}
	return st.body
}

// sqsMessage is what the sqs protocol gets of e: with MessageStructure=json the string of
// its "sqs" key, else of "default" (SPEC-sns.md §7.1).
func sqsMessage(e *entry) string {
	if e.structure != "json" {
		return e.message
	}
	var parts map[string]any
	_ = json.Unmarshal([]byte(e.message), &parts)
	if v, ok := parts["sqs"].(string); ok {
		return v
	}
	s, _ := parts["default"].(string)
	return s
}

// beginDeliveries readies t's delivery state for the publish with context ctx: a copy of
// the topic's subscriptions as they are now. s.mu and t's turn are held.
func (s *Fake) beginDeliveries(ctx context.Context, t *topic) *publishState {
	dl := &t.dl
	dl.subs, dl.orig = dl.subs[:0], dl.orig[:0]
	for _, sub := range t.subs {
		dl.subs = append(dl.subs, *sub)
		dl.orig = append(dl.orig, sub)
	}
	st := &dl.st
	st.dl, st.t, st.gen, st.logCtx, st.version = dl, t, s.gen, ctx, cmpOr(t.attrs["SignatureVersion"], "1")
	return st
}

// deliverPublication delivers p, unless it is a duplicate, to the subscriptions
// beginDeliveries copied. t's turn is held, s.mu is not.
func (s *Fake) deliverPublication(st *publishState, e *entry, p *Publication) {
	if p.Duplicate {
		return
	}
	dl, t := st.dl, st.t
	attrs := st.attrs
	clear(attrs)
	*st = publishState{dl: dl, gen: st.gen, logCtx: st.logCtx, version: st.version, e: *e, t: t, messageID: p.MessageID,
		seq: p.SequenceNumber, time: p.Time, sqsText: sqsMessage(e), attrs: attrs}
	p.Deliveries = dl.deliveries(len(dl.subs))
	for i := range dl.subs {
		sub := &dl.subs[i]
		web := sub.protocol == "http" || sub.protocol == "https"
		if sub.protocol != "sqs" && !web {
			continue
		}
		d := Delivery{SubscriptionArn: sub.arn, Endpoint: sub.endpoint, Raw: sub.raw, FilterPolicy: sub.filter,
			FilterPolicyScope: sub.scopeOrDefault()}
		if sub.filter == "" {
			d.FilterPolicyScope = ""
		}
		switch {
		case sub.pending:
			d.Outcome, d.Reason = Pending, "the subscription is pending confirmation"
		case sub.compiled != nil && !s.matches(sub, st):
			d.Outcome, d.Reason = Filtered, "the message does not match the subscription's filter policy"
		case web:
			s.sendHTTP(dl.orig[i], sub, st, p, len(p.Deliveries), &d)
		default:
			s.send(sub, st, &d)
			logDelivery(st.logCtx, t.arn, "message", p.MessageID, &d)
		}
		p.Deliveries = append(p.Deliveries, d)
	}
	// The scratch state keeps nothing of the message once it is delivered.
	dl.in = sqs.SendMessageInput{}
	st.e, st.sqsText, st.body, st.lastBody, st.lastReason = entry{}, "", nil, "", ""
}

// done lets go of the subscriptions the publish copied, keeping the copies' room for the
// next publish but for a topic of many subscriptions. The turn is held.
func (dl *deliveryState) done() {
	if cap(dl.subs) > 64 {
		dl.subs, dl.orig = nil, nil
		return
	}
	clear(dl.subs)
	clear(dl.orig)
	dl.subs, dl.orig = dl.subs[:0], dl.orig[:0]
}

// deliveryChunk is how many Delivery records deliveries carves from one allocation.
const deliveryChunk = 64

// deliveries returns an empty slice of capacity n for a publication's deliveries: carved,
// capacity-limited, from a chunk shared by the records of several publications of the
// topic, so that a publication's record keeping does not cost an allocation per publish.
func (dl *deliveryState) deliveries(n int) []Delivery {
	if n > deliveryChunk/4 {
		return make([]Delivery, 0, n)
	}
	if cap(dl.arena)-len(dl.arena) < n {
		dl.arena = make([]Delivery, 0, deliveryChunk)
	}
	at := len(dl.arena)
	dl.arena = dl.arena[:at+n]
	return dl.arena[at : at : at+n]
}

func (s *Fake) matches(sub *subscription, st *publishState) bool {
	if sub.compiled.Body() {
		return sub.compiled.MatchBody(st.filterBody())
	}
	return sub.compiled.MatchAttributes(st.filterAttrs())
}

// send delivers one publication into sub's queue as SNS's service principal; what it
// cannot deliver goes to the subscription's dead-letter queue, if any, or is lost.
func (s *Fake) send(sub *subscription, st *publishState, d *Delivery) {
	in := s.sqsInput(sub, st)
	d.BodySize = len(*in.MessageBody)
	id, err := s.sendAs(st.dl.serviceContext(st.t, sub.queue.region), &sub.queue, in)
	if err == nil {
		d.Outcome, d.SQSMessageID, d.Body = Delivered, id, st.keepBody(*in.MessageBody)
		return
	}
	d.Outcome, d.Reason = Lost, st.reason(err)
	if sub.dlqArn == "" {
		return
	}
	if !sub.dlq.fifo {
		in.MessageGroupId, in.MessageDeduplicationId = nil, nil
	}
	id, err = s.sendAs(st.dl.serviceContext(st.t, sub.dlq.region), &sub.dlq, in)
	if err != nil {
		d.Reason += "; the dead-letter queue " + sub.dlqArn + " refused it too: " + reasonOf(err)
		return
	}
	d.Outcome, d.DeadLetterQueue, d.SQSMessageID, d.Body = DeadLettered, sub.dlqArn, id, st.keepBody(*in.MessageBody)
}

// reason is reasonOf(err), the last delivery's own string when it is the same text: a
// fan-out to queues that do not exist keeps one copy of SQS's error.
func (st *publishState) reason(err error) string {
	if r := reasonOf(err); r != st.lastReason {
		st.lastReason = r
	}
	return st.lastReason
}

// keepBody is what the record keeps of a delivery's body (record.go), one copy for the
// deliveries of the publish whose bodies begin alike.
func (st *publishState) keepBody(body string) string {
	if body == st.e.message && unsafe.StringData(body) == unsafe.StringData(st.e.message) {
		// A raw delivery's body is the message itself, which the publication keeps whole:
		// its beginning shares that copy.
		return prefixOf(body)
	}
	st.lastBody = keepBody(body, st.lastBody)
	return st.lastBody
}

// sendAs sends in into the queue q as SNS's service principal for t, in ctx.
func (s *Fake) sendAs(ctx context.Context, q *queueRef, in *sqs.SendMessageInput) (string, error) {
	in.QueueUrl = &q.url
	out, err := s.sq.SendMessage(ctx, in)
	if err != nil {
		return "", err
	}
	return aws.ToString(out.MessageId), nil
}

// serviceContext is the context SNS's calls for t into queues of region are made in: as its
// service principal, with the topic as aws:SourceArn; it carries no deadline or
// cancellation of any caller. WithService wants a context for one call at a time.
func serviceContext(t *topic, region string) context.Context {
	return companion.WithService(context.Background(), companion.ServicePrincipal{
		Service: Principal, SourceArn: t.arn, SourceAccount: t.account, SenderID: SenderID, Region: region})
}

// serviceContext is serviceContext made once for each region t's publishes deliver into:
// the turn's holder alone makes calls in them, one at a time.
func (dl *deliveryState) serviceContext(t *topic, region string) context.Context {
	ctx := dl.ctx[region]
	if ctx == nil {
		ctx = serviceContext(t, region)
		if dl.ctx == nil {
			dl.ctx = map[string]context.Context{}
		}
		dl.ctx[region] = ctx
	}
	return ctx
}

// reasonOf is the SQS error code and message that stopped a delivery.
func reasonOf(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode() + ": " + api.ErrorMessage()
	}
	return err.Error()
}

// sqsInput is the SendMessage SNS makes of a publication for sub (SPEC-sns.md §7.1–§7.3).
func (s *Fake) sqsInput(sub *subscription, st *publishState) *sqs.SendMessageInput {
	// The topic's scratch input: SendMessage keeps nothing of it, and the turn's holder
	// alone uses it.
	in := &st.dl.in
	*in = sqs.SendMessageInput{}
	if sub.raw {
		in.MessageBody = &st.sqsText
		if len(st.e.attrs) > 0 && st.sqsAttrs == nil {
			// The topic's scratch map: SendMessage copies what it keeps.
			dl := st.dl
			if dl.attrs == nil {
				dl.attrs = make(map[string]sqstypes.MessageAttributeValue, len(st.e.attrs))
			}
			clear(dl.attrs)
			st.sqsAttrs = dl.attrs
			for k, v := range st.e.attrs {
				st.sqsAttrs[k] = sqstypes.MessageAttributeValue{DataType: v.DataType, StringValue: v.StringValue, BinaryValue: v.BinaryValue}
			}
		}
		in.MessageAttributes = st.sqsAttrs
	} else {
		in.MessageBody = aws.String(s.envelope(sub, st))
	}
	switch {
	case st.t.fifo && sub.queue.fifo:
		in.MessageGroupId, in.MessageDeduplicationId = aws.String(st.e.groupID), aws.String(st.e.dedupID)
	case !st.t.fifo && st.e.groupID != "":
		in.MessageGroupId = aws.String(st.e.groupID)
	}
	if st.e.trace != "" {
		in.MessageSystemAttributes = st.dl.traceAttribute(st.e.trace)
	}
	return in
}

// traceKey carries, from the wire to Publish and PublishBatch, a request's X-Amzn-Trace-Id.
type traceKey struct{}

// traceOf is the X-Ray trace header a publish's request carried: SNS passes it on to the
// messages it delivers into queues as their AWSTraceHeader system attribute, as AWS recorded
// (test_publish_sqs_from_sns_with_xray_propagation). A header SQS would refuse as an
// AWSTraceHeader — not printable ASCII, or over 1,024 bytes — is not passed on (INF: a
// delivery is not lost for its trace).
func traceOf(ctx context.Context) string {
	tr, _ := ctx.Value(traceKey{}).(string)
	if len(tr) > 1024 {
		return ""
	}
	for i := 0; i < len(tr); i++ {
		if tr[i] < 0x20 || tr[i] > 0x7e {
			return ""
		}
	}
	return tr
}

// traceAttribute is the AWSTraceHeader system attribute of a delivery: the topic's scratch
// map, which SendMessage copies what it keeps of.
func (dl *deliveryState) traceAttribute(trace string) map[string]sqstypes.MessageSystemAttributeValue {
	if dl.trace == nil {
		dl.trace = make(map[string]sqstypes.MessageSystemAttributeValue, 1)
	}
	dl.trace[string(sqstypes.MessageSystemAttributeNameForSendsAWSTraceHeader)] = sqstypes.MessageSystemAttributeValue{
		DataType: aws.String("String"), StringValue: aws.String(trace)}
	return dl.trace
}

// snsBase is the base of the URLs in envelopes: SNS's regional endpoint, or the fake's
// server when the queue fake has WithEndpoint (so the GETs reach it).
func (s *Fake) snsBase(region string) string {
	if ep := companion.Endpoint(s.sq); ep != "" {
		return ep
	}
	host := "https://sns." + region + ".amazonaws.com"
	if partitionOf(region) == "aws-cn" {
		host += ".cn"
	}
	return host
}

func (s *Fake) envelope(sub *subscription, st *publishState) string {
	return s.envelopeOf(sub, st, st.sqsText, &st.signature)
}

// envelopeOf is the envelope of st's publication for sub with Message text, its signature
// computed once into *sig.
func (s *Fake) envelopeOf(sub *subscription, st *publishState, text string, sig *string) string {
	t, e := st.t, &st.e
	base := s.snsBase(t.region)
	w := newEnvelope(len(text))
	w.field("Type", "Notification")
	w.field("MessageId", st.messageID)
	if t.fifo {
		w.field("SequenceNumber", st.seq)
	}
	w.field("TopicArn", t.arn)
	if e.hasSubject {
		w.field("Subject", e.subject)
	}
	w.field("Message", text)
	w.field("Timestamp", st.timestamp())
	if !t.fifo {
		version := st.version
		if *sig == "" {
			*sig = theSigner().sign(version, notificationSignedText(text, st.messageID, e.subject, st.timestamp(), t.arn, e.hasSubject))
		}
		w.field("SignatureVersion", version)
		w.field("Signature", *sig)
		w.field("SigningCertURL", base+SigningCertPath())
	}
	w.field("UnsubscribeURL", base+"/?Action=Unsubscribe&SubscriptionArn="+sub.arn)
	if e.structure != "json" {
		w.attributes(e.attrs)
	}
	return w.String()
}

// sendConfirmation delivers the SubscriptionConfirmation of a pending sqs subscription
// into its queue (SPEC-sns.md §5.2); like a notification it needs the queue's policy to
// admit SNS, and is lost otherwise.
func (s *Fake) sendConfirmation(ctx context.Context, sub *subscription) {
	t := sub.t
	p, body := s.confirmation(sub)
	in := &sqs.SendMessageInput{MessageBody: aws.String(body)}
	if sub.queue.fifo {
		in.MessageGroupId, in.MessageDeduplicationId = aws.String(p.MessageID), aws.String(p.MessageID)
	}
	d := Delivery{SubscriptionArn: sub.arn, Endpoint: sub.endpoint, BodySize: len(body)}
	if qid, err := s.sendAs(serviceContext(t, sub.queue.region), &sub.queue, in); err != nil {
		d.Outcome, d.Reason = Lost, reasonOf(err)
	} else {
		d.Outcome, d.SQSMessageID, d.Body = Delivered, qid, keepBody(body, "")
	}
	logDelivery(ctx, t.arn, "SubscriptionConfirmation", p.MessageID, &d)
	p.Deliveries = []Delivery{d}
	s.rec.add(p)
}

// confirmation makes a pending subscription's SubscriptionConfirmation (SPEC-sns.md §5.2):
// its record, without deliveries, and its body.
func (s *Fake) confirmation(sub *subscription) (Publication, string) {
	t := sub.t
	s.nextMsg++
	id := s.uuid(streamMessage, s.nextMsg, 5)
	ts := timestamp(s.sq.Now())
	base := s.snsBase(t.region)
	msg := "You have chosen to subscribe to the topic " + t.arn + ".\nTo confirm the subscription, visit the SubscribeURL included in this message."
	subscribeURL := base + "/?Action=ConfirmSubscription&TopicArn=" + t.arn + "&Token=" + sub.token
	fields := map[string]string{"Type": "SubscriptionConfirmation", "MessageId": id, "Token": sub.token, "TopicArn": t.arn,
		"Message": msg, "SubscribeURL": subscribeURL, "Timestamp": ts}
	version := cmpOr(t.attrs["SignatureVersion"], "1")
	w := newEnvelope(len(msg))
	for _, k := range []string{"Type", "MessageId", "Token", "TopicArn", "Message", "SubscribeURL", "Timestamp"} {
		w.field(k, fields[k])
	}
	w.field("SignatureVersion", version)
	w.field("Signature", theSigner().sign(version, SignedText(fields)))
	w.field("SigningCertURL", base+SigningCertPath())
	return Publication{MessageID: id, TopicArn: t.arn, Message: msg, Time: s.sq.Now(), Confirmation: true}, w.String()
}

// QueuePolicy returns the queue Policy that lets the topic deliver into the queue: the
// statement SNS's guide gives (SPEC-sns.md §7.6) — Principal {"Service":"sns.amazonaws.com"},
// Action sqs:SendMessage on the queue, on condition aws:SourceArn is the topic. Set it as the
// queue's Policy attribute; without one SNS's deliveries are refused, even in the queue's own
// account.
func QueuePolicy(queueArn string, topicArns ...string) string {
	cond := ""
	if len(topicArns) > 0 {
		b, _ := json.Marshal(topicArns)
		if len(topicArns) == 1 {
			b, _ = json.Marshal(topicArns[0])
		}
		cond = `,"Condition":{"ArnEquals":{"aws:SourceArn":` + string(b) + `}}`
	}
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"` + Principal +
		`"},"Action":"sqs:SendMessage","Resource":"` + queueArn + `"` + cond + `}]}`
}

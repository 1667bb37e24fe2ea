package sqsfake

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Message operations of the engine for standard queues.

// sendRequest is one message to send: a SendMessage input or one SendMessageBatch entry.
type sendRequest struct {
	body  string
	delay int32
	// zeroDelay is set when the call gave DelaySeconds explicitly as 0 (explicitMembers): the
	// message then takes no delay rather than the queue's.
	zeroDelay bool
	attrs     map[string]types.MessageAttributeValue
	sys       map[string]types.MessageSystemAttributeValue
	dedupID   *string
	groupID   *string
	// text holds the strings the call gave that are not Unicode text (nonUnicode);
	// nil when there are none.
	text *msgText
	by   uint32 // who sends it (callID.by)
}

// validIdentifier reports whether s is 1–128 alphanumeric or punctuation characters, the
// rule for MessageGroupId, MessageDeduplicationId and ReceiveRequestAttemptId.
func validIdentifier(s string) bool {
	if len(s) < 1 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '!' || c > '~' {
			return false
		}
	}
	return true
}

// validateSend checks one message against the queue's rules, in the order AWS is believed
// to apply them (SPEC.md §5.8; the order when several apply is unverified). In a batch the
// size error says "cannot be validated" as AWS's batch answer does, and the FIFO rules on
// missing ids have been checked for the whole batch already.
func (q *queue) validateSend(r *sendRequest, batch bool) *sqsError {
	if q.fifo != nil && !batch {
		if err := q.missingFifoID(r, false); err != nil {
			return err
		}
	}
	var text msgText
	if r.text != nil {
		text = *r.text
	}
	if text.body.found() {
		return errBodyFault(text.body)
	}
	if err := validateBody(r.body); err != nil {
		return err
	}
	if r.delay < 0 || r.delay > maxDelaySeconds {
		return errInvalidValue(strconv.Itoa(int(r.delay)), "DelaySeconds", "DelaySeconds must be >= 0 and <= 900.")
	}
	if err := validateMessageAttributes(r.attrs, text.attrs); err != nil {
		return err
	}
	if err := validateSystemAttributes(r.sys, text.sys); err != nil {
		return err
	}
	if size := messageSize(r.body, r.attrs); size > q.cfg.maximumMessageSize {
		verb := "are invalid"
		if batch {
			verb = "cannot be validated"
		}
		return errInvalidParameterValue("One or more parameters " + verb + ". Reason: Message must be shorter than " + strconv.Itoa(q.cfg.maximumMessageSize) + " bytes.")
	}
	if r.groupID != nil && !validIdentifier(*r.groupID) {
		return errInvalidValue(*r.groupID, "MessageGroupId", "MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.")
	}
	if q.fifo == nil {
		if r.dedupID != nil {
			return errInvalidValue(*r.dedupID, "MessageDeduplicationId", "The request include parameter that is not valid for this queue type.")
		}
		return nil
	}
	if r.delay > 0 {
		return errInvalidValue(strconv.Itoa(int(r.delay)), "DelaySeconds", "The request include parameter that is not valid for this queue type.")
	}
	if r.dedupID != nil && !validIdentifier(*r.dedupID) {
		return errInvalidValue(*r.dedupID, "MessageDeduplicationId", "MessageDeduplicationId can only include alphanumeric and punctuation characters. 1 to 128 in length.")
	}
	return nil
}

// missingFifoID checks that a message to a FIFO queue names its group and, unless the queue
// deduplicates by content, its deduplication id. SendMessage reports a missing group as
// MissingParameter, SendMessageBatch as InvalidParameterValue (SPEC.md §5.9).
func (q *queue) missingFifoID(r *sendRequest, batch bool) *sqsError {
	if r.groupID == nil {
		if batch {
			return errInvalidParameterValue("The request must contain the parameter MessageGroupId.")
		}
		return errMissingParameter("MessageGroupId")
	}
	if r.dedupID == nil && !q.cfg.contentBasedDedup {
		return errInvalidParameterValue("The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly")
	}
	return nil
}

// sent describes what a send answers with: the message stored, or, for a FIFO duplicate,
// the message the deduplication id first sent.
type sent struct {
	idNum       uint64
	md5Body     [16]byte
	md5Attrs    string
	md5SysAttrs string
	seqNo       uint64 // FIFO SequenceNumber; 0 on a standard queue
}

// enqueue stores a validated message and reports it. A FIFO message whose deduplication id
// was sent within the last five minutes is not stored: the send answers with the original
// MessageId and SequenceNumber (SPEC.md §7; unverified, emulators agree) and the digests of
// what this request sent.
func (f *Fake) enqueue(q *queue, r *sendRequest, now int64) sent {
	m := &message{
		body:       r.body,
		md5Body:    q.lastBody.of(r.body),
		sentAt:     now,
		retainFrom: now,
	}
	if len(r.attrs) > 0 || len(r.sys) > 0 || r.groupID != nil || r.by != 0 {
		ext := &messageExt{sender: r.by}
		ext.attrs, ext.md5Attrs = f.storedAttributes(r)
		if len(r.sys) > 0 {
			sys := r.sys
			if !systemAttributesValidUTF8(sys) {
				sys = copySystemAttributes(sys)
			}
			ext.md5SysAttrs = md5OfSystemAttributes(sys)
			if v, ok := sys["AWSTraceHeader"]; ok && v.StringValue != nil {
				ext.traceHeader = aws.String(*v.StringValue)
			}
		}
		if r.groupID != nil {
			ext.groupID = *r.groupID
		}
		m.ext = ext
	}
	out := sent{md5Body: m.md5Body}
	if m.ext != nil {
		out.md5Attrs, out.md5SysAttrs = m.ext.md5Attrs, m.ext.md5SysAttrs
	}
	delay := q.cfg.delaySeconds
	if q.fifo != nil {
		dedupID := aws.ToString(r.dedupID)
		if r.dedupID == nil {
			dedupID = contentDedupID(r.body)
		}
		key := q.dedupKey(*r.groupID, dedupID)
		if orig, dup := q.fifo.duplicateOf(key, now); dup {
			out.idNum, out.seqNo = orig.idNum, orig.seqNo
			return out
		}
		f.nextMsgID++
		m.idNum = f.nextMsgID
		m.ext.dedupID = dedupID
		f.nextSeqNum++
		m.ext.seqNo = f.nextSeqNum
		q.fifo.remember(key, dedupRecord{idNum: m.idNum, seqNo: m.ext.seqNo, expires: now + int64(dedupWindow)})
		out.idNum, out.seqNo = m.idNum, m.ext.seqNo
	} else {
		if r.delay > 0 || r.zeroDelay {
			delay = int(r.delay)
		}
		f.nextMsgID++
		m.idNum = f.nextMsgID
		out.idNum = m.idNum
	}
	q.add(m, now, now+int64(delay)*int64(time.Second))
	q.recordBy(EventSent, m, now, r.by)
	q.stats.sent++
	if len(q.pollers) > 0 {
		f.servePollers(q, now)
	}
	f.sourceGained(q)
	return out
}

// storedAttributes returns the copy of r's MessageAttributes a message keeps, and its
// MD5OfMessageAttributes (computed over the stored copy: it holds what SQS received, invalid
// UTF-8 replaced by U+FFFD, and a receive that returns every attribute reuses this digest).
// A service principal fanning one message out (an SNS topic's raw deliveries) sends the same
// attributes to many queues: its sends share one stored copy, which nothing writes to
// (reads hand out copies), while the attributes are the same as its last send's. f.mu is held.
func (f *Fake) storedAttributes(r *sendRequest) (map[string]types.MessageAttributeValue, string) {
	if len(r.attrs) == 0 {
		return nil, ""
	}
	service := r.by != 0 && int(r.by) <= len(f.actorList) && f.actorList[r.by-1].service.Service != ""
	if service && f.serviceAttrs.stored != nil && sameAttributes(r.attrs, f.serviceAttrs.stored) {
		return f.serviceAttrs.stored, f.serviceAttrs.md5
	}
	stored := copyMessageAttributes(r.attrs)
	sum := md5OfMessageAttributes(stored)
	if service {
		f.serviceAttrs.stored, f.serviceAttrs.md5 = stored, sum
	}
	return stored, sum
}

// sharedAttributes is the stored copy of a service principal's last sent attributes.
type sharedAttributes struct {
	stored map[string]types.MessageAttributeValue
	md5    string
}

// sameAttributes reports whether in, a send's attributes, are exactly what stored, a stored
// copy, holds: the same names, data types and values. Lists (which SQS does not support
// yet) never compare the same.
func sameAttributes(in, stored map[string]types.MessageAttributeValue) bool {
	if len(in) != len(stored) {
		return false
	}
	for name, v := range in {
		s, ok := stored[name]
		if !ok || v.StringListValues != nil || v.BinaryListValues != nil || !samePtrString(v.DataType, s.DataType) ||
			!samePtrString(v.StringValue, s.StringValue) || (v.BinaryValue == nil) != (s.BinaryValue == nil) ||
			!bytes.Equal(v.BinaryValue, s.BinaryValue) {
			return false
		}
	}
	return true
}

func samePtrString(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// systemAttributesValidUTF8 reports whether every string of attrs is valid UTF-8, so that it
// is exactly what the SDK puts on the wire.
func systemAttributesValidUTF8(attrs map[string]types.MessageSystemAttributeValue) bool {
	for _, v := range attrs {
		if v.DataType != nil && !utf8.ValidString(*v.DataType) || v.StringValue != nil && !utf8.ValidString(*v.StringValue) {
			return false
		}
	}
	return true
}

// messageID returns the message's MessageId.
func (f *Fake) messageID(m *message) string { return uuidFor(f.seed, streamMessageID, m.idNum) }

// sendResult holds a SendMessage output and the strings it points to in one allocation.
type sendResult struct {
	out         sqs.SendMessageOutput
	id, md5     string
	md5Attrs    string
	md5SysAttrs string
	seqNum      string
	text        idAndMD5Text // what id and md5 point into
}

func (f *Fake) sendMessage(a *actor, in *sqs.SendMessageInput, zeros *explicitMembers, text *nonUnicode, id callID) (*sqs.SendMessageOutput, error) {
	r := sendRequest{
		body: sanitizeBody(aws.ToString(in.MessageBody)), delay: in.DelaySeconds, zeroDelay: zeros != nil && zeros.delay,
		attrs: in.MessageAttributes, sys: in.MessageSystemAttributes,
		dedupID: in.MessageDeduplicationId, groupID: in.MessageGroupId, text: text.entry(0), by: id.by,
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "SendMessage")
	if err != nil {
		return nil, err
	}
	now := f.now()
	f.settleAt(q, now)
	if err := q.validateSend(&r, false); err != nil {
		return nil, err
	}
	done := f.enqueue(q, &r, now)
	f.noteSent(id, done.idNum)
	res := &sendResult{md5Attrs: done.md5Attrs, md5SysAttrs: done.md5SysAttrs}
	res.id, res.md5 = f.idAndMD5In(&res.text, done.idNum, &done.md5Body)
	res.out.MessageId, res.out.MD5OfMessageBody = &res.id, &res.md5
	if res.md5Attrs != "" {
		res.out.MD5OfMessageAttributes = &res.md5Attrs
	}
	if res.md5SysAttrs != "" {
		res.out.MD5OfMessageSystemAttributes = &res.md5SysAttrs
	}
	if done.seqNo != 0 {
		res.seqNum = sequenceNumber(done.seqNo)
		res.out.SequenceNumber = &res.seqNum
	}
	return &res.out, nil
}

// idMemo is the last MessageId the fake rendered: a message's id is rendered when it is
// sent, and again when it is received, often next.
type idMemo struct {
	idNum uint64 // 0: none
	text  [uuidLen]byte
}

// appendMessageID appends the MessageId of the message numbered idNum, remembering the last
// one it rendered. Called with f.mu held.
func (f *Fake) appendMessageID(dst []byte, idNum uint64) []byte {
	if m := &f.lastID; m.idNum == idNum && idNum != 0 {
		return append(dst, m.text[:]...)
	}
	dst = appendUUID(dst, f.seed, streamMessageID, idNum)
	f.lastID.idNum = idNum
	copy(f.lastID.text[:], dst[len(dst)-uuidLen:])
	return dst
}

// idAndMD5 returns a MessageId and an MD5OfMessageBody, made in one allocation.
func (f *Fake) idAndMD5(idNum uint64, md5Body *[16]byte) (id, sum string) {
	return f.idAndMD5In(new(idAndMD5Text), idNum, md5Body)
}

// idAndMD5Text is the text of a MessageId and an MD5OfMessageBody.
type idAndMD5Text [uuidLen + 32]byte

// idAndMD5In writes a MessageId and an MD5OfMessageBody into text, and returns them as
// strings that share its memory, so that a caller that has text inside the object it
// returns allocates nothing more. Nothing writes to text afterwards.
func (f *Fake) idAndMD5In(text *idAndMD5Text, idNum uint64, md5Body *[16]byte) (id, sum string) {
	b := f.appendMessageID(text[:0], idNum)
	hex.AppendEncode(b, md5Body[:])
	s := unsafe.String(&text[0], len(text))
	return s[:uuidLen], s[uuidLen:]
}

// validBatchEntryID reports whether id is 1–80 characters of [A-Za-z0-9_-].
func validBatchEntryID(id string) bool { return validQueueName(id, false) }

// checkBatch applies the whole-request rules every batch operation shares (SPEC.md §5.9,
// §5.12): 1–10 entries with valid, distinct ids.
func checkBatch(op string, ids []string) *sqsError {
	if len(ids) == 0 {
		return newError("EmptyBatchRequest", "There should be at least one "+op+"RequestEntry in the request.")
	}
	if len(ids) > 10 {
		return newError("TooManyEntriesInBatchRequest", "Maximum number of entries per request are 10. You have sent "+strconv.Itoa(len(ids))+".")
	}
	for _, id := range ids {
		if !validBatchEntryID(id) {
			return newError("InvalidBatchEntryId", "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.")
		}
	}
	for i, id := range ids {
		for _, other := range ids[:i] {
			if id == other {
				return newError("BatchEntryIdsNotDistinct", "Id "+id+" repeated.")
			}
		}
	}
	return nil
}

// failedEntry reports one failed batch entry. Every per-entry failure SQS reports is the
// sender's fault.
func failedEntry(id string, err *sqsError) types.BatchResultErrorEntry {
	return types.BatchResultErrorEntry{Id: aws.String(id), Code: aws.String(err.code), Message: aws.String(err.message), SenderFault: err.status < 500}
}

// sendEntryError is the error a SendMessageBatch entry fails with where SendMessage would
// answer err. The batch reports a missing parameter as InvalidParameterValue with the same
// message, as AWS does for a FIFO entry without MessageGroupId (SPEC.md §5.9, §11.3); an
// empty body is taken to follow the same rule (unverified: AWS recordings show only that
// one). Every other error is the single call's.
func sendEntryError(err *sqsError) *sqsError {
	if err.shape == "MissingRequiredParameterException" {
		return errInvalidParameterValue(err.message)
	}
	return err
}

// entryFailer fails a batch entry by its Id, for an injected Fault.FailEntries; nil fails none.
type entryFailer func(id string) *sqsError

const maxBatchPayload = 1048576

func (f *Fake) sendMessageBatch(a *actor, in *sqs.SendMessageBatchInput, zeros *explicitMembers, text *nonUnicode, failEntry entryFailer, cid callID) (*sqs.SendMessageBatchOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "SendMessage")
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(in.Entries))
	for i, e := range in.Entries {
		ids[i] = aws.ToString(e.Id)
	}
	if err := checkBatch("SendMessageBatch", ids); err != nil {
		return nil, err
	}
	reqs := make([]sendRequest, len(in.Entries))
	total := 0
	for i, e := range in.Entries {
		reqs[i] = sendRequest{
			body: sanitizeBody(aws.ToString(e.MessageBody)), delay: e.DelaySeconds, zeroDelay: zeros.entryDelay(i),
			attrs: e.MessageAttributes, sys: e.MessageSystemAttributes,
			dedupID: e.MessageDeduplicationId, groupID: e.MessageGroupId, text: text.entry(i), by: cid.by,
		}
		total += messageSize(reqs[i].body, reqs[i].attrs)
	}
	if total > maxBatchPayload {
		return nil, newError("BatchRequestTooLong", "Batch requests cannot be longer than 1048576 bytes. You have sent "+strconv.Itoa(total)+" bytes.")
	}
	if q.fifo != nil {
		for i := range reqs {
			if err := q.missingFifoID(&reqs[i], true); err != nil {
				return nil, err
			}
		}
	}
	now := f.now()
	f.settleAt(q, now)
	out := &sqs.SendMessageBatchOutput{}
	for i := range reqs {
		if failEntry != nil {
			if err := failEntry(ids[i]); err != nil {
				out.Failed = append(out.Failed, failedEntry(ids[i], err))
				continue
			}
		}
		if err := q.validateSend(&reqs[i], true); err != nil {
			out.Failed = append(out.Failed, failedEntry(ids[i], sendEntryError(err)))
			continue
		}
		done := f.enqueue(q, &reqs[i], now)
		f.noteSent(cid, done.idNum)
		id, sum := f.idAndMD5(done.idNum, &done.md5Body)
		entry := types.SendMessageBatchResultEntry{Id: aws.String(ids[i]), MessageId: &id, MD5OfMessageBody: &sum}
		if done.md5Attrs != "" {
			entry.MD5OfMessageAttributes = aws.String(done.md5Attrs)
		}
		if done.md5SysAttrs != "" {
			entry.MD5OfMessageSystemAttributes = aws.String(done.md5SysAttrs)
		}
		if done.seqNo != 0 {
			entry.SequenceNumber = aws.String(sequenceNumber(done.seqNo))
		}
		if out.Successful == nil {
			out.Successful = make([]types.SendMessageBatchResultEntry, 0, len(in.Entries)) // one allocation, not four
		}
		out.Successful = append(out.Successful, entry)
	}
	return out, nil
}

// deleteOne deletes the message a receipt handle names (SPEC.md §5.11). On a standard queue
// any handle the message was ever received with deletes it, and deleting a message that is
// already gone succeeds. On a FIFO queue only the handle of the current, unexpired receive
// does.
func (f *Fake) deleteOne(q *queue, handle string, now int64, id callID) *sqsError {
	m, r, err := f.messageOf(q, handle)
	if err != nil {
		return err
	}
	if m == nil {
		q.stats.deleted++ // CloudWatch counts duplicate deletions too
		f.noteNoEffect(id, q, r, now)
		return nil
	}
	if q.fifo != nil && !m.heldBy(r) {
		return errHandleExpired(handle)
	}
	q.stats.deleted++
	if m.dupCopy {
		// The copy a duplicate delivery left visible is on a server this delete misses
		// too; the next receive takes it.
		f.noteChaos(id)
		q.recordBy(EventDeleteMissed, m, now, id.by)
		return nil
	}
	if q.fifo == nil && f.chaosRedeliver(m, id) {
		f.noteChaos(id)
		q.recordBy(EventDeleteMissed, m, now, id.by)
		return nil
	}
	q.recordBy(EventDeleted, m, now, id.by)
	q.remove(m, now)
	f.sourceGained(q) // a FIFO group may have unlocked
	return nil
}

// heldBy reports whether r is the receive that currently holds m in flight.
func (m *message) heldBy(r receipt) bool { return m.inFlight() && m.receiveCount == r.receive }

func errHandleExpired(handle string) *sqsError {
	return errInvalidValue(handle, "ReceiptHandle", "The receipt handle has expired.")
}

// messageOf resolves a receipt handle of q to its message, which is nil when the message is
// no longer in the queue.
func (f *Fake) messageOf(q *queue, handle string) (*message, receipt, *sqsError) {
	r, err := f.readReceipt(handle)
	if err != nil {
		return nil, r, errReceiptHandleIsInvalid(handle)
	}
	if r.queue != q.id {
		return nil, r, newError("ReceiptHandleIsInvalid", `The receipt handle "`+echo(handle)+`" is not valid for this queue.`)
	}
	return q.msgs[r.msg], r, nil
}

func (f *Fake) deleteMessage(a *actor, in *sqs.DeleteMessageInput, id callID) (*sqs.DeleteMessageOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "DeleteMessage")
	if err != nil {
		return nil, err
	}
	now := f.settle(q)
	if err := f.deleteOne(q, aws.ToString(in.ReceiptHandle), now, id); err != nil {
		return nil, err
	}
	f.servePollers(q, now) // a deleted FIFO head unlocks its group; a freed in-flight slot
	return &sqs.DeleteMessageOutput{}, nil
}

func (f *Fake) deleteMessageBatch(a *actor, in *sqs.DeleteMessageBatchInput, failEntry entryFailer, id callID) (*sqs.DeleteMessageBatchOutput, error) {
	ok, failed, err := runBatch(f, a, "DeleteMessageBatch", in.QueueUrl, in.Entries,
		func(e types.DeleteMessageBatchRequestEntry) *string { return e.Id }, failEntry,
		func(q *queue, e types.DeleteMessageBatchRequestEntry, now int64) *sqsError {
			return f.deleteOne(q, aws.ToString(e.ReceiptHandle), now, id)
		})
	if err != nil {
		return nil, err
	}
	out := &sqs.DeleteMessageBatchOutput{Failed: failed}
	if len(ok) > 0 {
		out.Successful = make([]types.DeleteMessageBatchResultEntry, len(ok))
	}
	for i := range ok {
		out.Successful[i] = types.DeleteMessageBatchResultEntry{Id: &ok[i]} // ok is this call's own
	}
	return out, nil
}

// runBatch runs a DeleteMessageBatch or ChangeMessageVisibilityBatch: the whole-request
// checks, then one for each entry in order. It returns the ids of the entries that
// succeeded and the failures of the others. A deleted FIFO head or a visibility set to 0
// may have made messages available, so parked polls are served at the end.
func runBatch[E any](f *Fake, a *actor, op string, queueURL *string, entries []E, id func(E) *string, failEntry entryFailer,
	one func(q *queue, e E, now int64) *sqsError) ([]string, []types.BatchResultErrorEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(queueURL), strings.TrimSuffix(op, "Batch"))
	if err != nil {
		return nil, nil, err
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = aws.ToString(id(e))
	}
	if err := checkBatch(op, ids); err != nil {
		return nil, nil, err
	}
	now := f.settle(q)
	var ok []string
	var failed []types.BatchResultErrorEntry
	for i, e := range entries {
		err := (*sqsError)(nil)
		if failEntry != nil {
			err = failEntry(ids[i])
		}
		if err == nil {
			err = one(q, e, now)
		}
		if err != nil {
			failed = append(failed, failedEntry(ids[i], err))
			continue
		}
		if ok == nil {
			ok = make([]string, 0, len(entries))
		}
		ok = append(ok, ids[i])
	}
	f.servePollers(q, now)
	return ok, failed, nil
}

// changeVisibilityOne applies ChangeMessageVisibility for one handle (SPEC.md §5.13), or one
// entry of ChangeMessageVisibilityBatch when batch is set.
func (f *Fake) changeVisibilityOne(q *queue, handle string, timeout int32, now int64, batch bool, id callID) *sqsError {
	if timeout < 0 {
		// Unverified wording; a value above 43200 gets AWS's "Total VisibilityTimeout"
		// answer below, as any value too long for the message does.
		return errInvalidValue(strconv.Itoa(int(timeout)), "VisibilityTimeout", "Must be >= 0 and <= 43200, if provided.")
	}
	m, r, err := f.messageOf(q, handle)
	if err != nil {
		return err
	}
	if m == nil {
		if batch {
			// A batch entry answers with another code and message than the single call,
			// without a final period: recorded on AWS (us-east-2, March 2026; SPEC.md §5.14).
			return newError("ReceiptHandleIsInvalid", "Message does not exist or is not available for visibility timeout change")
		}
		return errInvalidValue(handle, "ReceiptHandle", "Message does not exist or is not available for visibility timeout change.")
	}
	if q.fifo != nil && !m.heldBy(r) {
		// On a FIFO queue a handle whose visibility has lapsed no longer changes anything
		// (issue 4; AWS records this answer for DeleteMessage).
		return errHandleExpired(handle)
	}
	if !m.inFlight() {
		// Its visibility already lapsed: AWS answers 200 and changes nothing.
		f.noteNoEffect(id, q, r, now)
		return nil
	}
	if now-m.recvAt+int64(timeout)*int64(time.Second) > maxVisibilityTimeout*int64(time.Second) {
		return errInvalidValue(strconv.Itoa(int(timeout)), "VisibilityTimeout", "Total VisibilityTimeout for the message is beyond the limit [43200 seconds].")
	}
	deadline := now + int64(timeout)*int64(time.Second)
	q.hist.add(event{at: now, arg: uint64(deadline), idNum: m.idNum, queue: q.id, to: id.by, kind: EventVisibilityChanged})
	if timeout == 0 {
		q.makeVisible(m, now)
		q.record(EventVisibleAgain, m, now)
		f.servePollers(q, now)
		f.sourceGained(q)
		return nil
	}
	q.hide(m, deadline)
	q.kickPollers()
	f.sourceGained(q) // a shorter timeout brings the message back sooner
	return nil
}

func (f *Fake) changeMessageVisibility(a *actor, in *sqs.ChangeMessageVisibilityInput, zeros *explicitMembers, id callID) (*sqs.ChangeMessageVisibilityOutput, error) {
	if zeros != nil && zeros.noVisibility {
		return nil, errMissingParameter("VisibilityTimeout")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "ChangeMessageVisibility")
	if err != nil {
		return nil, err
	}
	now := f.settle(q)
	if err := f.changeVisibilityOne(q, aws.ToString(in.ReceiptHandle), in.VisibilityTimeout, now, false, id); err != nil {
		return nil, err
	}
	return &sqs.ChangeMessageVisibilityOutput{}, nil
}

func (f *Fake) changeMessageVisibilityBatch(a *actor, in *sqs.ChangeMessageVisibilityBatchInput, failEntry entryFailer, id callID) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	ok, failed, err := runBatch(f, a, "ChangeMessageVisibilityBatch", in.QueueUrl, in.Entries,
		func(e types.ChangeMessageVisibilityBatchRequestEntry) *string { return e.Id }, failEntry,
		func(q *queue, e types.ChangeMessageVisibilityBatchRequestEntry, now int64) *sqsError {
			return f.changeVisibilityOne(q, aws.ToString(e.ReceiptHandle), e.VisibilityTimeout, now, true, id)
		})
	if err != nil {
		return nil, err
	}
	out := &sqs.ChangeMessageVisibilityBatchOutput{Failed: failed}
	if len(ok) > 0 {
		out.Successful = make([]types.ChangeMessageVisibilityBatchResultEntry, len(ok))
	}
	for i := range ok {
		out.Successful[i] = types.ChangeMessageVisibilityBatchResultEntry{Id: &ok[i]} // ok is this call's own
	}
	return out, nil
}

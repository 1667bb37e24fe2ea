package sqsfake

import (
	"encoding/base64"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Queue-level operations of the engine. Each one locks the fake, validates everything
// before it changes anything, and returns values that share no memory with the fake.

const (
	queueNameRule     = "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
	fifoQueueNameRule = "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length."
	nameCooldown      = 60 * time.Second
	// neverPurged marks a queue that was never purged. It cannot be 0: a clock may stand at
	// the Unix epoch (a fresh benbjohnson clock.NewMock() does), where a purge happens at 0.
	neverPurged = math.MinInt64
)

// redriveResolverFor checks a RedrivePolicy target for the queue whose ARN is source: it must
// be a queue of this fake, of the same kind, whose RedriveAllowPolicy admits source. The
// reasons' texts are unverified against AWS (SPEC.md §8.1, §13).
//
// A target in another account or region is refused as one that does not exist: "a dead
// letter queue must be created using the same AWS account and region as the source queue"
// (SPEC-access §7; AWS's answer to one is unverified).
func (f *Fake) redriveResolverFor(sp *space, source string) redriveResolver {
	return func(arn string, fifo bool) string {
		dlq := f.lookupARN(arn)
		if dlq == nil || dlq.sp != sp {
			return "Dead letter target does not exist."
		}
		if dlq.cfg.fifo != fifo {
			if fifo {
				return "Dead-letter queue must be a FIFO queue for a FIFO source queue."
			}
			return "Dead-letter queue must be a standard queue for a standard source queue."
		}
		if !dlq.cfg.redriveAllowPolicy.allows(source) {
			return "Queue " + source + " is not allowed to use " + arn + " as its dead-letter queue by the RedriveAllowPolicy of " + arn + "."
		}
		return ""
	}
}

func (f *Fake) createQueue(a *actor, in *sqs.CreateQueueInput) (*sqs.CreateQueueOutput, error) {
	name := aws.ToString(in.QueueName)
	sp := a.sp
	key := queueKey{sp, name}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	// Move tasks that were due before this queue existed must not see it.
	f.progressTasks(now)

	fifo := false
	if v, ok := in.Attributes[attrFifoQueue]; ok {
		b, err := parseBool(attrFifoQueue, v)
		if err != nil {
			return nil, err
		}
		fifo = b
	}
	if !validQueueName(name, fifo) {
		rule := queueNameRule
		if fifo {
			rule = fifoQueueNameRule
		}
		return nil, errInvalidParameterValue(rule)
	}
	cfg, err := defaultQueueConfig(fifo).applyAttributes(in.Attributes, true, f.redriveResolverFor(sp, queueARN(sp, name)))
	if err != nil {
		return nil, err
	}
	if q := f.queues[key]; q != nil {
		for _, attr := range sortedKeys(in.Attributes) {
			want, _ := cfg.comparable(attr)
			have, _ := q.cfg.comparable(attr)
			if want != have {
				return nil, newError("QueueNameExists", "A queue already exists with the same name and a different value for attribute "+attr)
			}
		}
		// Tags given to an idempotent re-create are ignored (SPEC.md §5.1, unverified).
		return &sqs.CreateQueueOutput{QueueUrl: aws.String(q.url)}, nil
	}
	if at, ok := f.deletedAt[key]; ok {
		if now-at < int64(nameCooldown) {
			return nil, newError("QueueDeletedRecently", "You must wait 60 seconds after deleting a queue before you can create another with the same name.")
		}
		delete(f.deletedAt, key)
	}
	var tags map[string]string
	if len(in.Tags) > 0 {
		if err := validateTags(name, nil, in.Tags); err != nil {
			return nil, err
		}
		tags = make(map[string]string, len(in.Tags))
		for k, v := range in.Tags {
			tags[k] = v
		}
	}
	f.nextQueueID++
	q := newQueue(f.nextQueueID, name, f.queueURL(sp, name), queueARN(sp, name), cfg, now)
	q.sp = sp
	q.tags = tags
	q.lastPurge = neverPurged
	q.hist = &f.hist
	f.queueNames[q.id] = name
	f.queues[key] = q
	f.queuesByID[q.id] = q
	return &sqs.CreateQueueOutput{QueueUrl: aws.String(q.url)}, nil
}

func (f *Fake) getQueueURL(a *actor, in *sqs.GetQueueUrlInput) (*sqs.GetQueueUrlOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sp := a.sp
	if owner := aws.ToString(in.QueueOwnerAWSAccountId); owner != "" && owner != sp.account {
		// Another account's queue: its owner must grant sqs:GetQueueUrl, and a caller it
		// does not admit learns nothing — not even that the queue exists (SPEC-access §6).
		if sp = f.findSpace(owner, sp.region); sp == nil {
			return nil, errQueueDoesNotExist()
		}
	}
	q := f.queues[queueKey{sp, aws.ToString(in.QueueName)}]
	if q == nil {
		return nil, errQueueDoesNotExist()
	}
	if err := access(a, q, "GetQueueUrl"); err != nil {
		if q.sp.account != a.sp.account {
			return nil, errQueueDoesNotExist()
		}
		return nil, err
	}
	return &sqs.GetQueueUrlOutput{QueueUrl: aws.String(q.url)}, nil
}

// pageOf returns one page of sorted names for ListQueues and ListDeadLetterSourceQueues.
// Without maxResults it returns at most 1,000 and never a token (SPEC.md §5.3). The token is
// the base64 of the last name returned; the texts of the errors are unverified.
func pageOf(names []string, maxResults *int32, token *string) ([]string, *string, *sqsError) {
	limit := 1000
	if maxResults != nil {
		if *maxResults < 1 || *maxResults > 1000 {
			return nil, nil, errInvalidValue(strconv.Itoa(int(*maxResults)), "MaxResults", "MaxResults must be an integer between 1 and 1000.")
		}
		limit = int(*maxResults)
	}
	start := 0
	if token != nil && *token != "" {
		after, err := base64.RawURLEncoding.DecodeString(*token)
		if err != nil || len(after) == 0 {
			return nil, nil, errInvalidParameterValue("Invalid NextToken value.")
		}
		start = sort.SearchStrings(names, string(after))
		if start < len(names) && names[start] == string(after) {
			start++
		}
	}
	end := min(start+limit, len(names))
	page := names[start:end]
	var next *string
	if maxResults != nil && end < len(names) {
		next = aws.String(base64.RawURLEncoding.EncodeToString([]byte(page[len(page)-1])))
	}
	return page, next, nil
}

func (f *Fake) listQueues(a *actor, in *sqs.ListQueuesInput) (*sqs.ListQueuesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	prefix := aws.ToString(in.QueueNamePrefix)
	urls, next, err := f.queueURLPage(a.sp, func(q *queue) bool { return strings.HasPrefix(q.name, prefix) }, in.MaxResults, in.NextToken)
	if err != nil {
		return nil, err
	}
	return &sqs.ListQueuesOutput{QueueUrls: urls, NextToken: next}, nil
}

func (f *Fake) listDeadLetterSourceQueues(a *actor, in *sqs.ListDeadLetterSourceQueuesInput) (*sqs.ListDeadLetterSourceQueuesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	dlq, err := f.queueFor(a, aws.ToString(in.QueueUrl), "ListDeadLetterSourceQueues")
	if err != nil {
		return nil, err
	}
	urls, next, perr := f.queueURLPage(dlq.sp, func(q *queue) bool {
		p := q.cfg.redrivePolicy
		return p != nil && p.deadLetterTargetArn == dlq.arn
	}, in.MaxResults, in.NextToken)
	if perr != nil {
		return nil, perr
	}
	// Like ListQueues, an empty result has no QueueUrls: AWS's JSON answers omit empty
	// lists even where the model marks them required (SPEC.md §5.9's Failed).
	return &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: urls, NextToken: next}, nil
}

// queueURLPage returns one page of the URLs of the queues keep selects, in name order, for
// ListQueues and ListDeadLetterSourceQueues; nil when none is selected.
func (f *Fake) queueURLPage(sp *space, keep func(*queue) bool, maxResults *int32, token *string) ([]string, *string, *sqsError) {
	var names []string
	for key, q := range f.queues {
		if key.sp == sp && keep(q) {
			names = append(names, key.name)
		}
	}
	sort.Strings(names)
	page, next, err := pageOf(names, maxResults, token)
	if err != nil {
		return nil, nil, err
	}
	var urls []string
	for _, name := range page {
		urls = append(urls, f.queues[queueKey{sp, name}].url)
	}
	return urls, next, nil
}

func (f *Fake) deleteQueue(a *actor, in *sqs.DeleteQueueInput) (*sqs.DeleteQueueOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "DeleteQueue")
	if err != nil {
		return nil, err
	}
	// Bring the fake up to now first: a move task that was due to move messages into or
	// out of this queue before the delete must have done so.
	now := f.settle(q)
	for _, m := range q.inSendOrder() {
		q.record(EventQueueDeleted, m, now)
	}
	delete(f.queues, queueKey{q.sp, q.name})
	delete(f.queuesByID, q.id)
	f.lastLookup = lookupCache{}
	f.deletedAt[queueKey{q.sp, q.name}] = now
	f.endPollsOf(q)
	return &sqs.DeleteQueueOutput{}, nil
}

func (f *Fake) getQueueAttributes(a *actor, in *sqs.GetQueueAttributesInput) (*sqs.GetQueueAttributesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "GetQueueAttributes")
	if err != nil {
		return nil, err
	}
	all := false
	for _, n := range in.AttributeNames {
		if !knownQueueAttributes[string(n)] {
			return nil, errUnknownAttribute(string(n))
		}
		all = all || n == types.QueueAttributeNameAll
	}
	out := &sqs.GetQueueAttributesOutput{}
	if len(in.AttributeNames) == 0 {
		return out, nil
	}
	f.settle(q)
	names := allQueueAttributeNames
	if !all {
		names = make([]string, len(in.AttributeNames))
		for i, n := range in.AttributeNames {
			names[i] = string(n)
		}
	}
	for _, n := range names {
		if v, ok := q.attribute(n); ok {
			if out.Attributes == nil {
				out.Attributes = make(map[string]string)
			}
			out.Attributes[n] = v
		}
	}
	return out, nil
}

func (f *Fake) setQueueAttributes(a *actor, in *sqs.SetQueueAttributesInput) (*sqs.SetQueueAttributesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "SetQueueAttributes")
	if err != nil {
		return nil, err
	}
	if len(in.Attributes) == 0 {
		return &sqs.SetQueueAttributesOutput{}, nil
	}
	// Settle under the old settings first: a message that was due before the change keeps
	// the history it had.
	f.settle(q)
	cfg, aerr := q.cfg.applyAttributes(in.Attributes, false, f.redriveResolverFor(q.sp, q.arn))
	if aerr != nil {
		return nil, aerr
	}
	delayChanged := cfg.delaySeconds != q.cfg.delaySeconds
	q.cfg = cfg
	q.modified = f.now()
	if delayChanged && q.fifo != nil {
		q.reapplyDelay(q.modified)
	}
	// The new settings take effect now: a shorter retention period ends messages (and
	// unlocks FIFO groups) at once, and the queue's next events may have moved.
	q.settle(q.modified)
	q.kickPollers()
	f.servePollers(q, q.modified)
	return &sqs.SetQueueAttributesOutput{}, nil
}

func (f *Fake) purgeQueue(a *actor, in *sqs.PurgeQueueInput) (*sqs.PurgeQueueOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "PurgeQueue")
	if err != nil {
		return nil, err
	}
	// Settle first, so that what was due before the purge (a move task's progress) happens.
	now := f.settle(q)
	if q.lastPurge != neverPurged && now-q.lastPurge < int64(f.purgeCooldown) {
		return nil, newError("PurgeQueueInProgress", "Only one PurgeQueue operation on "+q.name+" is allowed every "+seconds(f.purgeCooldown)+".")
	}
	q.purge(now)
	q.lastPurge = now
	return &sqs.PurgeQueueOutput{}, nil
}

// seconds words d as SQS's PurgeQueueInProgress message words its 60 s: "60 seconds".
func seconds(d time.Duration) string {
	if d == time.Second {
		return "1 second"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " seconds"
}

// Tag rules (SPEC.md §5.16). AWS documents the limits; the texts of their errors are
// unverified and follow AWS's style.
const maxTagsPerQueue = 50

func validTagText(s string) bool {
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) || strings.ContainsRune("_.:/=+-@", r)) {
			return false
		}
	}
	return true
}

// validateTags checks tags being added to a queue that already has existing.
func validateTags(queueName string, existing, tags map[string]string) *sqsError {
	for _, k := range sortedKeys(tags) {
		v := tags[k]
		if n := utf8.RuneCountInString(k); n < 1 || n > 128 {
			return errInvalidParameterValue("Tag keys must be between 1 and 128 characters in length.")
		}
		if utf8.RuneCountInString(v) > 256 {
			return errInvalidParameterValue("Tag values must be less than 256 characters in length.")
		}
		if strings.HasPrefix(strings.ToLower(k), "aws:") {
			return errInvalidParameterValue("Tag keys must not start with the reserved prefix aws:.")
		}
		if !validTagText(k) || !validTagText(v) {
			return errInvalidParameterValue("Tag keys and values can only contain Unicode letters, digits, white space, and these symbols: _ . : / = + - @")
		}
	}
	total := len(existing)
	for k := range tags {
		if _, ok := existing[k]; !ok {
			total++
		}
	}
	if total > maxTagsPerQueue {
		return errInvalidParameterValue("Too many tags added for queue " + queueName + ".")
	}
	return nil
}

func (f *Fake) tagQueue(a *actor, in *sqs.TagQueueInput) (*sqs.TagQueueOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "TagQueue")
	if err != nil {
		return nil, err
	}
	if len(in.Tags) == 0 {
		return nil, errMissingParameter("Tags")
	}
	if err := validateTags(q.name, q.tags, in.Tags); err != nil {
		return nil, err
	}
	if q.tags == nil {
		q.tags = make(map[string]string, len(in.Tags))
	}
	for k, v := range in.Tags {
		q.tags[k] = v
	}
	return &sqs.TagQueueOutput{}, nil
}

func (f *Fake) untagQueue(a *actor, in *sqs.UntagQueueInput) (*sqs.UntagQueueOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "UntagQueue")
	if err != nil {
		return nil, err
	}
	if len(in.TagKeys) == 0 {
		return nil, errInvalidParameterValue("Tag keys must be between 1 and 128 characters in length.")
	}
	for _, k := range in.TagKeys {
		delete(q.tags, k)
	}
	if len(q.tags) == 0 {
		q.tags = nil
	}
	return &sqs.UntagQueueOutput{}, nil
}

func (f *Fake) listQueueTags(a *actor, in *sqs.ListQueueTagsInput) (*sqs.ListQueueTagsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "ListQueueTags")
	if err != nil {
		return nil, err
	}
	out := &sqs.ListQueueTagsOutput{}
	if len(q.tags) > 0 {
		out.Tags = make(map[string]string, len(q.tags))
		for k, v := range q.tags {
			out.Tags[k] = v
		}
	}
	return out, nil
}

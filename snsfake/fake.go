package snsfake

import (
	"cmp"
	"context"
	"encoding/binary"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/smithy-go/middleware"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
)

// Fake is Amazon SNS in memory, delivering into the queues of one *sqsfake.Fake. Its
// methods have the signatures of *sns.Client's; Client hands out a real *sns.Client answered
// by them. It is safe for concurrent use.
type Fake struct {
	sq      *sqsfake.Fake
	opts    sns.Options
	ownRoot string // the principal ARN of the fake's own account's root user

	mu              sync.Mutex
	topics          map[string]*topic        // by ARN
	counts          map[topicKind]int        // topics per account and kind, for the quotas
	subs            map[string]*subscription // by ARN
	filters         map[string]int           // subscriptions with a filter policy, by subscriber's account
	tokens          map[uint64]*subscription // subscriptions by their token's number (tokens.go)
	tokenKey        [32]byte                 // the key of this epoch's tokens (tokens.go)
	nextMsg         uint64
	nextSub         uint64
	nextToken       uint64
	nextSeq         uint64
	rec             record         // the publication record (record.go)
	gen             uint64         // counts Resets: a publish delivered across one is not recorded
	topicOrder      []string       // the topics' ARNs in order, for TopicPage (pages.go)
	topicOrderStale bool           // a topic was created or deleted since topicOrder was sorted
	hd              httpDeliveries // HTTP/S deliveries on the clock (httpdelivery.go)

	endpoints endpoints // in-memory HTTP/S endpoints and network settings (httpendpoint.go); not s.mu's
}

// New returns an SNS fake on f: it shares f's clock, seed, account and region, and Reset
// (f.Reset empties it too). Topics live in the space (account, region) of the identity
// that creates them, as f's queues do. opts configure it: WithRecordBytes.
func New(f *sqsfake.Fake, opts ...Option) *Fake {
	s := &Fake{sq: f, ownRoot: "arn:" + companion.Partition(f) + ":iam::" + companion.AccountID(f) + ":root"}
	s.rec.limit = DefaultRecordBytes
	for _, o := range opts {
		o(s)
	}
	s.opts = sns.New(sns.Options{
		Region:           companion.Region(f),
		BaseEndpoint:     aws.String("http://sns.fake.invalid"),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
	}).Options()
	s.clear()
	companion.OnReset(f, s.reset)
	names := make([]string, 0, len(operations))
	for op := range operations {
		if op != "PublishBatch" {
			names = append(names, recordName(op))
		}
	}
	names = append(names, deliverOperation) // each POST to an HTTP/S endpoint (httpdelivery.go)
	companion.RegisterOperations(f, names...)
	companion.RegisterBatchOperation(f, recordName("PublishBatch"), publishBatchEntryIDs)
	return s
}

// publishBatchEntryIDs is the entry Ids of a PublishBatch input, for Fault.FailEntries.
func publishBatchEntryIDs(params any) []string {
	in, _ := params.(*sns.PublishBatchInput)
	if in == nil {
		return nil
	}
	ids := make([]string, 0, len(in.PublishBatchRequestEntries))
	for _, e := range in.PublishBatchRequestEntries {
		if e.Id != nil {
			ids = append(ids, *e.Id)
		}
	}
	return ids
}

// SQS is the queue fake the topics deliver into.
func (s *Fake) SQS() *sqsfake.Fake { return s.sq }

// Options returns a copy of the options of the clients Client makes, as (*sns.Client).Options.
func (s *Fake) Options() sns.Options { return s.opts.Copy() }

func (s *Fake) clear() {
	s.topics = make(map[string]*topic)
	s.counts = make(map[topicKind]int)
	s.subs = make(map[string]*subscription)
	s.filters = make(map[string]int)
	s.tokens = make(map[uint64]*subscription)
	s.tokenKey = companion.ServiceKey(s.sq, tokenPurpose)
	s.nextMsg, s.nextSub, s.nextToken, s.nextSeq = 0, 0, 0, 0
	s.rec.clear()
	s.gen++
	s.topicOrder, s.topicOrderStale = nil, false
	s.clearHTTP()
}

func (s *Fake) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
}

// caller is who a call acts as.
type caller struct {
	account, region, principal string
}

// identityCredentials carries an ActAs identity in the client options.
type identityCredentials struct{ id sqsfake.Identity }

func (c identityCredentials) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: cmp.Or(c.id.AccountID, "sqsfake"), SecretAccessKey: "sqsfake", Source: "snsfake.ActAs"}, nil
}

// ActAs returns an option that makes a call act as the identity id, as sqsfake.ActAs does
// for the queue fake: in id's account (or the account of its PrincipalARN) and region,
// defaulting to the fake's. Pass it to a method of Fake or to Client.
func ActAs(id sqsfake.Identity) func(*sns.Options) {
	return func(o *sns.Options) {
		if id.Region != "" {
			o.Region = id.Region
		}
		o.Credentials = identityCredentials{id}
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(identityMiddleware{id}, middleware.After)
		})
	}
}

// identityMiddleware tells Client's middleware about a per-call ActAs.
type identityMiddleware struct{ id sqsfake.Identity }

type identityKey struct{}

func (identityMiddleware) ID() string { return "SNSFakeActAs" }

func (m identityMiddleware) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error) {
	return next.HandleInitialize(context.WithValue(ctx, identityKey{}, m.id), in)
}

// callerOf resolves who a call with optFns acts as.
func (s *Fake) callerOf(optFns []func(*sns.Options)) caller {
	c := caller{account: companion.AccountID(s.sq), region: companion.Region(s.sq)}
	if len(optFns) > 0 {
		o := s.opts.Copy()
		for _, fn := range optFns {
			fn(&o)
		}
		c.region = cmp.Or(o.Region, c.region)
		if ic, ok := o.Credentials.(identityCredentials); ok {
			c.account = cmp.Or(ic.id.AccountID, accountOfPrincipal(ic.id.PrincipalARN), c.account)
			c.principal = ic.id.PrincipalARN
		}
	}
	switch {
	case c.principal != "":
	case c.account == companion.AccountID(s.sq) && partitionOf(c.region) == companion.Partition(s.sq):
		c.principal = s.ownRoot
	default:
		c.principal = "arn:" + partitionOf(c.region) + ":iam::" + c.account + ":root"
	}
	return c
}

// accountOfPrincipal reads the account of arn:<p>:iam::<account>:… or arn:<p>:sts::<account>:….
func accountOfPrincipal(arn string) string {
	parts := splitN(arn, ':', 6)
	if len(parts) == 6 && parts[0] == "arn" && (parts[2] == "iam" || parts[2] == "sts") {
		return parts[4]
	}
	return ""
}

func partitionOf(region string) string {
	switch {
	case len(region) > 3 && region[:3] == "cn-":
		return "aws-cn"
	case len(region) > 7 && region[:7] == "us-gov-":
		return "aws-us-gov"
	}
	return "aws"
}

// splitN splits s at sep into at most n parts, as strings.SplitN, for ARNs.
func splitN(s string, sep byte, n int) []string {
	var out []string
	for len(out) < n-1 {
		i := indexByte(s, sep)
		if i < 0 {
			break
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
	return append(out, s)
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// Identifiers: seeded, so the same calls give the same ids run after run.

const (
	streamMessage = iota + 102
	streamSubscription
)

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

const hexDigits = "0123456789abcdef"

// uuid formats the UUID for (seed, stream, n) with the given version nibble: MessageIds
// have version 5 as SNS's do, subscription ids version 4 (SPEC-sns.md §3); request ids are the
// queue fake's (companion.ServiceCall).
func (s *Fake) uuid(stream, n uint64, version byte) string {
	hi := mix64(companion.Seed(s.sq) ^ mix64(stream) ^ n)
	lo := mix64(hi ^ n ^ 0x5851f42d4c957f2d)
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], hi)
	binary.BigEndian.PutUint64(b[8:], lo)
	b[6] = b[6]&0x0f | version<<4
	b[8] = b[8]&0x3f | 0x80
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexDigits[c>>4], hexDigits[c&0x0f])
	}
	return string(out)
}

// sequenceNumber is the next FIFO sequence number: 20 decimal digits, increasing, not
// consecutive (SPEC-sns.md §3).
func (s *Fake) sequenceNumber() string {
	s.nextSeq++
	return strconv.FormatUint(10000000000000000000+s.nextSeq*4096, 10)
}

// timestamp is t as SNS writes it: UTC, milliseconds.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

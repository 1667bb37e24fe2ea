// Package sqsfake is a deterministic, in-memory fake of Amazon SQS for Go tests.
//
// A *Fake has the method set of *sqs.Client from aws-sdk-go-v2, so it satisfies whatever
// interface a service declares over the client. It runs on a virtual clock: move it with
// Advance and watch messages become visible again, count their receives and land in a
// dead-letter queue — no network, no container, no sleeps. A first test:
//
//	func TestAMessageComesBackAfterItsVisibilityTimeout(t *testing.T) {
//		ctx := context.Background()
//		f := sqsfake.NewForTest(t) // fails t if a long poll is left waiting
//		q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
//		sent, _ := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hi")})
//		f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl}) // a consumer that crashes before it deletes
//		sqsfake.AssertInFlight(t, f, "jobs", *sent.MessageId)
//		f.Advance(30 * time.Second) // the visibility timeout lapses
//		sqsfake.AssertVisibleCount(t, f, "jobs", 1)
//	}
//
// [NewForTest] is the constructor for a test; [New] the same fake without one.
//
// # Where things are
//
//   - Assertions: AssertVisibleCount, AssertInFlight, AssertReceiveCount, AssertMovedToDLQ,
//     AssertDeleted, AssertLastError, AssertCallCount, … — each AssertX reports with t.Errorf
//     and returns false, and its RequireX twin stops the test, as testify's assert and
//     require do. A failure prints the timelines that explain it.
//   - Inspection: [Fake.Queue], [Fake.Message], [Fake.InFlight], [Fake.DeadLettersFrom] (the
//     source queue), [Fake.DeadLettersIn] (the dead-letter queue), [Fake.FindMessage] and
//     [Fake.Timeline] return copied snapshots. A queue is named by its name, URL or ARN; one
//     that does not exist is an error wrapping [ErrNoQueue] that lists the queues there are.
//   - Time: [Fake.Advance] moves the clock; [Fake.WaitForCalls], [Fake.WaitForPollers] and
//     [Fake.WaitForTimers] wait until a goroutine waits, before the clock moves.
//   - Faults: [Fake.InjectFault] makes calls fail, lose their responses or answer late;
//     [WithChaos] makes every disturbance SQS permits happen at rates from a seed:
//     duplicates, reordering, short polls that return fewer, lost answers, throttling, ….
//   - Exploration: [Explore] runs a scenario under many seeds of those disturbances and
//     reports the smallest list that breaks it, in words, with a replay line.
//   - The call record: [Fake.Calls], [Fake.CallCount] and [Fake.LastError], every call
//     through every door.
//   - Other doors: [Fake.Client] (a real *sqs.Client answered in memory), [Fake.Handler]
//     (SQS's wire protocols over HTTP), and the server cmd/sqsfake for any language.
//
// Companions: package heartbeat keeps a slow handler's message hidden, in production code,
// and is tested on the fake's clock; package lambdasqs plays Lambda's SQS trigger on it, and
// package snsfake SNS topics that deliver into its queues. Package companion is how to build
// one: the contract between a companion and the fake, kept out of this package's surface.
//
// # Reference
//
// docs/api.md in the repository groups every method of Fake by purpose (go doc sorts them
// alphabetically); docs/testing-aids.md has the options, inspection, timelines, the call
// record, assertions and faults in full; docs/fidelity.md what the fake chose where AWS is
// silent, and what AWS does that looks like a bug of the fake but is not.
//
// To work on the fake itself, read ARCHITECTURE.md at the repository root first: a map of
// which file holds what — the engine, its three doors, the test aids — and the rule that the
// doors depend on the engine, never the reverse.
package sqsfake

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"
)

// Defaults of a new Fake.
const (
	DefaultRegion    = "us-east-1"
	DefaultAccountID = "123456789012"
	// DefaultSenderID is the SenderId system attribute of messages sent to a Fake: an IAM
	// user id in AWS's format.
	DefaultSenderID = "AIDASQSFAKEEXAMPLE001"
	// DefaultInFlightLimit is the number of in-flight messages a standard queue allows
	// before a short-poll receive fails with OverLimit (SPEC.md §10).
	DefaultInFlightLimit = 120000
	// DefaultPurgeCooldown is how long after a PurgeQueue another PurgeQueue of the same
	// queue fails with PurgeQueueInProgress, as on SQS (SPEC.md §5.7).
	DefaultPurgeCooldown = 60 * time.Second
	// DefaultCallLimit is how many of the newest calls the call record keeps at least when
	// no WithCallLimit is given: every call of a test of ordinary size, while the record's
	// memory stays bounded (about 3 MB) and is reused, which keeps the record's cost per call
	// low (BenchmarkSendReceiveDeleteCycle: about 0.1 µs a call bounded, 0.25 µs unbounded).
	DefaultCallLimit = 1 << 16
)

// Fake is an in-memory SQS. Its methods are those of *sqs.Client, with the same signatures
// and the same results and errors a caller of real SQS sees. It is safe for concurrent use.
type Fake struct {
	mu        sync.Mutex
	advanceMu sync.Mutex // Advance calls run one at a time, as clock mocks require
	hookMu    sync.Mutex // guards hooks
	hooks     fakeHooks  // companion.OnMove's, when the clock is not a *VirtualClock (which keeps them)
	clk       Clock
	vclk      *VirtualClock // clk, when it is one: read without an interface call or a lock
	mock      *clock.Mock   // clk, when it is a benbjohnson mock, whose own moves the fake follows (catchup.go)
	shared    clock.Clock   // clk as a benbjohnson clock.Clock, for Clock (sharedclock.go)
	cu        catchUp

	advancing atomic.Bool // an Advance is moving the clock (catchup.go)

	region, account, partition string
	senderID                   string
	endpoint                   string // WithEndpoint: the base of queue URLs, or "" for AWS's
	seed                       uint64
	epoch                      uint64      // how many times the fake was reset: receipt handles name it
	handles                    handleKey   // the key of this epoch's receipt handles (newHandleKey)
	lastReceipt                receiptMemo // the last receipt handle the fake issued or read
	lastID                     idMemo      // the last MessageId it rendered
	inFlightLimit              int
	purgeCooldown              time.Duration
	opts                       sqs.Options
	optErr                     *OptionError // the first option value New refuses

	home         *space               // the fake's own account and region (WithAccountID, WithRegion)
	homeActor    *actor               // the root user of home: who a call acts as by default
	homeOverHTTP *actor               // homeActor over plain HTTP (aws:SecureTransport false)
	spaces       map[[2]string]*space // the other spaces callers acted in, by account and region
	actors       map[identity]*actor  // the other identities callers acted as
	actorList    []*actor             // those actors by number (actor.num - 1)
	millis       millisCache          // timestamps formatted for system attributes
	lastLookup   lookupCache          // the QueueUrl resolved last
	credList     []Credential         // WithCredentials, as given
	creds        *credentialSet       // signed mode's access keys; nil: lenient, no signature checked
	queues       map[queueKey]*queue
	queuesByID   map[uint32]*queue
	deletedAt    map[queueKey]int64 // when a queue was deleted, for the 60-second cooldown on its name
	nextQueueID  uint32
	nextMsgID    uint64
	serviceAttrs sharedAttributes // a service principal's last stored attributes (storedAttributes)
	nextSeqNum   uint64           // FIFO sequence numbers
	requests     atomic.Uint64

	pollers     []*poller // parked long polls, in the order they parked
	pollWaiters waitList  // WaitForPollers calls waiting

	hist       history
	codes      []string          // the error codes of failed calls on timelines, by number
	codeIndex  map[string]uint16 // their numbers
	calls      callLogs          // the call record
	callGen    uint32            // counts Resets, so that a call that began before one leaves the new record alone
	active     int               // calls begun and not yet returned, parked ones included
	idleWaits  waitList          // WaitIdle and WaitForCalls calls waiting
	queueNames map[uint32]string // every queue's name by id, deleted ones too, for timelines
	idIndex    map[string]uint64 // MessageId → counter value, built on demand
	idIndexed  uint64

	faults     faults
	faultCount atomic.Int32
	waiting    int        // calls holding their response back for an injected latency
	held       []heldCall // those calls, released by Reset
	lastErr    atomic.Pointer[error]
	chaos      *Chaos     // WithChaos, as given
	dist       *disturber // decides where chaos disturbs: WithChaos, or an Explore run
	watch      *parkWatch // an Explore run's: told when a call waits on the clock

	resetMu    sync.Mutex  // guards resetHooks
	resetHooks []resetHook // companion.OnReset
	nextHook   uint64

	tasks        map[uint32][]*moveTask // message move tasks by source queue id, oldest first
	runningTasks []*moveTask
	nextTaskID   uint64
}

// Option configures a Fake.
type Option func(*Fake)

// WithClock runs the fake on c: a *VirtualClock (NewVirtualClock, to start at another
// instant), a *clock.Mock or clock.New() from github.com/benbjohnson/clock, RealClock, or
// anything adapted with ClockFuncs (with NowFunc and AfterFuncFunc set). A nil c is refused.
// A benbjohnson *clock.Mock keeps its cost of 1 ms of real time per move; the fake follows
// its own Add and Set as it follows Advance (see companion.OnMove).
func WithClock(c Clock) Option {
	return func(f *Fake) {
		if value, want := checkClock(c); want != "" {
			f.refuse("WithClock", value, want)
			return
		}
		f.clk = c
	}
}

// WithRegion sets the region that queue URLs and ARNs name (default us-east-1). It must
// have a region's form: lower-case words and a number joined by hyphens, such as eu-west-1
// or us-gov-west-1; a cn- region names the aws-cn partition, a us-gov- one aws-us-gov.
func WithRegion(region string) Option {
	return func(f *Fake) {
		if !isRegionName(region) {
			f.refuse("WithRegion", strconv.Quote(region), regionRule)
			return
		}
		f.region = region
	}
}

// WithAccountID sets the 12-digit account that queue URLs and ARNs name (default
// 123456789012).
func WithAccountID(account string) Option {
	return func(f *Fake) {
		if !isAccountID(account) {
			f.refuse("WithAccountID", strconv.Quote(account), accountIDRule)
			return
		}
		f.account = account
	}
}

// WithSenderID sets the SenderId system attribute of sent messages (default
// DefaultSenderID). It takes the forms SQS reports: an IAM user's unique id such as
// AIDAIO23YVJENQZJOL4VO, a role's unique id with the session name such as
// AROAIL6GAI2XEC672SWG2:i-0123456789abcdef0, or a 12-digit account id.
func WithSenderID(id string) Option {
	return func(f *Fake) {
		if !senderIDPattern.MatchString(id) {
			f.refuse("WithSenderID", strconv.Quote(id), senderIDRule)
			return
		}
		f.senderID = id
	}
}

// WithSeed changes the seed that MessageIds, receipt handles, request ids and move-task
// handles derive from. Identifiers depend on the seed and on the sequence of calls, not on
// the time the clock reads: a MessageId on how many messages the fake had stored before, a
// request id on how many calls it had had (CallCount), a receipt handle on its queue,
// message and receive. The same calls give the same identifiers however the clock moves
// between them; a call added or left out shifts those that follow. (A running message move
// task stores messages as the clock advances; they take MessageIds like any other.) Two
// fakes with the same seed given the same calls produce the same identifiers.
//
// In memory the seed is the key of the receipt handles: whoever knows it can compute any
// handle. In signed mode (WithCredentials) the key is derived from the seed and every
// secret of the credentials, so a caller cannot forge a handle of a message it did not
// receive; the same seed and credentials still give the same handles (docs/signatures.md).
func WithSeed(seed uint64) Option { return func(f *Fake) { f.seed = seed } }

// withEpoch starts the fake as if Reset had run n times (companion.WithEpoch).
func withEpoch(n uint64) Option { return func(f *Fake) { f.epoch = n } }

// WithInFlightLimit sets how many messages a queue may have in flight — received, and
// neither deleted nor visible again — so a test can reach the limit with a handful of
// messages (AWS: about 120,000, standard and FIFO). A receive never takes a message past the
// limit: one that asks for several when fewer slots remain gets as many as fit, without an
// error (AWS documents only the case of no slot left; this partial answer is the fake's
// choice). With no slot left, a short poll on a standard queue fails with OverLimit, one on a
// FIFO queue gets nothing, and a long poll waits: a delete or a visibility timeout that runs
// out frees a slot and answers it, else it ends empty when its wait does (SPEC.md §10). n
// must be at least 1.
func WithInFlightLimit(n int) Option {
	return func(f *Fake) {
		if n < 1 {
			f.refuse("WithInFlightLimit", strconv.Itoa(n), inFlightLimitRule)
			return
		}
		f.inFlightLimit = n
	}
}

// WithPurgeCooldown sets how long after a PurgeQueue another PurgeQueue of the same queue
// fails with PurgeQueueInProgress (default DefaultPurgeCooldown, 60 s as on SQS). 0 switches
// the cooldown off, for test suites written against emulators that never enforced it, which
// purge the same queue in every test's set-up. d must be 0 or at least 1ms (a bare 60 is 60ns,
// refused as the unit mistake it is). The error's message
// names d when it is not 60 s: "Only one PurgeQueue operation on jobs is allowed every 10
// seconds."
func WithPurgeCooldown(d time.Duration) Option {
	return func(f *Fake) {
		if d < 0 || d > 0 && d < time.Millisecond {
			f.refuse("WithPurgeCooldown", d.String(), purgeCooldownRule)
			return
		}
		f.purgeCooldown = d
	}
}

// New returns an empty Fake. Without WithClock it runs on a VirtualClock set to DefaultStart,
// so Advance works at once, costs no real time, and timestamps are the same on every run.
//
// New panics with an *OptionError when an option is given a value it does not allow (an
// account that is not 12 digits, a negative limit, a nil clock…), as regexp.MustCompile
// panics on a bad pattern; CheckOptions returns that error instead.
func New(opts ...Option) *Fake {
	f, err := configure(opts)
	if err != nil {
		panic(err)
	}
	if f.clk == nil {
		f.clk = NewVirtualClock(DefaultStart)
	}
	f.vclk, _ = f.clk.(*VirtualClock)
	f.mock, _ = f.clk.(*clock.Mock)
	f.shared = sharedClockOf(f.clk)
	f.partition = partitionOf(f.region)
	f.home = &space{account: f.account, region: f.region, partition: f.partition}
	f.homeActor = &actor{sp: f.home, principal: rootARN(f.partition, f.account), own: true}
	f.opts = sqs.New(sqs.Options{
		Region:           f.region,
		BaseEndpoint:     aws.String("http://sqs.fake.invalid"),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
	}).Options()
	return f
}

// Now returns the fake's current time: its clock's, or, while the fake catches up with a
// benbjohnson *clock.Mock moved with its own Add or Set, the instant the catch-up is at (see
// companion.OnMove), which is what a companion's step and a Lambda handler must read.
func (f *Fake) Now() time.Time {
	if f.mock != nil {
		if p := f.cu.pinned.Load(); p != nil {
			return *p
		}
	}
	return f.clk.Now()
}

func (f *Fake) now() int64 {
	if f.vclk != nil {
		return f.vclk.unixNano()
	}
	if f.mock != nil {
		if p := f.cu.pinned.Load(); p != nil {
			return p.UnixNano()
		}
	}
	return f.clk.Now().UnixNano()
}

// Options returns a copy of the options of the client the fake stands in for.
func (f *Fake) Options() sqs.Options { return f.opts.Copy() }

// call is one operation call as a door sees it.
type call struct {
	f       *Fake
	op      string
	req     uint64
	id      callID       // its entry in the call record
	who     *actor       // who the call acts as
	door    Door         // the door it came through
	reached bool         // it passed the SDK's client-side checks: SQS would have seen it
	opts    *sqs.Options // set only when the caller passed optFns
	fault   *takenFault  // an injected fault that applies to this call
}

// begin starts a call: it numbers the call and enters it in the call record, runs the SDK's
// client-side validation of params, checks the context, and takes an injected fault.
func (f *Fake) begin(ctx context.Context, op string, params any, optFns []func(*sqs.Options)) (call, error) {
	if f.mock != nil && f.cu.nHooks.Load() > 0 {
		f.follow(ctx, true) // a benbjohnson mock's own moves: catch up first (catchup.go)
	}
	if w := f.watch; w != nil {
		w.called(f.now()) // ends a body that spins
	}
	c := call{f: f, op: op, door: DoorMethods}
	var who identity
	cn, _ := ctx.Value(callNumberKey{}).(*callNumber)
	if cn != nil {
		c.door = cn.door
		if cn.as != nil {
			who = *cn.as
		}
	}
	if len(optFns) > 0 {
		o := f.opts.Copy()
		for _, fn := range optFns {
			fn(&o)
		}
		c.opts = &o
		if cn == nil {
			who = identityOf(o.Region, f.region, o.Credentials)
		}
	}
	var bad error
	if who.bad != nil {
		bad, who = who.bad, identity{} // refused: the call acts as nobody else
	}
	f.mu.Lock()
	c.who = f.actorFor(&who)
	c.id = f.startCall(op, c.door, c.who, params)
	f.mu.Unlock()
	c.req = c.id.seq
	if cn != nil {
		cn.n = c.req
	}
	if bad != nil {
		return c, operationError(op, "", bad)
	}
	if err := validateInput(params); err != nil {
		return c, operationError(op, "", err)
	}
	if err := ctx.Err(); err != nil {
		return c, operationError(op, "", err)
	}
	c.reached = true
	c.fault = f.takeFault(op, params)
	if f.dist != nil && messageOps[c.id.op] {
		c.fault = f.chaosFault(&c, params)
	}
	if c.fault.refuses() {
		return c, c.disturbed(ctx) // the call fails without reaching the engine
	}
	return c, nil
}

// finish ends a call the engine answered with err: an injected latency still holds the
// answer back, and the engine's error is shaped for the caller.
func (c *call) finish(ctx context.Context, err error) error {
	return c.fail(c.settle(ctx, err))
}

// end finishes a call the engine answered: a fault that lets the operation take effect
// (LoseResponse, or Latency alone) disturbs the answer now.
func (c *call) end(ctx context.Context) error {
	if c.fault == nil || !c.fault.LoseResponse && c.fault.Latency == 0 {
		return nil
	}
	if err := c.settle(ctx, nil); err != nil {
		return c.fail(err)
	}
	return nil
}

// callNumberKey is the context key under which door 2 (Client) and door 3 (Handler) pass a
// *callNumber: it names the door, and begin fills in the call's number, so that a success
// they answer carries the request id an error of the same call would have carried.
type callNumberKey struct{}

// callNumber is what a door passes under callNumberKey.
type callNumber struct {
	n    uint64
	door Door
	as   *identity // who the request says it acts as (its signature, ActAs); nil: the fake's own
}

// requestID formats the call's request id, a UUID derived from the call's number.
func (c call) requestID() string { return uuidFor(c.f.seed, streamRequestID, c.req) }

// fail shapes an engine error for the caller, and remembers it as the fake's last error
// unless the caller ended the call itself.
func (c call) fail(err error) error {
	callerGone := callerEnded(err)
	err = operationError(c.op, c.requestID(), err)
	if !callerGone && (c.who == nil || c.who.service.Service == "") {
		c.f.lastErr.Store(&err)
	}
	return err
}

// callerEnded reports whether err says the call ended on the caller's side rather than the
// service's: the caller's context ended while the call waited (canceledWait is made only
// from it), or Reset released its held response. An injected error that merely reads as a
// timeout — ErrLostResponse, or a Fault's context.DeadlineExceeded — is the service's doing.
func callerEnded(err error) bool {
	return errors.As(err, new(*canceledWait)) || errors.Is(err, errReleased)
}

// LastError returns the error of the call that last failed on the service's side — with an
// SQS error, an injected fault or a lost response — or nil. It is the Err of one of the calls
// in the call record (Calls): of those whose error counts, the one that returned last. Not
// counted are the errors of the SDK's client-side validation, which never reach SQS (and
// the MissingParameter answers that stand for them through Handler); of
// calls their callers ended (a cancelled or expired context); of wire requests refused
// before any operation ran (UnknownOperationException, SerializationException); and failed
// entries of a batch call that succeeded. A later call that succeeds does not clear it;
// Reset does. To look at one call's outcome, whichever it is, use Calls or
// AssertLastCallError.
func (f *Fake) LastError() error {
	if p := f.lastErr.Load(); p != nil {
		return *p
	}
	return nil
}

// checksumsDisabled reports whether the caller turned off the SDK's MD5 body check.
func (c call) checksumsDisabled() bool {
	if c.opts != nil {
		return c.opts.DisableMessageChecksumValidation
	}
	return c.f.opts.DisableMessageChecksumValidation
}

// Package heartbeat keeps a received SQS message hidden while a slow handler works on it.
//
// SQS has no lease to renew. A message received with a 30-second visibility timeout is
// delivered again 30 seconds later, whether or not its first handler is done, and the two
// handlers race. A Keeper prevents that: while a handler holds a delivery, it calls
// ChangeMessageVisibility halfway through each visibility timeout and sets the timeout again
// to its full length.
//
// # In production code
//
//	k := heartbeat.New(client, queueURL) // the wall clock
//	out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &queueURL})
//	receivedAt := k.Now() // the Keeper's clock: right in production and in tests alike
//	for _, msg := range out.Messages {
//		err := k.Run(ctx, msg, receivedAt, 30*time.Second, func(ctx context.Context) error {
//			return process(ctx, msg) // ctx ends if the message can no longer be kept hidden
//		})
//		if err == nil {
//			client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &queueURL, ReceiptHandle: msg.ReceiptHandle})
//		}
//	}
//
// # In a test: how time moves, and how to wait
//
// Give the Keeper the fake's clock, heartbeat.WithClock(f.Clock()), and move it with the
// fake's Advance. The heartbeat runs on a goroutine of its own, woken by the clock, and makes
// its extension after the move returns; so before each move wait for it to have armed its
// next timer, and after the move wait again to know the extension due then was made:
//
//	k := heartbeat.New(f, queueURL, heartbeat.WithClock(f.Clock()))
//	go func() { done <- worker(ctx, f, k) }() // production code, as above
//	for range 8 {                             // two minutes of work, in half-timeout steps
//		k.WaitArmed(ctx, 1)
//		f.Advance(15 * time.Second)
//		k.WaitArmed(ctx, 1)
//	}
//
// WaitArmed returns ErrEnded once there is no heartbeat left to wait for. WithHoldHook hands
// a test the deliveries that code under test holds with Run, and FromContext hands a
// handler its own.
//
// The receive time must be a time of the Keeper's clock. One from another clock — time.Now()
// in code whose Keeper runs on the fake's clock, or the fake's time given to a Keeper on the
// wall clock — is refused: Run and Hold return a *ClockError naming both clocks, instead of
// putting the first extension a year off or at once. Take the receive time from Keeper.Now,
// or pass the zero time, which means now.
//
// # The rules
//
//   - The first extension comes half a timeout after the receive, rounded down to a whole
//     second; each sets the timeout again to its full length, and the next comes half a
//     timeout after the last that succeeded. The other half of the timeout is the margin for
//     the call to reach the queue, and for retries when it fails.
//   - It stops as soon as the delivery settles. That happens when the handler returns, or when
//     the Delivery is stopped, deleted or released (visibility 0). It also stops when the
//     delivery is dropped, meaning its context ends. After Run, Stop, Delete or Release return,
//     no extension call is in flight and none will be made, so the caller may use the client
//     freely.
//   - A delivery received with a zero visibility timeout gets no extension.
//   - SQS keeps a message hidden for at most 12 hours from its receive (MaxVisibility). When
//     the next extension would pass that limit, the heartbeat makes one last extension to the
//     end of the 12 hours (none if an earlier one already reached it) and logs a warning.
//     After that the message returns to the queue as SQS decides. Since a receive time more
//     than 12 hours behind the Keeper's clock is refused, the warning speaks only when the
//     limit is the cause.
//   - A failed extension is retried on the Keeper's clock while the message is still hidden:
//     after 1 s, 2 s, 4 s and then every 8 s by default. If the retries run out, or the error
//     cannot be retried (an invalid or expired receipt handle, a deleted message), the
//     handler's context is cancelled. Its cause is an *ExtendError that wraps the last
//     failure, and the failure is logged.
//   - A time.Duration given as a bare number (a timeout of 30, which is 30 ns) is refused with
//     a message that names the unit, in Run and Hold for the timeout and in New for
//     WithBackoff's values.
//
// docs/heartbeat.md in the repository says more, with the cases the tests cover.
package heartbeat

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Client is the one method of the SQS client that the heartbeat uses. *sqs.Client satisfies
// it, as do *sqsfake.Fake and any small interface a service declares over the client.
type Client interface {
	ChangeMessageVisibility(ctx context.Context, params *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
}

// Deleter is the client method that Delivery.Delete calls. *sqs.Client and *sqsfake.Fake
// satisfy it.
type Deleter interface {
	DeleteMessage(ctx context.Context, params *sqs.DeleteMessageInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
}

// Clock is the heartbeat's time source. It has the same shape as sqsfake.Clock, so any clock
// a Fake accepts works here too. That includes the fake's own f.Clock() (a
// *sqsfake.VirtualClock unless the fake was given another), a benbjohnson *clock.Mock,
// clock.New(), sqsfake.RealClock and sqsfake.ClockFuncs. Production code needs none of these.
// Without WithClock, a Keeper reads time.Now and context.WithDeadline.
//
// The heartbeat calls WithDeadline only with context.Background() as the parent, only
// selects on Done() of the result, and always calls the cancel function. Never calling Err()
// keeps it safe with clocks whose contexts block in Err() until they are done.
type Clock interface {
	Now() time.Time
	WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc)
}

// systemClock is the default Clock: the wall clock through package time. Inside a
// testing/synctest bubble, that is the bubble's fake time.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return context.WithDeadline(parent, d)
}

// MaxVisibility is the longest SQS keeps a message hidden, counted from its receive. It is
// 12 hours, or 43,200 seconds.
const MaxVisibility = 12 * time.Hour

// Default retry backoff: the first retry of a failed extension waits DefaultMinBackoff, and
// each later one waits twice as long as the one before, up to DefaultMaxBackoff.
const (
	DefaultMinBackoff = time.Second
	DefaultMaxBackoff = 8 * time.Second
)

// Option configures a Keeper.
type Option func(*Keeper)

// WithClock runs the heartbeat on c instead of the wall clock. A test on sqsfake passes the
// fake's clock: heartbeat.WithClock(f.Clock()).
func WithClock(c Clock) Option { return func(k *Keeper) { k.clock = c } }

// WithLogger sets the logger for the 12-hour warning and for failures. Without it, the Keeper
// uses slog.Default() at the time it logs.
func WithLogger(l *slog.Logger) Option { return func(k *Keeper) { k.logger = l } }

// WithBackoff sets how long the heartbeat waits before it retries a failed extension. New
// panics when a value is a bare number below a millisecond (WithBackoff(1, 8) is 1 ns and
// 8 ns: it names the mistake). It
// waits first, then twice as long after each failure, up to most. When the next retry would
// not start before the message becomes visible again, the heartbeat gives up and reports the
// failure instead. Values of zero or less keep the defaults.
func WithBackoff(first, most time.Duration) Option {
	return func(k *Keeper) {
		if first > 0 {
			k.minBackoff = first
		}
		if most > 0 {
			k.maxBackoff = most
		}
	}
}

// WithHoldHook makes the Keeper call hook with each delivery that Hold, or Run, starts: on
// the caller's goroutine, before the heartbeat starts. A test uses it to reach the deliveries
// that the code under test holds with Run, to wait on one (Delivery.WaitArmed) and to read its
// extensions, deadline and failure; production code may use it for metrics. The hook must
// not block for long: the delivery's handler has not started yet.
func WithHoldHook(hook func(d *Delivery)) Option { return func(k *Keeper) { k.onHold = hook } }

// Keeper keeps the messages that handlers hold from one queue hidden. It is safe for
// concurrent use. One Keeper serves any number of concurrent deliveries. Each delivery runs
// one goroutine for its heartbeat, or none for a zero timeout, and that goroutine ends when
// the delivery settles or is dropped. The goroutine waits on one clock timer at a time.
// While an extension call is in flight, a clock whose contexts do not come from the standard
// library (a benbjohnson mock) adds one short-lived goroutine from context.AfterFunc, which
// watches the call's deadline; on sqsfake's VirtualClock that goroutine starts only if the
// deadline passes during the call.
type Keeper struct {
	client     Client
	queueURL   string
	clock      Clock
	logger     *slog.Logger
	minBackoff time.Duration
	maxBackoff time.Duration

	onHold func(*Delivery) // WithHoldHook
	onHalt func()          // tests only (export_test.go): called when a delivery starts to halt

	mu        sync.Mutex
	running   int                     // heartbeat goroutines that have not ended
	lastEnded bool                    // the latest change to running was a heartbeat ending
	armed     map[*Delivery]time.Time // heartbeats waiting on the clock, and until when
	changed   chan struct{}           // closed when armed or running changes; nil while nobody waits
}

// New returns a Keeper that extends the visibility of messages from the queue at queueURL
// through client. It panics if client is nil.
func New(client Client, queueURL string, opts ...Option) *Keeper {
	if client == nil {
		panic("heartbeat: New called with a nil client")
	}
	k := &Keeper{
		client:     client,
		queueURL:   queueURL,
		clock:      systemClock{},
		minBackoff: DefaultMinBackoff,
		maxBackoff: DefaultMaxBackoff,
		armed:      make(map[*Delivery]time.Time),
	}
	for _, o := range opts {
		o(k)
	}
	if k.clock == nil {
		k.clock = systemClock{}
	}
	for _, o := range []struct {
		name string
		d    time.Duration
	}{{"WithBackoff's first", k.minBackoff}, {"WithBackoff's most", k.maxBackoff}} {
		if err := unitMistake(o.name, o.d, time.Millisecond); err != nil {
			panic(err.Error())
		}
	}
	if k.maxBackoff < k.minBackoff {
		k.maxBackoff = k.minBackoff
	}
	return k
}

// Now returns the time on the Keeper's clock: the wall clock, or the clock given with
// WithClock. Code that receives messages takes the receive time from it, right after
// ReceiveMessage returns — receivedAt := k.Now() — which is right in production and in a
// test that gives the Keeper the fake's clock alike.
func (k *Keeper) Now() time.Time { return k.clock.Now() }

// QueueURL returns the URL of the queue whose messages the Keeper extends.
func (k *Keeper) QueueURL() string { return k.queueURL }

func (k *Keeper) log() *slog.Logger {
	if k.logger != nil {
		return k.logger
	}
	return slog.Default()
}

// Run holds msg while handler runs and returns what handler returns. msg was received at
// receivedAt, on the Keeper's clock, with the visibility timeout named by timeout. That is
// the receive's VisibilityTimeout if the receive set one, or else the queue's. Take
// receivedAt from Keeper.Now when ReceiveMessage returns. A zero receivedAt means now. A
// receivedAt that cannot be true for the Keeper's clock (see ClockError), or a timeout given
// as a bare number of nanoseconds, is refused: Run returns the error without calling
// handler.
//
// The handler's context ends if the heartbeat fails, with an *ExtendError as its cause
// (context.Cause), or when ctx ends. If the handler returns an error and the heartbeat has
// failed, Run returns both, unless the handler's error already wraps the failure. If the
// handler returns nil, Run returns nil: the work is done, and any failure has already been
// reported through the handler's context and the log. When Run returns, the heartbeat has
// stopped and no extension call is in flight. The caller can then delete the message, or
// release it, with its own client.
func (k *Keeper) Run(ctx context.Context, msg types.Message, receivedAt time.Time, timeout time.Duration, handler func(ctx context.Context) error) error {
	d := k.Hold(ctx, msg, receivedAt, timeout)
	defer d.Stop()
	if d.refused != nil {
		return d.refused // the handler is not called: nothing keeps its message hidden
	}
	err := handler(d.Context())
	d.Stop()
	if failure := d.Err(); failure != nil && err != nil && !errors.Is(err, failure) {
		err = errors.Join(err, failure)
	}
	return err
}

// Hold starts the heartbeat of one delivery and returns it. The arguments are those of Run;
// a delivery Hold refuses has no heartbeat, its Err is the refusal, and its context has
// ended with it as the cause.
// The caller must settle the delivery: call Stop (typically deferred), Delete or Release.
// Otherwise its heartbeat runs until ctx ends or the 12-hour limit is reached.
//
// A timeout below one second means no extension. A timeout above 12 hours is treated as
// 12 hours. Fractions of a second are dropped, since SQS counts whole seconds. The first
// extension comes half a timeout after receivedAt, rounded down to a whole second. If that
// moment has already passed, the first extension comes at once.
func (k *Keeper) Hold(ctx context.Context, msg types.Message, receivedAt time.Time, timeout time.Duration) *Delivery {
	refused := unitMistake("timeout", timeout, time.Second)
	timeout = min(max(timeout.Truncate(time.Second), 0), MaxVisibility)
	now := k.clock.Now()
	if receivedAt.IsZero() {
		receivedAt = now
	}
	if refused == nil {
		refused = k.checkReceive(msg, receivedAt, now)
	}
	d := &Delivery{
		k:           k,
		receivedAt:  receivedAt,
		timeout:     timeout,
		stop:        make(chan struct{}),
		done:        make(chan struct{}),
		visibleAt:   receivedAt.Add(timeout),
		lastTimeout: int32(timeout / time.Second), // the receive's, until the first extension
	}
	if msg.MessageId != nil {
		d.messageID = *msg.MessageId
	}
	if msg.ReceiptHandle != nil {
		d.handle = *msg.ReceiptHandle
	}
	d.ctx, d.cancel = context.WithCancelCause(context.WithValue(ctx, deliveryKey{}, d))
	if refused != nil {
		d.refused = refused
		d.cancel(refused)
		timeout = 0 // no heartbeat: it ends as it starts
	}
	if timeout == 0 {
		close(d.done)
		k.mu.Lock()
		d.over = true // a heartbeat that ended as it started
		k.lastEnded = true
		k.notify()
		k.mu.Unlock()
		if k.onHold != nil {
			k.onHold(d)
		}
		return d
	}
	d.interval = (timeout / 2).Truncate(time.Second)
	if d.interval == 0 {
		d.interval = timeout / 2 // a one-second timeout
	}
	k.mu.Lock()
	k.running++
	k.lastEnded = false
	k.notify()
	k.mu.Unlock()
	if k.onHold != nil {
		k.onHold(d)
	}
	go d.run()
	return d
}

// deliveryKey is the context key under which a delivery's context carries the delivery.
type deliveryKey struct{}

// FromContext returns the delivery whose handler context ctx is, or derives from; nil if
// there is none. A handler that Run calls reaches its delivery with it, and through the
// delivery its extensions, when the message becomes visible again and the heartbeat's
// failure, during Run and after:
//
//	var d *heartbeat.Delivery
//	err := k.Run(ctx, msg, receivedAt, timeout, func(ctx context.Context) error {
//		d = heartbeat.FromContext(ctx)
//		return process(ctx, msg)
//	})
//	log.Printf("%d extensions; heartbeat failure: %v", d.Extensions(), d.Err())
func FromContext(ctx context.Context) *Delivery {
	d, _ := ctx.Value(deliveryKey{}).(*Delivery)
	return d
}

// Running returns how many heartbeat goroutines of the Keeper have not ended. Once every
// delivery has settled it is 0. Tests use it to check that no goroutine leaks.
func (k *Keeper) Running() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.running
}

// Armed returns how many heartbeats are waiting on the clock for a moment that has not yet
// come. That moment is either their next extension or a retry.
func (k *Keeper) Armed() int {
	now := k.clock.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.countArmed(now)
}

// WaitArmed blocks until at least n heartbeats are waiting on the clock for a moment that has
// not yet come, or until ctx ends. It is the heartbeat's counterpart of sqsfake's
// WaitForPollers. Before a test moves a mock clock, it calls WaitArmed. The heartbeat's
// timer is then registered with the clock, so the move fires it. Otherwise the heartbeat
// might read the clock after the move and wait from the wrong time.
//
// Call it while the clock stands still. After the clock has moved past a heartbeat's timer,
// that heartbeat counts again only once it has made its extension and armed the next timer.
// A heartbeat that has ended (see Delivery.Done) never counts.
//
// It returns ErrEnded, instead of waiting on, when fewer than n heartbeats are running and
// the latest change to them was one ending: a test that drives a heartbeat to its end stops
// when WaitArmed says so. A delivery held after that counts again. A test whose code under
// test holds a new delivery after an earlier one ended may call WaitArmed before the new one
// is held, and get ErrEnded for the old one: it waits on the new delivery itself, which
// WithHoldHook hands it, with Delivery.WaitArmed.
func (k *Keeper) WaitArmed(ctx context.Context, n int) error {
	return k.waitUntil(ctx, func(now time.Time) error {
		if k.countArmed(now) >= n {
			return nil
		}
		if k.running < n && k.lastEnded {
			return ErrEnded
		}
		return errWait
	})
}

// errWait tells waitUntil to wait for the next change.
var errWait = errors.New("wait")

// waitUntil calls cond, with k.mu held and the clock's time, each time the heartbeats
// change, until it returns something other than errWait, or ctx ends.
func (k *Keeper) waitUntil(ctx context.Context, cond func(now time.Time) error) error {
	for {
		now := k.clock.Now()
		k.mu.Lock()
		if err := cond(now); err != errWait {
			k.mu.Unlock()
			return err
		}
		if k.changed == nil {
			k.changed = make(chan struct{})
		}
		ch := k.changed
		k.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (k *Keeper) countArmed(now time.Time) int {
	n := 0
	for _, at := range k.armed {
		if at.After(now) {
			n++
		}
	}
	return n
}

// arm records that d waits on the clock until at. Call it only after the clock's timer is
// registered.
func (k *Keeper) arm(d *Delivery, at time.Time) {
	k.mu.Lock()
	k.armed[d] = at
	k.notify()
	k.mu.Unlock()
}

func (k *Keeper) disarm(d *Delivery) {
	k.mu.Lock()
	delete(k.armed, d)
	k.notify()
	k.mu.Unlock()
}

// ended records that d's goroutine is ending.
func (k *Keeper) ended(d *Delivery) {
	k.mu.Lock()
	k.running--
	k.lastEnded = true
	d.over = true
	delete(k.armed, d)
	k.notify()
	k.mu.Unlock()
}

// notify wakes WaitArmed calls. k.mu must be held.
func (k *Keeper) notify() {
	if k.changed != nil {
		close(k.changed)
		k.changed = nil
	}
}

package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Delivery is one received message whose handler holds it. While the delivery is held, its
// heartbeat keeps the message hidden. All its methods are safe for concurrent use.
type Delivery struct {
	k          *Keeper
	messageID  string
	handle     string
	receivedAt time.Time
	timeout    time.Duration // whole seconds, at most MaxVisibility; 0: no extension
	interval   time.Duration // from an extension to the next

	ctx      context.Context
	cancel   context.CancelCauseFunc
	stop     chan struct{} // closed when the delivery settles
	stopOnce sync.Once
	done     chan struct{} // closed when the heartbeat goroutine has ended
	over     bool          // the heartbeat has ended; guarded by k.mu

	mu          sync.Mutex
	visibleAt   time.Time
	lastTimeout int32 // seconds: the timeout that hides the message until visibleAt
	extensions  int
	err         *ExtendError
	refused     error // Hold refused the delivery: a *ClockError or a unit mistake
}

// Context returns the handler's context. It ends when the context passed to Hold ends, when
// the heartbeat fails (its cause is then an *ExtendError), or when the delivery settles (its
// cause is then ErrSettled).
func (d *Delivery) Context() context.Context { return d.ctx }

// Done returns a channel that is closed when the heartbeat has ended and will make no more
// calls. That happens when the delivery settles, when it is dropped, when it fails, or after
// the last extension before the 12-hour limit. For a zero timeout, the channel is closed from
// the start.
func (d *Delivery) Done() <-chan struct{} { return d.done }

// WaitArmed blocks until the delivery's heartbeat waits on the clock for a moment that has
// not yet come — its next extension, or a retry — or until ctx ends. It returns ErrEnded
// once the heartbeat has ended and will arm no more timers: the delivery settled or was
// dropped, the heartbeat failed, or it made its last extension before the 12-hour limit (and
// for a zero timeout, from the start). It is Keeper.WaitArmed for one delivery, and has no
// race with other deliveries starting or ending.
func (d *Delivery) WaitArmed(ctx context.Context) error {
	return d.k.waitUntil(ctx, func(now time.Time) error {
		if at, ok := d.k.armed[d]; ok && at.After(now) {
			return nil
		}
		if d.over {
			return ErrEnded
		}
		return errWait
	})
}

// Err returns the failure that ended the heartbeat, or nil. The same failure is the cause of
// the handler's context.
func (d *Delivery) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.refused != nil {
		return d.refused
	}
	if d.err == nil {
		return nil // not a typed nil
	}
	return d.err
}

// VisibleAt returns when the message becomes visible again, as far as the heartbeat knows.
// That is the receive time plus the timeout, moved forward by each successful extension.
func (d *Delivery) VisibleAt() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.visibleAt
}

// Extensions returns how many extensions have succeeded.
func (d *Delivery) Extensions() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.extensions
}

// Stop settles the delivery without touching the message. The heartbeat stops, and Stop
// waits for an extension call that is in flight, so that no call is made after Stop returns.
// That wait lasts at most until the message would become visible again, because such a call
// is abandoned then. Stop then cancels the handler's context with ErrSettled. Stop is
// idempotent. Callers typically defer it right after Hold.
func (d *Delivery) Stop() {
	d.halt()
	d.cancel(ErrSettled)
}

// Delete stops the heartbeat as Stop does, then deletes the message through client with the
// delivery's receipt handle. The call uses ctx; do not pass the delivery's own context, which
// may already have ended. The handler's context is cancelled after the call.
func (d *Delivery) Delete(ctx context.Context, client Deleter) error {
	d.halt()
	defer d.cancel(ErrSettled)
	_, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{
		QueueUrl:      aws.String(d.k.queueURL),
		ReceiptHandle: aws.String(d.handle),
	})
	return err
}

// Release stops the heartbeat as Stop does, then makes the message visible at once by setting
// its visibility timeout to 0, so that another consumer can receive it. Release waits for an
// extension that is in flight, so that a late extension cannot hide the message again. The
// call uses ctx, as in Delete.
func (d *Delivery) Release(ctx context.Context) error {
	d.halt()
	defer d.cancel(ErrSettled)
	_, err := d.k.client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl:          aws.String(d.k.queueURL),
		ReceiptHandle:     aws.String(d.handle),
		VisibilityTimeout: 0,
	})
	return err
}

// halt stops the heartbeat and waits for its goroutine to end.
func (d *Delivery) halt() {
	d.stopOnce.Do(func() { close(d.stop) })
	if d.k.onHalt != nil {
		d.k.onHalt() // a test's hook: the heartbeat is told to stop, and halt now waits for it
	}
	<-d.done
}

// halted reports whether the delivery has settled or been dropped.
func (d *Delivery) halted() bool {
	select {
	case <-d.stop:
		return true
	case <-d.ctx.Done():
		return true
	default:
		return false
	}
}

// run is the heartbeat goroutine.
func (d *Delivery) run() {
	defer close(d.done)
	defer d.k.ended(d)
	end := d.receivedAt.Add(MaxVisibility) // SQS's limit, lowered if SQS counts from earlier
	next := d.receivedAt.Add(d.interval)
	for d.sleepUntil(next) {
		var ok bool
		if next, ok = d.extend(&end); !ok {
			return
		}
	}
}

// sleepUntil waits on the clock until at. It reports false if the delivery settles or is
// dropped first.
func (d *Delivery) sleepUntil(at time.Time) bool {
	if d.halted() {
		return false
	}
	if !d.k.clock.Now().Before(at) {
		return true
	}
	timer, cancel := d.k.clock.WithDeadline(context.Background(), at)
	defer cancel()
	d.k.arm(d, at) // after WithDeadline: once a test sees it armed, the clock has the timer
	defer d.k.disarm(d)
	select {
	case <-timer.Done():
		return !d.halted()
	case <-d.stop:
		return false
	case <-d.ctx.Done():
		return false
	}
}

// extend makes one extension, retrying while it fails and time remains. It returns when the
// next extension is due, or false when the heartbeat is over.
func (d *Delivery) extend(end *time.Time) (time.Time, bool) {
	backoff := d.k.minBackoff
	margin := time.Second
	attempts := 0
	for {
		now := d.k.clock.Now()
		secs, final := d.plan(now, *end)
		if final && (secs < 1 || !now.Add(seconds(secs)).After(d.VisibleAt())) {
			// The message is already hidden as long as the limit allows: an earlier
			// extension, or the receive, reached it.
			d.warnLimit()
			return time.Time{}, false
		}
		attempts++
		err := d.change(now, secs)
		if err == nil {
			d.mu.Lock()
			d.visibleAt = now.Add(seconds(secs))
			d.lastTimeout = secs
			d.extensions++
			d.mu.Unlock()
			if final {
				d.warnLimit()
				return time.Time{}, false
			}
			return now.Add(d.interval), true
		}
		if d.halted() {
			return time.Time{}, false // settled or dropped while the call was in flight
		}
		if isLimitError(err) {
			// SQS counts the 12 hours from an earlier moment than receivedAt: the caller
			// measured the receive late. Aim lower, by a margin that doubles each time.
			if e := now.Add(seconds(secs) - margin); e.Before(*end) {
				*end = e
			}
			d.k.log().LogAttrs(d.ctx, slog.LevelInfo, "heartbeat: SQS counts the 12-hour limit from an earlier receive; aiming lower",
				slog.String("queue_url", d.k.queueURL),
				slog.String("message_id", d.messageID),
				slog.Int("visibility_timeout", int(secs)),
				slog.Time("limit_at", *end))
			margin *= 2
			continue
		}
		if !retryable(err) {
			d.fail(err, attempts)
			return time.Time{}, false
		}
		retryAt := now.Add(backoff)
		if !retryAt.Before(d.VisibleAt()) {
			d.fail(err, attempts)
			return time.Time{}, false
		}
		backoff = min(2*backoff, d.k.maxBackoff)
		if !d.sleepUntil(retryAt) {
			return time.Time{}, false
		}
	}
}

// plan returns the visibility timeout, in seconds, of an extension made at now. It is the
// full timeout, or, if that would pass end, the time left to end rounded down, with final set.
func (d *Delivery) plan(now, end time.Time) (secs int32, final bool) {
	if !now.Add(d.timeout).After(end) {
		return int32(d.timeout / time.Second), false
	}
	left := end.Sub(now) / time.Second
	return int32(max(left, 0)), true
}

// change calls ChangeMessageVisibility. The call is abandoned with ErrCallTimeout if it has
// not returned when the message becomes visible again on the clock. At that point it is too
// late to help, and the handler must be told.
func (d *Delivery) change(now time.Time, secs int32) error {
	bound := d.VisibleAt()
	if !bound.After(now) {
		bound = now.Add(d.interval) // a delivery held after its visibility had lapsed
	}
	timer, stopTimer := d.k.clock.WithDeadline(context.Background(), bound)
	defer stopTimer()
	ctx, cancel := context.WithCancelCause(d.ctx)
	defer cancel(nil)
	// The client gets a standard-library context: some clocks' contexts block in Err().
	unwatch := context.AfterFunc(timer, func() { cancel(ErrCallTimeout) })
	defer unwatch()
	_, err := d.k.client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl:          aws.String(d.k.queueURL),
		ReceiptHandle:     aws.String(d.handle),
		VisibilityTimeout: secs,
	})
	if err != nil && errors.Is(context.Cause(ctx), ErrCallTimeout) && !errors.Is(err, ErrCallTimeout) {
		err = fmt.Errorf("%w: %w", ErrCallTimeout, err)
	}
	return err
}

// fail ends the heartbeat with err: it records the failure, logs it and cancels the
// handler's context with it.
func (d *Delivery) fail(err error, attempts int) {
	d.mu.Lock()
	fe := &ExtendError{MessageID: d.messageID, Attempts: attempts, VisibleAt: d.visibleAt, Err: err}
	d.err = fe
	d.mu.Unlock()
	d.k.log().LogAttrs(d.ctx, slog.LevelError, "heartbeat: cannot keep the message hidden; cancelling its handler",
		slog.String("queue_url", d.k.queueURL),
		slog.String("message_id", d.messageID),
		slog.Int("attempts", attempts),
		slog.Time("visible_at", fe.VisibleAt),
		slog.Any("error", err))
	d.cancel(fe)
}

// warnLimit logs that the message is hidden as long as the 12-hour limit allows and will not
// be extended again. It reports the timeout that hides it until then: that of the last
// extension, whether that one was shortened to the limit or reached it exactly, or the
// receive's if no extension was made.
func (d *Delivery) warnLimit() {
	d.mu.Lock()
	visibleAt, secs := d.visibleAt, d.lastTimeout
	d.mu.Unlock()
	d.k.log().LogAttrs(d.ctx, slog.LevelWarn, LimitMessage,
		slog.String("queue_url", d.k.queueURL),
		slog.String("message_id", d.messageID),
		slog.Time("received_at", d.receivedAt),
		slog.Time("visible_at", visibleAt),
		slog.Int("visibility_timeout", int(secs)))
}

func seconds(secs int32) time.Duration { return time.Duration(secs) * time.Second }

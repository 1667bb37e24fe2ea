package heartbeat

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// The receive time a caller passes must be a time of the Keeper's clock. A time read from
// another clock — time.Now() in code whose Keeper runs on a test's fake clock, or the fake's
// time given to a Keeper on the wall clock — would put every extension in the wrong place:
// the first due a year ahead (so none is made and the message is delivered again), or at
// once and then against the 12-hour limit. Hold refuses a receive time that cannot be true
// for its clock, rather than guess, and names both clocks.

// SkewAllowance is how far before the message's SentTimestamp a receive time may lie: SQS
// stamps SentTimestamp on its own clock, and a client's clock may run behind it by as much as
// AWS's request signing tolerates, 5 minutes (a SigV4 request more than 5 minutes off is
// refused with RequestTimeTooSkewed).
const SkewAllowance = 5 * time.Minute

// ClockError is Hold's and Run's refusal of a receive time that cannot be true for the
// Keeper's clock: in its future, more than MaxVisibility in its past (the message cannot
// still be hidden), or before the message was sent. The handler is not run; the delivery's
// context ends with it as its cause.
type ClockError struct {
	MessageID  string    // the message held
	ReceivedAt time.Time // the receive time given
	Now        time.Time // the Keeper's clock
	Clock      string    // which clock the Keeper reads
	SentAt     time.Time // the message's SentTimestamp; zero when it has none or is not the cause
	Problem    string    // what cannot be true
}

// Error names both clocks and the fix.
func (e *ClockError) Error() string {
	s := fmt.Sprintf("heartbeat: message %s: receivedAt %s %s; the Keeper's clock (%s) shows %s",
		e.MessageID, e.ReceivedAt.UTC().Format(time.RFC3339Nano), e.Problem, e.Clock, e.Now.UTC().Format(time.RFC3339Nano))
	if !e.SentAt.IsZero() {
		s += fmt.Sprintf("; SQS sent it at %s", e.SentAt.UTC().Format(time.RFC3339Nano))
	}
	return s + ": the receive time was read from another clock. Take it from the Keeper right after ReceiveMessage, receivedAt := k.Now(), or pass the zero time.Time, which means now; in a test, give the Keeper the fake's clock with heartbeat.WithClock(f.Clock())"
}

// describeClock names the Keeper's clock.
func (k *Keeper) describeClock() string {
	if _, ok := k.clock.(systemClock); ok {
		return "the wall clock, time.Now: the Keeper has no WithClock"
	}
	return fmt.Sprintf("a %T given with WithClock", k.clock)
}

// checkReceive refuses a receive time that cannot be true for the Keeper's clock.
func (k *Keeper) checkReceive(msg types.Message, receivedAt, now time.Time) error {
	id := ""
	if msg.MessageId != nil {
		id = *msg.MessageId
	}
	e := &ClockError{MessageID: id, ReceivedAt: receivedAt, Now: now, Clock: k.describeClock()}
	switch {
	case receivedAt.After(now):
		e.Problem = fmt.Sprintf("is %v ahead of the Keeper's clock", receivedAt.Sub(now))
		return e
	case now.Sub(receivedAt) > MaxVisibility:
		e.Problem = fmt.Sprintf("is %v behind the Keeper's clock, more than the 12 hours a message can stay hidden", now.Sub(receivedAt).Round(time.Second))
		return e
	}
	if ms, err := strconv.ParseInt(msg.Attributes[string(types.MessageSystemAttributeNameSentTimestamp)], 10, 64); err == nil {
		if sent := time.UnixMilli(ms); receivedAt.Before(sent.Add(-SkewAllowance)) {
			e.SentAt = sent
			e.Problem = fmt.Sprintf("is %v before the message was sent", sent.Sub(receivedAt).Round(time.Millisecond))
			return e
		}
	}
	return nil
}

// unitMistake refuses a time.Duration given as a bare number — timeout 30, which Go reads as
// 30 ns — naming the mistake: a positive d below least and below a millisecond, which no
// one means on purpose.
func unitMistake(name string, d, least time.Duration) error {
	if d <= 0 || d >= least || d >= time.Millisecond {
		return nil
	}
	return fmt.Errorf("heartbeat: %s is a time.Duration: %d means %v; did you mean %d*time.Second?", name, int64(d), d, int64(d))
}

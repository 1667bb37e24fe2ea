package sqsfake

import "time"

// Cheap inspection for pollers that run beside the fake (lambdasqs): what is due next and
// whether the fake was reset, without rendering a queue's messages as Queue does.

// Epoch returns how many times the fake has been reset (Reset), plus the n of WithEpoch. Receipt
// handles of one epoch never name a message of another, and CallCount starts again from 0 in
// each: a caller that remembers what it read of the fake's state by CallCount keys it on the
// epoch too, so that a Reset followed by as many calls does not pass for no change.
func (f *Fake) Epoch() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.epoch
}

// NextVisible brings the queue named by ref (name, URL or ARN) up to the clock's current time,
// as the inspection methods do, and returns how many of its messages are visible now (as
// QueueInfo.Visible and ApproximateNumberOfMessages count them: on a FIFO queue, messages
// waiting behind their group's in-flight head included) and the earliest instant after now at
// which a message may become available to a receive — a delay or a visibility timeout ends;
// on a FIFO queue also a retention period, whose end can unlock a group by removing its
// in-flight head; and, while a message move task runs, its next move. at is never later than
// the first moment at which a receive can return a message it cannot return now, with no call
// in between; it may be earlier (on a FIFO queue, the message that becomes visible may wait
// behind its group's in-flight head). at is zero when no such event is pending. When there is
// no such queue it returns an error that wraps ErrNoQueue. Unlike Queue it costs no time in
// the number of messages.
func (f *Fake) NextVisible(ref string) (at time.Time, visible int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.lookupInspected(ref)
	if err != nil {
		return time.Time{}, 0, err
	}
	now := f.settle(q)
	next := q.nextAvailable()
	if len(f.runningTasks) > 0 {
		// A task may bring a message to any queue (back to its source, or to its
		// destination): its next move is an event of every queue.
		if t := f.nextTaskEvent(now); t != 0 && (next == 0 || t < next) {
			next = t
		}
	}
	visible, _, _ = q.counts()
	if next != 0 {
		at = time.Unix(0, next).UTC()
	}
	return at, visible, nil
}

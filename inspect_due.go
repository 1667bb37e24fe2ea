package sqsfake

import "time"

// Cheap inspection for pollers that run beside the fake (lambdasqs, through package
// companion): what is due next and whether the fake was reset, without rendering a queue's
// messages as Queue does.

// currentEpoch returns how many times the fake has been reset, plus the n of WithEpoch
// (companion.Epoch).
func (f *Fake) currentEpoch() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.epoch
}

// nextVisible brings the queue named by ref up to the clock's current time and returns how
// many of its messages are visible now and the earliest instant after now at which a message
// may become available to a receive; zero when none is pending (companion.NextVisible, which
// documents it). It costs no time in the number of messages.
func (f *Fake) nextVisible(ref string) (at time.Time, visible int, err error) {
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

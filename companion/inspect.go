package companion

import (
	"time"

	"github.com/sqsfake/sqsfake"
)

// NextVisible brings the queue named by ref (name, URL or ARN) up to the clock's current
// time, as f's inspection methods do, and returns how many of its messages are visible now
// (as QueueInfo.Visible and ApproximateNumberOfMessages count them: on a FIFO queue, messages
// waiting behind their group's in-flight head included) and the earliest instant after now
// at which a message may become available to a receive — a delay or a visibility timeout
// ends; on a FIFO queue also a retention period, whose end can unlock a group by removing its
// in-flight head; and, while a message move task runs, its next move. at is never later than
// the first moment at which a receive can return a message it cannot return now, with no
// call in between; it may be earlier (on a FIFO queue, the message that becomes visible may
// wait behind its group's in-flight head). at is zero when no such event is pending. When
// there is no such queue it returns an error that wraps sqsfake.ErrNoQueue. Unlike f.Queue it
// costs no time in the number of messages, and it does not catch up (OnMove): a poller beside
// the fake (a Lambda trigger) calls it inside its steps.
func NextVisible(f *sqsfake.Fake, ref string) (at time.Time, visible int, err error) {
	return eng.NextVisible(f, ref)
}

// QueuePage is a snapshot of a queue with one page of its messages (Page): QueueInfo, whose
// Messages hold the page, and where the next page starts.
type QueuePage struct {
	sqsfake.QueueInfo
	// Truncated reports that messages follow the page: those that arrived after Next.
	Truncated bool `json:"truncated"`
	// Next is the arrival number of the page's last message, the cursor of the next page
	// when Truncated; 0 otherwise.
	Next uint64 `json:"next,omitempty"`
}

// Page returns a snapshot of the queue named by ref (name, URL or ARN), as f.Queue does
// but bringing only that queue up to the clock's time, with at most limit of its messages:
// those that arrived after the message whose arrival number is after (0 for the first page),
// in arrival order. A queue numbers its messages 1, 2, 3, … as they arrive, and a page's
// Next is a cursor for the next page that still holds when that message is gone. The page
// costs time in the queue's length but memory in limit only; limit 0 gives the queue without
// its messages. A server or console that shows a long queue reads it a page at a time (the
// fake's own console and cmd/sqsfake's state endpoint do). When there is no such queue it
// returns an error that wraps sqsfake.ErrNoQueue. It panics on a negative limit.
func Page(f *sqsfake.Fake, ref string, after uint64, limit int) (QueuePage, error) {
	if limit < 0 {
		panic("companion: Page with a negative limit")
	}
	info, truncated, next, err := eng.QueuePage(f, ref, after, limit)
	return QueuePage{QueueInfo: info, Truncated: truncated, Next: next}, err
}

// QueueNames returns the names of every queue of f, in name order, without a snapshot of
// each as f.Queues takes. Queues of one name in several accounts or regions (sqsfake.ActAs)
// appear once each, by account, then region; QueueARNs tells them apart.
func QueueNames(f *sqsfake.Fake) []string { return eng.QueueNames(f) }

// QueueARNs returns the ARN of every queue of f, in the order of QueueNames. An ARN names a
// queue of any account and region wherever f's inspection methods take a queue.
func QueueARNs(f *sqsfake.Fake) []string { return eng.QueueARNs(f) }

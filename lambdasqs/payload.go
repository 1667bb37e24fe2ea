package lambdasqs

import (
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sqsfake/sqsfake"
)

// A receive takes only what fits the batch's payload. Lambda's poller never hands a received
// message back to the queue: it holds what it receives until it is invoked (or its
// visibility timeout ends). A trigger that received a message which then did not fit the 6 MB
// payload would have to send it back, costing it a receive (ApproximateReceiveCount) with no
// invocation — on a FIFO queue whose head batch keeps failing, over and over, until the
// redrive policy moves it to the dead-letter queue without its ever reaching the function.
// So where a receive could return more than can be invoked (mustFit), the trigger asks it for
// no more messages than are sure to fit: the trigger is in-process, and reads the sizes of the
// queue's visible messages from the fake's state (Fake.Queue, once for as long as nothing
// but the trigger calls the fake and its clock stays put). It assumes the largest visible messages come next, so the count is exact for
// messages of one size and conservative otherwise: a batch may end a message or two short of
// 6 MB, never over it. Lambda's docs do not say how its pollers meet the quota.

// maxReceiptHandle bounds a receipt handle's length (SQS: "up to 1,024 characters").
const maxReceiptHandle = 1024

// sizes is the trigger's view of the sizes of its queue's visible messages.
type sizes struct {
	ok      bool
	foreign int       // f.CallCount() less the trigger's own calls when read
	own     int       // the trigger's own calls when read
	at      time.Time // the fake's time when read
	largest []int     // an upper bound of each visible message's record, largest first
}

// call counts one of the trigger's own calls to the fake, so that sizes can tell whether
// anyone else has called it since it was read.
func (t *Trigger) call() { t.calls++ }

// current reports whether nothing can have added a visible message since the sizes were
// read: no call to the fake but the trigger's own, and no move of its clock. The trigger's
// own calls only take visible messages away (receive, delete, longer visibility timeouts),
// so the largest size read then still bounds every visible message.
func (s *sizes) current(f *sqsfake.Fake, calls int) bool {
	return s.ok && f.CallCount()-calls == s.foreign && f.Now().Equal(s.at)
}

// mustFit reports whether the next receive must fit the pending batch. A receive into an
// empty batch on a standard queue with two free slots need not: ten records of at most
// 1 MiB fill at most two batches, and the second has a slot, so no record has to go back or
// wait. Reading the queue's sizes costs time in the queue's length, and this spares it in
// the common case.
func (t *Trigger) mustFit() bool {
	return t.fifo || len(t.pending) > 0 || t.limit(t.f.Now())-t.busy() < 2
}

// fit returns how many of want messages a receive may ask for so that whatever it returns
// fits room bytes of payload.
func (t *Trigger) fit(want, room int) int {
	s := &t.sizes
	if !s.current(t.f, t.calls) {
		t.readSizes()
	} else if len(s.largest) > 0 && s.largest[0]*want > room && s.own != t.calls {
		t.readSizes() // the exact sizes are needed, and the trigger's receives changed them
	}
	if len(s.largest) == 0 || s.largest[0]*want <= room {
		return want
	}
	n, sum := 0, 0
	for _, size := range s.largest {
		if n == want || sum+size > room {
			return n
		}
		sum += size
		n++
	}
	return want // fewer visible messages than want: all of them fit
}

// readSizes reads the sizes of the queue's visible messages from the fake.

func (t *Trigger) readSizes() {
	s := &t.sizes
	s.largest = s.largest[:0]
	if info, ok := t.f.Queue(t.url); ok {
		for i := range info.Messages {
			if m := &info.Messages[i]; m.State == sqsfake.StateVisible {
				s.largest = append(s.largest, t.recordBound(m))
			}
		}
	}
	slices.SortFunc(s.largest, func(a, b int) int { return b - a })
	s.ok, s.foreign, s.own, s.at = true, t.f.CallCount()-t.calls, t.calls, t.f.Now()
}

// recordBound bounds what recordSize says of the message's record.
func (t *Trigger) recordBound(m *sqsfake.MessageInfo) int {
	n := 330 + baseAttributes + len(m.MessageID) + maxReceiptHandle + len(m.Body) + 2*32 + len(t.arn) + len(t.f.Region())
	for i, v := range [...]string{m.SequenceNumber, m.GroupID, m.DeduplicationID, m.TraceHeader} {
		if v != "" {
			n += len(optionalAttributes[i]) + len(v) + 6
		}
	}
	for k, v := range m.Attributes {
		n += len(k) + len(aws.ToString(v.DataType)) + 80 + (len(v.BinaryValue)+2)/3*4
		if v.StringValue != nil {
			n += len(*v.StringValue)
		}
	}
	return n
}

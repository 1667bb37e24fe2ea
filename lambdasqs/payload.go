package lambdasqs

import (
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
)

// A receive takes only what fits the batch's payload. Lambda's poller never hands a received
// message back to the queue: it holds what it receives until it is invoked (or its
// visibility timeout ends). A trigger that received a message which then did not fit the 6 MB
// payload would have to send it back, costing it a receive (ApproximateReceiveCount) with no
// invocation — on a FIFO queue whose head batch keeps failing, over and over, until the
// redrive policy moves it to the dead-letter queue without its ever reaching the function.
// So where a receive could return more than can be invoked (mustFit), the trigger asks it for
// no more messages than are sure to fit: the trigger is in-process, and reads the sizes of
// every message of its queue from the fake's state (Fake.Queue). A message's size never
// changes, so the reading holds for as long as nothing but the trigger calls the fake and the
// fake is not reset (companion.Epoch): the clock moving only changes which messages are visible,
// and the trigger's own calls only take messages away, which it notes when it deletes them.
// It assumes the largest messages not deleted come next — in flight or delayed ones too — so
// the count is exact for messages of one size and conservative otherwise: a batch may end a
// message or two short of 6 MB, and it is over 6 MB only by JSON escapes, which the estimate
// leaves out (see recordSize). Lambda's docs do not say how its pollers meet the quota.

// maxReceiptHandle bounds a receipt handle's length (SQS: "up to 1,024 characters").
const maxReceiptHandle = 1024

// sizes is the trigger's view of the sizes of its queue's messages.
type sizes struct {
	ok      bool
	epoch   uint64  // companion.Epoch(f) when read
	foreign int     // f.CallCount() less the trigger's own calls when read
	bounds  []sized // an upper bound of each message's record, largest first
	// gone holds the messages of bounds the trigger has deleted since; they leave bounds as
	// fit walks past them.
	gone map[string]bool
}

// sized is the bound of one message's record.
type sized struct {
	id    string
	bound int
}

// call counts one of the trigger's own calls to the fake, so that sizes can tell whether
// anyone else has called it since it was read.
func (t *Trigger) call() { t.calls++ }

// current reports whether nothing can have added a message since the sizes were read: no
// call to the fake but the trigger's own, and no Reset (after which CallCount starts again
// from 0, so that as many calls would pass for none). The trigger's own calls only take
// messages away, so the sizes read then still bound every message.
func (s *sizes) current(f *sqsfake.Fake, calls int) bool {
	return s.ok && companion.Epoch(f) == s.epoch && f.CallCount()-calls == s.foreign
}

// forget notes that the trigger deleted the messages ids.
func (s *sizes) forget(ids []string) {
	if !s.ok {
		return
	}
	for _, id := range ids {
		s.gone[id] = true
	}
}

// mustFit reports whether the next receive must fit the pending batch. A receive into an
// empty batch on a standard queue with three free slots need not: a message is at most
// 1 MiB as SQS counts it, but a binary attribute's bytes are base64 in the record (4/3
// larger), so a record is at most about 1.34 MiB plus its fixed fields (recordBound), and four
// of them fit 6 MB; ten records then fill at most three batches (4+4+2), each with a slot,
// so no record has to go back or wait. Sizing a receive costs a walk of the largest sizes
// (and, after another caller's call, a read of the whole queue); this spares it in the common
// case.
func (t *Trigger) mustFit() bool {
	return t.fifo || len(t.pending) > 0 || t.limit(t.f.Now())-t.busy() < 3
}

// fit returns how many of want messages a receive may ask for so that whatever it returns
// fits room bytes of payload.
func (t *Trigger) fit(want, room int) int {
	s := &t.sizes
	if !s.current(t.f, t.calls) {
		t.readSizes()
	}
	// Walk the largest bounds, dropping the deleted messages walked past, so that each
	// leaves the list once: a walk costs want plus what it drops.
	b := s.bounds
	w, i, n, sum, over := 0, 0, 0, 0, false
	for ; i < len(b) && n < want && !over; i++ {
		e := b[i]
		if s.gone[e.id] {
			delete(s.gone, e.id)
			continue
		}
		b[w] = e
		w++
		if over = sum+e.bound > room; !over {
			sum += e.bound
			n++
		}
	}
	if w < i {
		s.bounds = append(b[:w], b[i:]...)
	}
	if over {
		return n
	}
	return want // want fit, or fewer messages than want: all of them fit
}

// readSizes reads the sizes of the queue's messages from the fake. The calls are counted
// before the queue is read: a call in between counts as unseen, and the next fit reads again.
func (t *Trigger) readSizes() {
	s := &t.sizes
	s.ok, s.epoch, s.foreign = true, companion.Epoch(t.f), t.f.CallCount()-t.calls
	s.bounds = s.bounds[:0]
	if s.gone == nil {
		s.gone = map[string]bool{}
	}
	clear(s.gone)
	if info, err := t.f.Queue(t.url); err == nil {
		for i := range info.Messages {
			m := &info.Messages[i]
			s.bounds = append(s.bounds, sized{id: m.MessageID, bound: t.recordBound(m)})
		}
	}
	slices.SortFunc(s.bounds, func(a, b sized) int { return b.bound - a.bound })
}

// recordBound bounds what recordSize says of the message's record.
func (t *Trigger) recordBound(m *sqsfake.MessageInfo) int {
	n := 330 + baseAttributes + len(m.MessageID) + maxReceiptHandle + len(m.Body) + 2*32 + len(t.arn) + len(t.region)
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

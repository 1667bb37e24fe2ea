package sqsfake

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimelineRecordsAMessagesLifeOnTheClock(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", map[string]string{"VisibilityTimeout": "30"})
	id := e.send(url, "a")
	e.f.Advance(time.Second)
	first := e.receiveOne(url, 0) // in flight until 31 s
	e.f.Advance(10 * time.Second)
	e.changeVisibility(url, *first.ReceiptHandle, 5) // until 16 s
	e.f.Advance(10 * time.Second)                    // visible again at exactly 16 s
	second := e.receiveOne(url, 20)                  // at 21 s, until 41 s
	e.delete(url, *second.ReceiptHandle)

	want := Timeline{MessageID: id, Events: []Event{
		{Kind: EventSent, At: clockAt(0), Queue: "jobs"},
		{Kind: EventReceived, At: clockAt(time.Second), Queue: "jobs", ReceiptHandle: *first.ReceiptHandle, ReceiveCount: 1, VisibleAt: clockAt(31 * time.Second)},
		{Kind: EventVisibilityChanged, At: clockAt(11 * time.Second), Queue: "jobs", VisibleAt: clockAt(16 * time.Second)},
		{Kind: EventVisibleAgain, At: clockAt(16 * time.Second), Queue: "jobs"},
		{Kind: EventReceived, At: clockAt(21 * time.Second), Queue: "jobs", ReceiptHandle: *second.ReceiptHandle, ReceiveCount: 2, VisibleAt: clockAt(41 * time.Second)},
		{Kind: EventDeleted, At: clockAt(21 * time.Second), Queue: "jobs"},
	}}
	assert.Equal(t, want, e.f.Timeline(id))

	wantText := strings.Join([]string{
		"timeline of message " + id + ":",
		"  2025-01-01T00:00:00Z  sent to jobs",
		"  2025-01-01T00:00:01Z  received from jobs (receive 1, handle " + *first.ReceiptHandle + ", visible again at 2025-01-01T00:00:31Z)",
		"  2025-01-01T00:00:11Z  visibility changed in jobs (visible again at 2025-01-01T00:00:16Z)",
		"  2025-01-01T00:00:16Z  visible again in jobs",
		"  2025-01-01T00:00:21Z  received from jobs (receive 2, handle " + *second.ReceiptHandle + ", visible again at 2025-01-01T00:00:41Z)",
		"  2025-01-01T00:00:21Z  deleted in jobs",
	}, "\n")
	assert.Equal(t, wantText, e.f.Timeline(id).String())
}

// The expiry is recorded at the instant the visibility timeout ended, not when a later call
// happened to notice it.
func TestTimelineRecordsVisibleAgainAtTheExactDeadline(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	id := e.send(url, "a")
	e.receiveOne(url, 7)
	e.f.Advance(time.Hour)
	last, ok := e.f.Timeline(id).Last()
	require.True(t, ok)
	assert.Equal(t, Event{Kind: EventVisibleAgain, At: clockAt(7 * time.Second), Queue: "jobs"}, last)
}

func TestTimelineOfADeadLetteredMessage(t *testing.T) {
	e := newErgo(t)
	src, _ := e.dlqPair("jobs", 1)
	id := e.send(src, "poison")
	r := e.receiveOne(src, 0)
	e.f.Advance(30 * time.Second)
	assert.Empty(t, e.receive(src, 1, 0))

	want := Timeline{MessageID: id, Events: []Event{
		{Kind: EventSent, At: clockAt(0), Queue: "jobs"},
		{Kind: EventReceived, At: clockAt(0), Queue: "jobs", ReceiptHandle: *r.ReceiptHandle, ReceiveCount: 1, VisibleAt: clockAt(30 * time.Second)},
		{Kind: EventVisibleAgain, At: clockAt(30 * time.Second), Queue: "jobs"},
		{Kind: EventMovedToDLQ, At: clockAt(30 * time.Second), Queue: "jobs", ToQueue: "jobs-dlq"},
	}}
	assert.Equal(t, want, e.f.Timeline(id))
	assert.True(t, e.f.Timeline(id).Has(EventMovedToDLQ))
	assert.False(t, e.f.Timeline(id).Has(EventDeleted))
	assert.Contains(t, e.f.Timeline(id).String(), "\n  2025-01-01T00:00:30Z  moved from jobs to jobs-dlq")
}

// A move task redrives a dead-lettered message as a new message: the old one's timeline
// ends with the redrive and names the new MessageId, whose own timeline starts with a send
// that names the old one.
func TestTimelineOfARedrivenMessage(t *testing.T) {
	e := newErgo(t)
	src, _ := e.dlqPair("jobs", 1)
	id := e.send(src, "poison")
	e.receiveOne(src, 0)
	e.f.Advance(30 * time.Second)
	e.receive(src, 1, 0) // moves it
	_, err := e.f.StartMessageMoveTask(e.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:123456789012:jobs-dlq")})
	require.NoError(t, err)
	e.f.Advance(time.Second)

	old := e.f.Timeline(id)
	last, ok := old.Last()
	require.True(t, ok)
	require.Equal(t, EventRedriven, last.Kind)
	require.NotEmpty(t, last.NewMessageID)
	assert.Equal(t, Event{Kind: EventRedriven, At: last.At, Queue: "jobs-dlq", ToQueue: "jobs", NewMessageID: last.NewMessageID}, last)
	assert.False(t, last.At.Before(clockAt(30*time.Second)) || last.At.After(clockAt(31*time.Second)), "moved within the second: %s", last.At)
	assert.Contains(t, old.String(), fmt.Sprintf("redriven from jobs-dlq to jobs as message %s", last.NewMessageID))

	assert.Equal(t, Timeline{MessageID: last.NewMessageID, Events: []Event{
		{Kind: EventSent, At: last.At, Queue: "jobs", FromMessageID: id},
	}}, e.f.Timeline(last.NewMessageID))
	assert.Contains(t, e.f.Timeline(last.NewMessageID).String(), "sent to jobs (redriven from message "+id+")")
	m, queue, ok := e.f.FindMessage(last.NewMessageID)
	require.True(t, ok)
	assert.Equal(t, "jobs", queue)
	assert.Equal(t, 0, m.ReceiveCount, "a redriven message starts afresh")
}

func TestTimelineRecordsHowAMessageLeftItsQueue(t *testing.T) {
	for _, tc := range []struct {
		name  string
		leave func(e *ergo, url string)
		want  Event
	}{
		{"purged", func(e *ergo, url string) {
			e.f.Advance(time.Second)
			_, err := e.f.PurgeQueue(e.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
			require.NoError(e.t, err)
		}, Event{Kind: EventPurged, At: clockAt(time.Second), Queue: "jobs"}},
		{"expired by retention", func(e *ergo, url string) {
			e.f.Advance(2 * time.Minute)
		}, Event{Kind: EventExpired, At: clockAt(time.Minute), Queue: "jobs"}},
		{"queue deleted", func(e *ergo, url string) {
			e.f.Advance(3 * time.Second)
			_, err := e.f.DeleteQueue(e.ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
			require.NoError(e.t, err)
		}, Event{Kind: EventQueueDeleted, At: clockAt(3 * time.Second), Queue: "jobs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newErgo(t)
			url := e.queue("jobs", map[string]string{"MessageRetentionPeriod": "60"})
			id := e.send(url, "a")
			tc.leave(e, url)
			tl := e.f.Timeline(id)
			assert.Equal(t, Timeline{MessageID: id, Events: []Event{{Kind: EventSent, At: clockAt(0), Queue: "jobs"}, tc.want}}, tl)
			assert.Contains(t, tl.String(), tc.want.Kind.String()+" in jobs")
		})
	}
}

func TestTimelineOfAnUnknownMessage(t *testing.T) {
	e := newErgo(t)
	tl := e.f.Timeline("nope")
	assert.Equal(t, Timeline{MessageID: "nope"}, tl)
	assert.Equal(t, "timeline of message nope: no events (no such message)", tl.String())
	_, ok := tl.Last()
	assert.False(t, ok)
}

func TestEventKindString(t *testing.T) {
	want := map[EventKind]string{
		EventSent: "sent", EventReceived: "received", EventVisibilityChanged: "visibility changed",
		EventVisibleAgain: "visible again", EventDeleted: "deleted", EventMovedToDLQ: "moved to DLQ",
		EventRedriven: "redriven", EventPurged: "purged", EventExpired: "expired", EventQueueDeleted: "queue deleted", EventDeleteMissed: "delete missed (chaos)",
		EventCallFailed: "call failed", EventCallIgnored: "call changed nothing",
		0: "EventKind(0)", 99: "EventKind(99)",
	}
	for k, s := range want {
		assert.Equal(t, s, k.String())
	}
}

// The event log grows in fixed chunks; a timeline spanning several reads back whole.
func TestTimelineSpansHistoryChunks(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	id := e.send(url, "a")
	for range historyChunk + 10 {
		e.send(url, "filler")
	}
	m := e.receiveOne(url, 0)
	require.Equal(t, id, *m.MessageId)
	tl := e.f.Timeline(id)
	require.Len(t, tl.Events, 2)
	assert.Equal(t, EventReceived, tl.Events[1].Kind)
}

func TestHistoryLimitForgetsTheOldestEvents(t *testing.T) {
	for _, limit := range []int{1, historyChunk, 5000, 2 * historyChunk, 2*historyChunk + 1} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			f := New(WithHistoryLimit(limit))
			q := mustCreateQueue(t, f, "busy", nil)
			first := send(t, f, q, "first")
			kept := func() int {
				total := 0
				f.hist.each(func(*event) { total++ })
				return total
			}
			floor := max(limit, historyChunk)
			for sent := 2; sent <= 4*historyChunk; sent++ { // one event a send
				send(t, f, q, "more")
				// The newest events up to the limit are always there, and fewer than two
				// chunks more.
				n := kept()
				if n < min(sent, floor) || n >= floor+2*historyChunk {
					t.Fatalf("after %d sends %d events are kept", sent, n)
				}
			}
			assert.Empty(t, f.Timeline(*first.MessageId).Events, "the first send was forgotten")
			assert.Equal(t, "timeline of message "+*first.MessageId+": no events (forgotten: the fake keeps its WithHistoryLimit newest events)",
				f.Timeline(*first.MessageId).String())
			last := send(t, f, q, "last")
			assert.Len(t, f.Timeline(*last.MessageId).Events, 1)
		})
	}
}

// What a snapshot shows never depends on the event log: a dead-lettered message keeps its
// receipt handle and its age in the DLQ when the log forgets its move.
func TestSnapshotsOfDeadLettersOutliveTheHistoryLimit(t *testing.T) {
	e := newErgo(t, WithHistoryLimit(historyChunk))
	src, _ := e.dlqPair("jobs", 1)
	id := e.send(src, "poison")
	r := e.receiveOne(src, 0)
	e.f.Advance(30 * time.Second)
	assert.Empty(t, e.receive(src, 1, 0)) // moves it to jobs-dlq
	e.f.Advance(10 * time.Second)
	before, err := e.f.Message("jobs-dlq", id)
	require.NoError(t, err)
	dlqBefore, _ := e.f.Queue("jobs-dlq")
	require.Equal(t, *r.ReceiptHandle, before.ReceiptHandle)
	require.Equal(t, 10*time.Second, dlqBefore.Stats.ApproximateAgeOfOldestMessage)

	other := e.queue("other", nil)
	for range 3 * historyChunk {
		e.send(other, "traffic")
	}
	require.False(t, e.f.Timeline(id).Has(EventMovedToDLQ), "the log forgot the move")
	after, err := e.f.Message("jobs-dlq", id)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	dlqAfter, _ := e.f.Queue("jobs-dlq")
	assert.Equal(t, dlqBefore.Stats, dlqAfter.Stats)
}

// A message whose retention ends while it is in flight expires then and is never visible
// again, whether the clock gets there in one move or in many.
func TestTimelineIsTheSameForOneLongClockMoveAsForManyShortOnes(t *testing.T) {
	run := func(move func(f *Fake)) Timeline {
		e := newErgo(t)
		url := e.queue("jobs", map[string]string{"MessageRetentionPeriod": "60", "VisibilityTimeout": "100"})
		id := e.send(url, "a")
		e.receiveOne(url, 0)
		move(e.f)
		return e.f.Timeline(id)
	}
	oneMove := run(func(f *Fake) { f.Advance(200 * time.Second) })
	manyMoves := run(func(f *Fake) {
		for range 200 {
			f.Advance(time.Second)
		}
	})
	assert.Equal(t, manyMoves, oneMove)
	require.Len(t, oneMove.Events, 3)
	assert.Equal(t, Event{Kind: EventExpired, At: clockAt(time.Minute), Queue: "jobs"}, oneMove.Events[2])
}

// A message dead-lettered into a standard DLQ keeps its enqueue time; when the DLQ's
// retention period has already run out by then, it expires as it arrives, after its move.
func TestTimelineOfAMessageThatExpiresAsItReachesTheDLQ(t *testing.T) {
	e := newErgo(t)
	e.queue("jobs-dlq", map[string]string{"MessageRetentionPeriod": "60"})
	src := e.queue("jobs", map[string]string{"VisibilityTimeout": "1",
		"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `jobs-dlq","maxReceiveCount":1}`})
	id := e.send(src, "old")
	e.receiveOne(src, 0)
	e.f.Advance(100 * time.Second)
	assert.Empty(t, e.receive(src, 1, 0)) // moved at 100 s; the DLQ keeps messages 60 s from their send
	events := e.f.Timeline(id).Events
	require.Len(t, events, 5)
	assert.Equal(t, []Event{
		{Kind: EventMovedToDLQ, At: clockAt(100 * time.Second), Queue: "jobs", ToQueue: "jobs-dlq"},
		{Kind: EventExpired, At: clockAt(100 * time.Second), Queue: "jobs-dlq"},
	}, events[3:])
	AssertQueueEmpty(t, e.f, "jobs-dlq")
}

// Settling a DLQ applies its events in time order even when a message dead-lettered past
// its retention arrives: that one expires as it arrives; a message already there expires at
// the end of its own retention period, before its visibility timeout would have ended.
func TestTimelineOfADLQStaysInOrderWhenAnExpiredMessageArrives(t *testing.T) {
	e := newErgo(t)
	dlq := e.queue("jobs-dlq", map[string]string{"MessageRetentionPeriod": "60", "VisibilityTimeout": "70"})
	src := e.queue("jobs", map[string]string{"VisibilityTimeout": "1",
		"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `jobs-dlq","maxReceiveCount":1}`})
	a := e.send(src, "a") // retention from 0 s
	e.receiveOne(src, 0)
	e.f.Advance(10 * time.Second)
	b := e.send(dlq, "b")
	e.receiveOne(dlq, 0) // in flight until 80 s; retention ends at 70 s
	e.f.Advance(90 * time.Second)
	assert.Empty(t, e.receive(src, 1, 0)) // a moves to the DLQ at 100 s and expires there
	last, _ := e.f.Timeline(a).Last()
	assert.Equal(t, Event{Kind: EventExpired, At: clockAt(100 * time.Second), Queue: "jobs-dlq"}, last)
	events := e.f.Timeline(b).Events
	require.Len(t, events, 3)
	assert.Equal(t, Event{Kind: EventExpired, At: clockAt(70 * time.Second), Queue: "jobs-dlq"}, events[2])
}

// A DLQ's retention period shortened after a message was dead-lettered into it may have
// ended before the message arrived: it expires then, not before its move.
func TestTimelineOfADeadLetterWhoseDLQRetentionShrank(t *testing.T) {
	e := newErgo(t)
	dlq := e.queue("jobs-dlq", nil)
	src := e.queue("jobs", map[string]string{"VisibilityTimeout": "1",
		"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `jobs-dlq","maxReceiveCount":1}`})
	id := e.send(src, "old")
	e.receiveOne(src, 0)
	e.f.Advance(200 * time.Second)
	assert.Empty(t, e.receive(src, 1, 0)) // moved at 200 s
	_, err := e.f.SetQueueAttributes(e.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(dlq),
		Attributes: map[string]string{"MessageRetentionPeriod": "60"}})
	require.NoError(t, err)
	e.f.Advance(time.Second)
	last, ok := e.f.Timeline(id).Last()
	require.True(t, ok)
	assert.Equal(t, Event{Kind: EventExpired, At: clockAt(200 * time.Second), Queue: "jobs-dlq"}, last)
}

// EventKind's doc lists every kind of event, so that a reader of the type sees them all.
func TestEventKindDocListsEveryKind(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "history.go", nil, parser.ParseComments)
	require.NoError(t, err)
	var typeDoc string
	var kinds []string
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			switch sp := spec.(type) {
			case *ast.TypeSpec:
				if sp.Name.Name == "EventKind" {
					typeDoc = gd.Doc.Text()
				}
			case *ast.ValueSpec:
				if id, ok := sp.Type.(*ast.Ident); ok && id.Name == "EventKind" || len(kinds) > 0 && gd.Tok == token.CONST && sp.Type == nil && len(sp.Values) == 0 {
					kinds = append(kinds, sp.Names[0].Name)
				}
			}
		}
	}
	require.Len(t, kinds, len(eventNames)-1, "every kind has a name")
	for _, k := range kinds {
		assert.Regexp(t, `\b`+k+`\b`, typeDoc, "EventKind's doc lists %s", k)
	}
}

// The event log keeps every event of a fake's life by default, so an event must cost few
// bytes: a message sent, received and deleted on a clock that moves by the second takes
// fewer than 24 bytes of log.
func TestASendReceiveDeleteTakesFewBytesOfLog(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	logBytes := func() (n int) {
		for _, c := range e.f.hist.chunks {
			n += len(c.buf)
		}
		return n
	}
	e.send(url, "warm up")
	before := logBytes()
	const cycles = 100
	for range cycles {
		e.send(url, "work")
		e.f.Advance(time.Second)
		m := e.receiveOne(url, 0)
		e.f.Advance(time.Second)
		e.delete(url, *m.ReceiptHandle)
	}
	perCycle := float64(logBytes()-before) / cycles
	assert.Less(t, perCycle, 24.0, "bytes of event log per send, receive and delete")
}

// The event log keeps events encoded as differences from the event before; every event
// reads back exactly as it was added, whatever its fields hold: times that step back,
// messages older than the one before, deadlines before their event, the largest values,
// across chunks and after the log forgot its oldest.
func TestTheEventLogGivesBackEveryEventAsItWasAdded(t *testing.T) {
	edge := []event{
		{at: 0, idNum: 1, queue: 1, kind: EventSent},
		{at: -1, idNum: 0, kind: EventCallIgnored, op: 255, code: 65535},
		{at: 1<<63 - 1, idNum: 1<<64 - 1, arg: 1<<64 - 1, queue: 1<<32 - 1, to: 1<<32 - 1, receive: 1<<32 - 1, kind: EventRedriven, op: 1},
		{at: -1 << 63, idNum: 2, arg: uint64(1<<63 - 1), kind: EventReceived, receive: 1},
		{at: 5, idNum: 1 << 40, arg: uint64(1) << 63, kind: EventVisibilityChanged},
		{at: 5, idNum: 3, arg: 4, kind: EventReceived}, // a deadline before the event
		{at: 5, idNum: 3, arg: 1, kind: EventCallFailed, to: 7, receive: 2, op: 3, code: 9},
		{kind: EventExpired},
	}
	rng := uint64(1)
	next := func() uint64 { rng = rng*6364136223846793005 + 1442695040888963407; return rng }
	var want []event
	for i := range 3*historyChunk + 17 {
		e := edge[i%len(edge)]
		if i >= len(edge) {
			r := next()
			e = event{at: int64(i)*1e6 + int64(r%1e9), idNum: uint64(i) - r%3, queue: uint32(r >> 60), kind: EventKind(1 + (r>>8)%13)}
			if r&1 != 0 {
				e.arg = uint64(e.at) + r%30e9
			}
			if r&2 != 0 {
				e.to = uint32(r >> 40)
			}
			if r&4 != 0 {
				e.receive = uint32(r >> 50)
			}
			if r&8 != 0 {
				e.op, e.code = uint8(r>>16), uint16(r>>24)
			}
		}
		want = append(want, e)
	}
	for _, limit := range []int{0, historyChunk} {
		h := history{limit: limit}
		for _, e := range want {
			h.add(e)
		}
		var got []event
		h.each(func(e *event) { got = append(got, *e) })
		kept := want
		if limit > 0 {
			kept = want[h.forgot:]
			require.True(t, h.dropped())
		}
		require.Len(t, got, len(kept), "limit %d", limit)
		for i := range kept {
			require.Equal(t, kept[i], got[i], "limit %d, event %d", limit, i)
		}
	}
}

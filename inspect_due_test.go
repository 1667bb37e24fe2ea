package sqsfake

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEpochCountsResetsFromWithEpoch(t *testing.T) {
	f := New()
	assert.Equal(t, uint64(0), f.currentEpoch())
	f.Reset()
	f.Reset()
	assert.Equal(t, uint64(2), f.currentEpoch())
	g := New(withEpoch(7))
	assert.Equal(t, uint64(7), g.currentEpoch())
	g.Reset()
	assert.Equal(t, uint64(8), g.currentEpoch())
}

// NextVisible reports, without rendering messages, how many are visible and when the next
// delay, visibility timeout (or, on FIFO, retention period) ends; at that moment a receive
// returns what became available.
func TestNextVisibleReportsTheNextDueEvent(t *testing.T) {
	type want struct {
		at      time.Duration // after DefaultStart; -1 for none
		visible int
	}
	for _, tc := range []struct {
		name  string
		setup func(e *ergo) string // returns the queue's name, after moving the clock as it likes
		want  want
		// receives is how many messages a receive at the reported time returns (checked
		// when at is set): the event is not early for these cases.
		receives int
	}{
		{"empty queue", func(e *ergo) string { e.queue("q", nil); return "q" }, want{-1, 0}, 0},
		{"a visible message and a delayed one", func(e *ergo) string {
			url := e.queue("q", nil)
			e.send(url, "now")
			e.sendInput(&sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("later"), DelaySeconds: 30})
			return "q"
		}, want{30 * time.Second, 1}, 2},
		{"an in-flight message returns before a delayed one", func(e *ergo) string {
			url := e.queue("q", nil)
			e.send(url, "a")
			e.receive(url, 1, 20)
			e.sendInput(&sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("b"), DelaySeconds: 40})
			return "q"
		}, want{20 * time.Second, 0}, 1},
		{"settled to the clock's time", func(e *ergo) string {
			url := e.queue("q", nil)
			e.send(url, "a")
			e.receive(url, 1, 20)
			e.sendInput(&sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("b"), DelaySeconds: 40})
			e.f.Advance(25 * time.Second)
			return "q"
		}, want{40 * time.Second, 1}, 2},
		{"FIFO: a message behind its group's in-flight head is counted visible", func(e *ergo) string {
			url := e.queue("q.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})
			for _, b := range []string{"1", "2"} {
				e.sendInput(&sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(b), MessageGroupId: aws.String("g")})
			}
			e.receive(url, 1, 30)
			return "q.fifo"
		}, want{30 * time.Second, 1}, 2},
		{"FIFO: the in-flight head's retention ends first and unlocks its group", func(e *ergo) string {
			url := e.queue("q.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true",
				"MessageRetentionPeriod": "60", "VisibilityTimeout": "600"})
			e.sendInput(&sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("1"), MessageGroupId: aws.String("g")})
			e.f.Advance(10 * time.Second)
			e.sendInput(&sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("2"), MessageGroupId: aws.String("g")})
			e.receive(url, 1, 600)
			return "q.fifo"
		}, want{60 * time.Second, 1}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newErgo(t)
			name := tc.setup(e)
			at, visible, err := e.f.nextVisible(name)
			require.NoError(t, err)
			var got want
			got.visible = visible
			if at.IsZero() {
				got.at = -1
			} else {
				got.at = at.Sub(DefaultStart)
			}
			assert.Equal(t, tc.want, got)
			if at.IsZero() {
				return
			}
			e.f.Advance(at.Sub(e.f.Now()))
			info, _ := e.f.Queue(name)
			assert.Len(t, e.receive(info.URL, 10, 30), tc.receives)
		})
	}
	_, _, err := New().nextVisible("nope")
	assert.ErrorIs(t, err, ErrNoQueue)
}

package sqsfake

import (
	"context"
	"encoding/binary"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReceiptHandlesRoundTrip(t *testing.T) {
	k42 := newHandleKey(nil, 42, 0)
	for _, r := range []receipt{{1, 1, 1}, {7, 1 << 40, 3}, {1<<32 - 1, 1<<64 - 1, 1<<32 - 1}} {
		h := encodeReceipt(&k42, r)
		assert.Len(t, h, receiptTextLen)
		assert.Regexp(t, `^AQEB[A-Za-z0-9+/]+$`, h)
		got, err := decodeReceipt(&k42, h)
		require.NoError(t, err)
		assert.Equal(t, r, got)
	}
}

func TestReceiptHandlesThatWereNeverIssuedAreRejected(t *testing.T) {
	k42, k43 := newHandleKey(nil, 42, 0), newHandleKey(nil, 43, 0)
	h := encodeReceipt(&k42, receipt{1, 2, 3})
	tampered := []byte(h)
	tampered[10] ^= 1
	for _, bad := range []string{"", "garbage", h[:len(h)-1], h + "A", string(tampered), "XXXX" + h[4:], h[:8] + "!" + h[9:]} {
		_, err := decodeReceipt(&k42, bad)
		assert.Error(t, err, "%q", bad)
	}
	_, err := decodeReceipt(&k43, h)
	assert.Error(t, err, "another seed's handle")
	for _, k := range []handleKey{newHandleKey(nil, 42, 1), newHandleKey([]byte("secret"), 42, 0)} {
		_, err := decodeReceipt(&k, h)
		assert.Error(t, err, "another epoch's or signed mode's handle")
	}
}

// SipHash-2-4 of the paper's test vector (Aumasson and Bernstein, "SipHash: a fast
// short-input PRF", appendix A): key 00 01 … 0f, message 00 01 … 0e.
func TestSipHashMatchesThePapersVector(t *testing.T) {
	msg := make([]byte, 15)
	for i := range msg {
		msg[i] = byte(i)
	}
	assert.Equal(t, uint64(0xa129ca6149be45e5), sipHash24(0x0706050403020100, 0x0f0e0d0c0b0a0908, msg))
}

func TestReceiptHandlesDoNotAllocate(t *testing.T) {
	k := newHandleKey(nil, 42, 0)
	var buf [receiptTextLen]byte
	h := encodeReceipt(&k, receipt{1, 2, 3})
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		appendReceipt(buf[:0], &k, receipt{1, 2, 3})
		if _, err := decodeReceipt(&k, h); err != nil {
			t.Fatal(err)
		}
	}))
}

func TestUUIDsAreVersion4AndDeterministic(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for n := uint64(0); n < 1000; n++ {
		id := uuidFor(1, streamMessageID, n)
		assert.Regexp(t, re, id)
		assert.False(t, seen[id])
		seen[id] = true
		assert.Equal(t, id, uuidFor(1, streamMessageID, n))
	}
	assert.NotEqual(t, uuidFor(1, streamMessageID, 5), uuidFor(1, streamRequestID, 5))
}

// Identifiers depend on the seed and the sequence of calls, not on the clock: the same calls
// at other times, from another start, give the same MessageIds, receipt handles and request
// ids.
func TestIdentifiersDoNotDependOnTheClock(t *testing.T) {
	script := func(f *Fake, pause time.Duration) []string {
		ctx := context.Background()
		var ids []string
		q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		require.NoError(t, err)
		f.Advance(pause)
		sent, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("a")})
		require.NoError(t, err)
		f.Advance(pause)
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
		require.NoError(t, err)
		require.Len(t, out.Messages, 1)
		f.Advance(pause)
		_, err = f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
		require.Error(t, err)
		for _, c := range f.Calls() {
			ids = append(ids, c.RequestID)
		}
		return append(ids, *sent.MessageId, *out.Messages[0].ReceiptHandle)
	}
	mock := clock.NewMock()
	mock.Set(time.Date(2031, 6, 1, 12, 0, 0, 0, time.UTC))
	assert.Equal(t, script(New(), 0), script(New(WithClock(mock)), time.Hour))
}

// BenchmarkReceiptHandle issues and reads back one handle: what a receive and a delete add
// to the engine's hot path.
func BenchmarkReceiptHandle(b *testing.B) {
	k := newHandleKey(nil, 42, 0)
	var buf [receiptTextLen]byte
	h := encodeReceipt(&k, receipt{1, 2, 3})
	b.ReportAllocs()
	for b.Loop() {
		appendReceipt(buf[:0], &k, receipt{1, 2, 3})
		if _, err := decodeReceipt(&k, h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendUUID(b *testing.B) {
	buf := make([]byte, 0, uuidLen)
	for i := uint64(0); b.Loop(); i++ {
		buf = appendUUID(buf[:0], 1, streamMessageID, i)
	}
}

// appendUUID writes the 16 bytes the counter mixes to, with the version and variant bits set,
// as a UUID's text: 8-4-4-4-12 lower-case hex digits.
func TestAppendUUIDWritesTheMixedBytesAsAUUID(t *testing.T) {
	for _, n := range []uint64{0, 1, 2, 1 << 40, ^uint64(0)} {
		hi := mix64(7 ^ mix64(streamMessageID) ^ n)
		lo := mix64(hi ^ n ^ 0x5851f42d4c957f2d)
		b := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, hi), lo)
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		want := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
		assert.Equal(t, "prefix:"+want, string(appendUUID([]byte("prefix:"), 7, streamMessageID, n)))
		assert.Equal(t, want, uuidFor(7, streamMessageID, n))
	}
}

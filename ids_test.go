package sqsfake

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReceiptHandlesRoundTrip(t *testing.T) {
	for _, r := range []receipt{{1, 1, 1}, {7, 1 << 40, 3}, {1<<32 - 1, 1<<64 - 1, 1<<32 - 1}} {
		h := encodeReceipt(42, r)
		assert.Len(t, h, receiptTextLen)
		assert.Regexp(t, `^AQEB[A-Za-z0-9+/]+$`, h)
		got, err := decodeReceipt(42, h)
		require.NoError(t, err)
		assert.Equal(t, r, got)
	}
}

func TestReceiptHandlesThatWereNeverIssuedAreRejected(t *testing.T) {
	h := encodeReceipt(42, receipt{1, 2, 3})
	tampered := []byte(h)
	tampered[10] ^= 1
	for _, bad := range []string{"", "garbage", h[:len(h)-1], h + "A", string(tampered), "XXXX" + h[4:], h[:8] + "!" + h[9:]} {
		_, err := decodeReceipt(42, bad)
		assert.Error(t, err, "%q", bad)
	}
	_, err := decodeReceipt(43, h)
	assert.Error(t, err, "another seed's handle")
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

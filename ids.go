package sqsfake

import (
	"encoding/binary"
	"errors"
)

// Identifiers are drawn from per-fake counters mixed with the fake's seed, so the same calls
// give the same MessageIds, receipt handles and request ids on every run.

// mix64 is SplitMix64's finaliser: a bijection that spreads counter values over 64 bits.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

const hexDigits = "0123456789abcdef"

// uuidFor formats a UUID version 4 string derived from (seed, stream, n).
func uuidFor(seed, stream, n uint64) string {
	var out [uuidLen]byte
	return string(appendUUID(out[:0], seed, stream, n))
}

const uuidLen = 36

// appendUUID appends the text of the UUID for (seed, stream, n) to dst.
func appendUUID(dst []byte, seed, stream, n uint64) []byte {
	hi := mix64(seed ^ mix64(stream) ^ n)
	lo := mix64(hi ^ n ^ 0x5851f42d4c957f2d)
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], hi)
	binary.BigEndian.PutUint64(b[8:], lo)
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	var text [uuidLen]byte
	j := 0
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			text[j] = '-'
			j++
		}
		text[j], text[j+1] = hexDigits[c>>4], hexDigits[c&0x0f]
		j += 2
	}
	return append(dst, text[:]...)
}

// Streams of identifiers, so that different kinds never share values.
const (
	streamMessageID = iota + 1
	streamRequestID
	streamTaskID
)

// A receipt handle names one receive of one message: the queue's id, the message's number
// (the counter its MessageId derives from) and which receive of it this was, sealed with a
// check value derived from a key — the fake's seed and reset epoch — so that strings the fake
// never issued, or issued before a Reset, are recognised. Real handles start with "AQEB" and
// are base64; ours do too.
type receipt struct {
	queue   uint32
	msg     uint64 // the message's idNum
	receive uint32
}

const receiptPrefix = "AQEB"

// epochKey is the key that seals receipt handles in the given reset epoch: the seed itself in
// epoch 0, so a new fake's handles stay as they were, and a different key in each other
// epoch (mix64 is a bijection), so that a handle issued before a Reset fails its check
// afterwards and is refused as one the fake never issued, whatever message took its place.
func epochKey(seed, epoch uint64) uint64 { return seed ^ mix64(epoch) ^ mix64(0) }

// receiptKey returns the key of the handles f issues now.
func (f *Fake) receiptKey() uint64 { return epochKey(f.seed, f.epoch) }

// receiptLen is the size of a handle's binary payload: queue, message number, receive and a check value.
const receiptLen = 4 + 8 + 4 + 8

var errBadReceipt = errors.New("malformed receipt handle")

func receiptCheck(key uint64, r receipt) uint64 {
	return mix64(key ^ mix64(uint64(r.queue)<<32|uint64(r.receive)) ^ mix64(r.msg))
}

const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var b64Index = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(b64Alphabet); i++ {
		t[b64Alphabet[i]] = int8(i)
	}
	return t
}()

// receiptTextLen is the length of every receipt handle the fake issues.
const receiptTextLen = len(receiptPrefix) + receiptLen/3*4

// encodeReceipt returns the handle string for r.
func encodeReceipt(key uint64, r receipt) string {
	var out [receiptTextLen]byte
	return string(appendReceipt(out[:0], key, r))
}

// receiptMask is the keystream that hides a handle's payload, so handles look as opaque as
// AWS's; it depends on the key and the handle's check value.
func receiptMask(key, check uint64) (uint64, uint64) {
	a := mix64(key ^ check)
	return a, mix64(a ^ check)
}

// appendReceipt appends the handle text for r to dst: the check value, then the payload
// masked with a keystream derived from it.
func appendReceipt(dst []byte, key uint64, r receipt) []byte {
	check := receiptCheck(key, r)
	m1, m2 := receiptMask(key, check)
	var raw [receiptLen]byte
	binary.BigEndian.PutUint64(raw[0:], check)
	binary.BigEndian.PutUint64(raw[8:], (uint64(r.queue)<<32|uint64(r.receive))^m1)
	binary.BigEndian.PutUint64(raw[16:], r.msg^m2)
	dst = append(dst, receiptPrefix...)
	// receiptLen is a multiple of 3, so the encoding needs no padding.
	for i := 0; i < receiptLen; i += 3 {
		v := uint32(raw[i])<<16 | uint32(raw[i+1])<<8 | uint32(raw[i+2])
		dst = append(dst, b64Alphabet[v>>18&63], b64Alphabet[v>>12&63], b64Alphabet[v>>6&63], b64Alphabet[v&63])
	}
	return dst
}

// decodeReceipt parses a handle; it fails for anything encodeReceipt did not produce with
// this key.
func decodeReceipt(key uint64, h string) (receipt, error) {
	if len(h) != receiptTextLen || h[:len(receiptPrefix)] != receiptPrefix {
		return receipt{}, errBadReceipt
	}
	var raw [receiptLen]byte
	j := 0
	for i := len(receiptPrefix); i < len(h); i += 4 {
		var v uint32
		for k := 0; k < 4; k++ {
			d := b64Index[h[i+k]]
			if d < 0 {
				return receipt{}, errBadReceipt
			}
			v = v<<6 | uint32(d)
		}
		raw[j], raw[j+1], raw[j+2] = byte(v>>16), byte(v>>8), byte(v)
		j += 3
	}
	check := binary.BigEndian.Uint64(raw[0:])
	m1, m2 := receiptMask(key, check)
	qr := binary.BigEndian.Uint64(raw[8:]) ^ m1
	r := receipt{queue: uint32(qr >> 32), receive: uint32(qr), msg: binary.BigEndian.Uint64(raw[16:]) ^ m2}
	if check != receiptCheck(key, r) {
		return receipt{}, errBadReceipt
	}
	return r, nil
}

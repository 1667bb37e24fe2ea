package snsfake

import (
	"encoding/base64"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/sns/types"
)

// The notification body SNS writes into a queue when RawMessageDelivery is off, byte for
// byte as AWS lays it out (SPEC-sns.md §7.1): "{\n", then `  "Key" : <json>` lines joined
// by ",\n", then "\n}"; MessageAttributes one entry a line, indented four, in key order.
// Strings are escaped as JSON without HTML escapes: `"`, `\` and control characters; `/`,
// `<>&` and non-ASCII text are written as they are.

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			if c < utf8.RuneSelf {
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// envelopeWriter builds one envelope.
type envelopeWriter struct {
	b     []byte
	first bool
}

func newEnvelope(size int) *envelopeWriter {
	w := &envelopeWriter{b: make([]byte, 0, size+512), first: true}
	w.b = append(w.b, "{\n"...)
	return w
}

func (w *envelopeWriter) field(key, value string) {
	if !w.first {
		w.b = append(w.b, ",\n"...)
	}
	w.first = false
	w.b = append(w.b, "  \""...)
	w.b = append(w.b, key...)
	w.b = append(w.b, "\" : "...)
	w.b = appendJSONString(w.b, value)
}

func (w *envelopeWriter) attributes(attrs map[string]types.MessageAttributeValue) {
	if len(attrs) == 0 {
		return
	}
	w.b = append(w.b, ",\n  \"MessageAttributes\" : {\n"...)
	for i, k := range slices.Sorted(maps.Keys(attrs)) {
		if i > 0 {
			w.b = append(w.b, ",\n"...)
		}
		a := attrs[k]
		w.b = append(w.b, "    "...)
		w.b = appendJSONString(w.b, k)
		w.b = append(w.b, ` : {"Type":`...)
		w.b = appendJSONString(w.b, *a.DataType)
		w.b = append(w.b, `,"Value":`...)
		w.b = appendJSONString(w.b, attributeText(a))
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, "\n  }"...)
}

func (w *envelopeWriter) String() string { return string(append(w.b, "\n}"...)) }

// attributeText is an attribute's Value in the envelope: the string, or the binary value
// in base64 (SPEC-sns.md §7.1).
func attributeText(a types.MessageAttributeValue) string {
	if strings.HasPrefix(*a.DataType, "Binary") {
		return base64.StdEncoding.EncodeToString(a.BinaryValue)
	}
	if a.StringValue == nil {
		return ""
	}
	return *a.StringValue
}

// notificationSignedText is what a notification's signature covers (SPEC-sns.md §7.1).
func notificationSignedText(message, messageID, subject, ts, topicArn string, hasSubject bool) string {
	var b strings.Builder
	b.Grow(len(message) + 256)
	b.WriteString("Message\n" + message + "\nMessageId\n" + messageID + "\n")
	if hasSubject {
		b.WriteString("Subject\n" + subject + "\n")
	}
	b.WriteString("Timestamp\n" + ts + "\nTopicArn\n" + topicArn + "\nType\nNotification\n")
	return b.String()
}

// SignedText returns the text a notification's or confirmation's Signature covers, given
// the envelope's fields: the string to verify with SigningCertificate (SHA1withRSA for
// SignatureVersion 1, SHA256withRSA for 2), as SNS documents it and consumers rebuild it.
func SignedText(envelope map[string]string) string {
	keys := []string{"Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"}
	if t := envelope["Type"]; t == "SubscriptionConfirmation" || t == "UnsubscribeConfirmation" {
		keys = []string{"Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"}
	}
	var b strings.Builder
	for _, k := range keys {
		v, ok := envelope[k]
		if !ok {
			continue
		}
		b.WriteString(k + "\n" + v + "\n")
	}
	return b.String()
}

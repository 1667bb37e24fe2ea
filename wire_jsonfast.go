package sqsfake

import "github.com/aws/aws-sdk-go-v2/service/sqs"

// A fast path for the commonest request of the JSON protocol: a SendMessage that names only
// its queue and a body. encoding/json reads such a request with eight allocations, through
// reflection; this reads it with three, and gives the same input.

// decodePlainSendMessage reads a SendMessage request body that is one JSON object of the
// members QueueUrl and MessageBody alone, each at most once, whose strings are printable
// ASCII without escapes. It reports false, having changed nothing, for any other body, which
// encoding/json then reads; for the bodies it takes, encoding/json would set the same two
// members to the same strings.
func decodePlainSendMessage(body []byte, in *sqs.SendMessageInput) bool {
	var url, msg []byte
	var haveURL, haveMsg bool
	i := skipJSONSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	for i++; ; i++ {
		key, next, ok := plainJSONString(body, skipJSONSpace(body, i))
		if !ok {
			return false
		}
		if i = skipJSONSpace(body, next); i >= len(body) || body[i] != ':' {
			return false
		}
		val, next, ok := plainJSONString(body, skipJSONSpace(body, i+1))
		if !ok {
			return false
		}
		switch string(key) {
		case "QueueUrl":
			if haveURL {
				return false
			}
			url, haveURL = val, true
		case "MessageBody":
			if haveMsg {
				return false
			}
			msg, haveMsg = val, true
		default:
			return false
		}
		if i = skipJSONSpace(body, next); i >= len(body) {
			return false
		}
		if body[i] == '}' {
			break
		}
		if body[i] != ',' {
			return false
		}
	}
	if skipJSONSpace(body, i+1) != len(body) {
		return false
	}
	s := &struct{ url, body string }{string(url), string(msg)}
	if haveURL {
		in.QueueUrl = &s.url
	}
	if haveMsg {
		in.MessageBody = &s.body
	}
	return true
}

// skipJSONSpace returns the index of the first byte of b from i that is not JSON whitespace.
func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// plainJSONString reads the JSON string at b[i] when it holds printable ASCII alone, no
// escape: its content, and the index after its closing quote.
func plainJSONString(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c < 0x20 || c >= 0x7F || c == '\\':
			return nil, 0, false
		}
	}
	return nil, 0, false
}

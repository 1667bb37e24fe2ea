package sqsfake

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wireAnswer is what a test expects of a raw request to Handler.
type wireAnswer struct {
	status int
	body   string // the whole answer
	query  string // the x-amzn-query-error header
}

func wireInvalidMessageContents(what string) wireAnswer {
	return wireAnswer{400, `{"__type":"com.amazonaws.sqs#InvalidMessageContents","message":"` + what + ", " + allowedCharsTail + `"}`,
		"InvalidMessageContents;Sender"}
}

func wireInvalidParameterValue(message string) wireAnswer {
	return wireAnswer{400, `{"__type":"com.amazonaws.sqs#InvalidParameterValueException","message":"` + message + `"}`,
		"InvalidParameterValue;Sender"}
}

func requireWireAnswer(t *testing.T, want wireAnswer, w *httptest.ResponseRecorder) {
	t.Helper()
	assert.Equal(t, want.status, w.Code)
	assert.Equal(t, want.body, w.Body.String())
	assert.Equal(t, want.query, w.Header().Get("x-amzn-query-error"))
}

// TestHandlerRefusesMessageTextThatIsNotUnicode pins that a body or attribute string which
// encoding/json would decode to U+FFFD — a lone UTF-16 surrogate escape, or bytes that are not
// UTF-8 — is refused with the error of a character outside SQS's set, and nothing is sent;
// what is valid, a surrogate pair included, is sent as it was written.
func TestHandlerRefusesMessageTextThatIsNotUnicode(t *testing.T) {
	body := func(what string) wireAnswer {
		return wireInvalidMessageContents(what + " was found in the message body")
	}
	attrValue := func(what string) wireAnswer {
		return wireInvalidParameterValue(what + " was found in the message attribute 'a' value, " + allowedCharsTail)
	}
	const lone = "Invalid binary character '#xD800'"
	for _, tc := range []struct {
		name, request string
		want          wireAnswer
	}{
		{"lone high surrogate", `{"QueueUrl":"q","MessageBody":"a\ud800b"}`, body(lone)},
		{"lone high surrogate in upper case", `{"QueueUrl":"q","MessageBody":"a\uD800b"}`, body(lone)},
		{"lone high surrogate at the end", `{"QueueUrl":"q","MessageBody":"a\udbff"}`, body("Invalid binary character '#xDBFF'")},
		{"lone low surrogate", `{"QueueUrl":"q","MessageBody":"a\udc00b"}`, body("Invalid binary character '#xDC00'")},
		{"reversed pair", `{"QueueUrl":"q","MessageBody":"\udc00\ud800"}`, body("Invalid binary character '#xDC00'")},
		{"high surrogate before a letter", `{"QueueUrl":"q","MessageBody":"\ud800\u0041"}`, body(lone)},
		{"high surrogate before a pair", `{"QueueUrl":"q","MessageBody":"\ud800\ud83d\ude00"}`, body(lone)},
		{"pair before a lone surrogate", `{"QueueUrl":"q","MessageBody":"\ud83d\ude00\udfff"}`, body("Invalid binary character '#xDFFF'")},
		{"forbidden character before it", `{"QueueUrl":"q","MessageBody":"\u0007\ud800"}`, body("Invalid binary character '#x7'")},
		{"escaped backspace before it", `{"QueueUrl":"q","MessageBody":"\b\ud800"}`, body("Invalid binary character '#x8'")},
		{"noncharacter before it", `{"QueueUrl":"q","MessageBody":"\uffff\ud800"}`, body("Invalid binary character '#xFFFF'")},
		{"byte that is not UTF-8", "{\"QueueUrl\":\"q\",\"MessageBody\":\"a\xffb\"}", body("Invalid UTF-8 byte '#xFF'")},
		{"encoded surrogate", "{\"QueueUrl\":\"q\",\"MessageBody\":\"\xed\xa0\x80\"}", body("Invalid UTF-8 byte '#xED'")},
		{"truncated sequence", "{\"QueueUrl\":\"q\",\"MessageBody\":\"ok \xe2\x82\"}", body("Invalid UTF-8 byte '#xE2'")},
		{"member name in another case", `{"QueueUrl":"q","messagebody":"a\ud800b"}`, body(lone)},
		{"attribute value", `{"QueueUrl":"q","MessageBody":"x","MessageAttributes":{"a":{"DataType":"String","StringValue":"v\ud800"}}}`, attrValue(lone)},
		{"attribute value not UTF-8", "{\"QueueUrl\":\"q\",\"MessageBody\":\"x\",\"MessageAttributes\":{\"a\":{\"DataType\":\"Number\",\"StringValue\":\"1\xc0\"}}}", attrValue("Invalid UTF-8 byte '#xC0'")},
		{"attribute type", `{"QueueUrl":"q","MessageBody":"x","MessageAttributes":{"a":{"DataType":"String.\udc01","StringValue":"v"}}}`,
			wireInvalidParameterValue("Invalid binary character '#xDC01' was found in the message attribute 'a' type, " + allowedCharsTail)},
		{"attribute name", `{"QueueUrl":"q","MessageBody":"x","MessageAttributes":{"a\ud800":{"DataType":"String","StringValue":"v"}}}`,
			wireInvalidParameterValue("Message (user) attributes name can only contain upper and lower score characters, digits, periods, hyphens and underscores. ")},
		{"system attribute value", `{"QueueUrl":"q","MessageBody":"x","MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String","StringValue":"Root=\ud800"}}}`,
			wireInvalidParameterValue(lone + " was found in the message system attribute 'AWSTraceHeader' value, " + allowedCharsTail)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := New()
			h := f.Handler()
			require.Equal(t, http.StatusOK, post(h, "CreateQueue", `{"QueueName":"q"}`).Code)
			w := post(h, "SendMessage", tc.request)
			requireWireAnswer(t, tc.want, w)
			info, _ := f.Queue("q")
			assert.Empty(t, info.Messages, "nothing is sent")
		})
	}
}

// TestHandlerSendsWhatIsValidText pins the other side: escapes that decode to valid text,
// surrogate pairs included, are sent exactly, and a later duplicate of a member replaces an
// earlier one, as encoding/json decodes it, so only the string that is used is judged.
func TestHandlerSendsWhatIsValidText(t *testing.T) {
	for _, tc := range []struct {
		name, request, want string
	}{
		{"surrogate pair", `{"QueueUrl":"q","MessageBody":"a\ud83d\ude00b"}`, "a\U0001F600b"},
		{"pair in upper case", `{"QueueUrl":"q","MessageBody":"\uD83D\uDE00"}`, "\U0001F600"},
		{"escaped backslash before u", `{"QueueUrl":"q","MessageBody":"\\ud800"}`, `\ud800`},
		{"replacement character itself", `{"QueueUrl":"q","MessageBody":"\ufffd \uFFFD ` + "\uFFFD" + `"}`, "\uFFFD \uFFFD \uFFFD"},
		{"later duplicate replaces a bad body", `{"QueueUrl":"q","MessageBody":"a\ud800","MessageBody":"ok"}`, "ok"},
		{"later duplicate in another case", `{"QueueUrl":"q","MessageBody":"a\ud800","MESSAGEBODY":"ok"}`, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := New()
			h := f.Handler()
			require.Equal(t, http.StatusOK, post(h, "CreateQueue", `{"QueueName":"q"}`).Code)
			w := post(h, "SendMessage", tc.request)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			var out struct{ MD5OfMessageBody string }
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out))
			assert.Equal(t, md5Hex(tc.want), out.MD5OfMessageBody)
			info, _ := f.Queue("q")
			require.Len(t, info.Messages, 1)
			assert.Equal(t, tc.want, info.Messages[0].Body)
		})
	}
}

// TestHandlerFailsBatchEntriesThatAreNotUnicode pins the batch form: each entry whose body
// or attribute is not text fails with the single call's code, and the others are sent.
func TestHandlerFailsBatchEntriesThatAreNotUnicode(t *testing.T) {
	f := New()
	h := f.Handler()
	require.Equal(t, http.StatusOK, post(h, "CreateQueue", `{"QueueName":"q"}`).Code)
	w := post(h, "SendMessageBatch", `{"QueueUrl":"q","Entries":[`+
		`{"Id":"good","MessageBody":"fine \ud83d\ude00"},`+
		`{"Id":"body","MessageBody":"bad \udc00"},`+
		"{\"Id\":\"bytes\",\"MessageBody\":\"bad \xff\"},"+
		`{"Id":"attr","MessageBody":"x","MessageAttributes":{"a":{"DataType":"String","StringValue":"\ud800"}}}]}`)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var out struct {
		Successful []struct{ Id, MD5OfMessageBody string }
		Failed     []struct {
			Id, Code, Message string
			SenderFault       bool
		}
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out))
	require.Len(t, out.Successful, 1)
	assert.Equal(t, "good", out.Successful[0].Id)
	assert.Equal(t, md5Hex("fine \U0001F600"), out.Successful[0].MD5OfMessageBody)
	type failed = struct {
		Id, Code, Message string
		SenderFault       bool
	}
	assert.Equal(t, []failed{
		{"body", "InvalidMessageContents", "Invalid binary character '#xDC00' was found in the message body, " + allowedCharsTail, true},
		{"bytes", "InvalidMessageContents", "Invalid UTF-8 byte '#xFF' was found in the message body, " + allowedCharsTail, true},
		{"attr", "InvalidParameterValue", "Invalid binary character '#xD800' was found in the message attribute 'a' value, " + allowedCharsTail, true},
	}, out.Failed)
	info, _ := f.Queue("q")
	require.Len(t, info.Messages, 1)
	assert.Equal(t, "fine \U0001F600", info.Messages[0].Body)
}

// TestHandlerRefusesQueueAttributesThatAreNotUnicode pins that a queue attribute value that
// is not text is refused rather than stored with U+FFFD in it.
func TestHandlerRefusesQueueAttributesThatAreNotUnicode(t *testing.T) {
	want := func(name string) wireAnswer {
		return wireAnswer{400, `{"__type":"com.amazonaws.sqs#InvalidAttributeValue","message":"Invalid value for the parameter ` + name + `."}`,
			"InvalidAttributeValue;Sender"}
	}
	f := New()
	h := f.Handler()
	w := post(h, "CreateQueue", `{"QueueName":"q","Attributes":{"Policy":"{\"Id\":\"\ud800\"}"}}`)
	requireWireAnswer(t, want("Policy"), w)
	_, lookupErr := f.Queue("q")
	assert.ErrorIs(t, lookupErr, ErrNoQueue, "no queue is created")

	require.Equal(t, http.StatusOK, post(h, "CreateQueue", `{"QueueName":"q"}`).Code)
	w = post(h, "SetQueueAttributes", "{\"QueueUrl\":\"q\",\"Attributes\":{\"KmsMasterKeyId\":\"key\xfe\"}}")
	requireWireAnswer(t, want("KmsMasterKeyId"), w)
	info, _ := f.Queue("q")
	assert.NotContains(t, info.Attributes, "KmsMasterKeyId")
}

// TestHandlerRefusesBodiesThatAreNotJSON pins that a request body which is not one JSON value
// at the byte level is refused with SerializationException, whatever the operation.
func TestHandlerRefusesBodiesThatAreNotJSON(t *testing.T) {
	for _, body := range []string{
		`{"QueueNamePrefix":"q"} x`,         // trailing garbage
		`{"QueueNamePrefix":"q"}{}`,         // two values
		"{\"QueueNamePrefix\":\"q\"}\xff",   // a byte that is not UTF-8 after the value
		"\xff{}",                            // … before it
		"{\xff\"QueueNamePrefix\":\"q\"}",   // … between tokens
		`{"QueueNamePrefix":"q",}`,          // trailing comma
		`{'QueueNamePrefix':'q'}`,           // single quotes
		"\u00a0",                            // a space that is not JSON whitespace
		"\v{}",                              // nor is a vertical tab
		"\f",                                // nor a form feed
		"{\"QueueNamePrefix\":\"a\tb\"}",    // a raw control character in a string
		`{"QueueNamePrefix":"\x41"}`,        // an escape JSON does not have
		`{"QueueNamePrefix":"\u12"}`,        // a short \u escape
		"\xef\xbb\xbf{}",                    // a byte order mark
		`{"QueueNamePrefix":"q"`,            // truncated
		`{"QueueNamePrefix":"q"} /* c */`,   // a comment
		"{\"QueueNamePrefix\":\"q\"}\x00",   // a NUL after the value
		"{\"MaxResults\":1,\"MaxResults\"}", // a member without a value
	} {
		t.Run(strings.ToValidUTF8(body, "?"), func(t *testing.T) {
			w := post(New().Handler(), "ListQueues", body)
			assert.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
			var e struct{ Type, Message string }
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &struct {
				Type    *string `json:"__type"`
				Message *string `json:"message"`
			}{&e.Type, &e.Message}))
			assert.Equal(t, "com.amazon.coral.service#SerializationException", e.Type)
			assert.NotEmpty(t, e.Message)
			assert.Empty(t, w.Header().Get("x-amzn-query-error"))
		})
	}
	for _, body := range []string{"", " ", "\r\n\t ", " {} \n"} {
		w := post(New().Handler(), "ListQueues", body)
		assert.Equal(t, http.StatusOK, w.Code, "%q is an empty input: %s", body, w.Body.String())
	}
}

// TestHandlerRefusesATraceHeaderThatIsNotUTF8 pins that an X-Amzn-Trace-Id header that is not
// UTF-8, which would become a message's AWSTraceHeader, is refused as that attribute's value
// would be, rather than stored with U+FFFD in it; a message with its own AWSTraceHeader does
// not take the header and is sent.
func TestHandlerRefusesATraceHeaderThatIsNotUTF8(t *testing.T) {
	f := New()
	h := f.Handler()
	require.Equal(t, http.StatusOK, post(h, "CreateQueue", `{"QueueName":"q"}`).Code)
	const trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=\xe9"
	w := post(h, "SendMessage", `{"QueueUrl":"q","MessageBody":"x"}`, "X-Amzn-Trace-Id", trace)
	requireWireAnswer(t, wireInvalidParameterValue("Invalid UTF-8 byte '#xE9' was found in the message system attribute 'AWSTraceHeader' value, "+allowedCharsTail), w)

	w = post(h, "SendMessageBatch", `{"QueueUrl":"q","Entries":[{"Id":"a","MessageBody":"x"},`+
		`{"Id":"b","MessageBody":"y","MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String","StringValue":"Root=mine"}}}]}`,
		"X-Amzn-Trace-Id", trace)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var out struct {
		Successful []struct{ Id string }
		Failed     []struct{ Id, Code, Message string }
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out))
	require.Len(t, out.Successful, 1)
	assert.Equal(t, "b", out.Successful[0].Id)
	require.Len(t, out.Failed, 1)
	assert.Equal(t, "a", out.Failed[0].Id)
	assert.Equal(t, "InvalidParameterValue", out.Failed[0].Code)
	info, _ := f.Queue("q")
	require.Len(t, info.Messages, 1)
	assert.Equal(t, "y", info.Messages[0].Body)
}

package sqsfake

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func strAttr(dataType, value string) types.MessageAttributeValue {
	return types.MessageAttributeValue{DataType: aws.String(dataType), StringValue: aws.String(value)}
}

func binAttr(dataType string, value []byte) types.MessageAttributeValue {
	return types.MessageAttributeValue{DataType: aws.String(dataType), BinaryValue: value}
}

const sampleTraceHeader = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"

func traceAttr(value string) map[string]types.MessageSystemAttributeValue {
	return map[string]types.MessageSystemAttributeValue{
		"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String(value)},
	}
}

// requireSQSError asserts err is the engine error with this wire shape, query code, status
// and message.
func requireSQSError(t *testing.T, err *sqsError, shape, code string, status int, message string) {
	t.Helper()
	require.NotNil(t, err, "want %s: %s", code, message)
	assert.Equal(t, shape, err.shape)
	assert.Equal(t, code, err.code)
	assert.Equal(t, status, err.status)
	assert.Equal(t, message, err.message)
}

func requireInvalidParameterValue(t *testing.T, err *sqsError, message string) {
	t.Helper()
	requireSQSError(t, err, "InvalidParameterValueException", "InvalidParameterValue", 400, message)
}

func TestMD5HexIsLowerHexMD5OfTheBody(t *testing.T) {
	assert.Equal(t, "78e731027d8fd50ed642340b7c9a63b3", md5Hex("message")) // SPEC §9.3 [AWS]
	assert.Equal(t, "d41d8cd98f00b204e9800998ecf8427e", md5Hex(""))
	assert.Equal(t, "8d777f385d3dfec8815d20f7496026dc", md5Hex("data"))
}

// Every digest of SPEC.md §9.3: nine recorded against AWS, four from the npm package.
func TestMD5OfMessageAttributesMatchesSpecVectors(t *testing.T) {
	npm := map[string]types.MessageAttributeValue{
		"attribName1":            strAttr("String", "attribValue 1"),
		"customNumberTypeAttrib": strAttr("Number.float", "4563442423554324324264524243.32543234"),
		"binaryAttribute":        binAttr("Binary", []byte("Hello binary world!")),
	}
	one := func(name string) map[string]types.MessageAttributeValue {
		return map[string]types.MessageAttributeValue{name: npm[name]}
	}
	tests := []struct {
		name  string
		attrs map[string]types.MessageAttributeValue
		want  string
	}{
		{"AWS MyAttribute", map[string]types.MessageAttributeValue{"MyAttribute": strAttr("String", "foobar")}, "adb59cd4678ea5a855436b949cd07ab6"},
		{"AWS k", map[string]types.MessageAttributeValue{"k": strAttr("String", "x")}, "a45daa70926828a2f0a1db3418e6feb4"},
		{"AWS timestamp number", map[string]types.MessageAttributeValue{"timestamp": strAttr("Number", "1493147359900")}, "235c5c510d26fb653d073faed50ae77c"},
		{"AWS binary traceparent", map[string]types.MessageAttributeValue{
			"attr1": binAttr("Binary", []byte("traceparent\x1e00-774062d6c37081a5a0b9b5b88e30627c-2d2482211f6489da-01")),
		}, "8cbe4db156db8a94db8b801b7addb984"},
		{"AWS three strings", map[string]types.MessageAttributeValue{
			"Help.Me": strAttr("String", "Me"), "Hello": strAttr("String", "There"), "General": strAttr("String", "Kenobi"),
		}, "4c360f3fdafd970e05fae2f149d997f5"},
		{"AWS General and Hello", map[string]types.MessageAttributeValue{
			"General": strAttr("String", "Kenobi"), "Hello": strAttr("String", "There"),
		}, "fca026605781cb4126a1e9044df24232"},
		{"AWS Hello", map[string]types.MessageAttributeValue{"Hello": strAttr("String", "There")}, "a311262e065454b75da111d535b8dacd"},
		{"AWS Help.Me and Hello", map[string]types.MessageAttributeValue{
			"Help.Me": strAttr("String", "Me"), "Hello": strAttr("String", "There"),
		}, "83fee93c1bcd8b9a5a923ffacdc636c7"},
		{"npm string", one("attribName1"), "19e27d4e946b072f3f58da80d94fd778"},
		{"npm custom number", one("customNumberTypeAttrib"), "9fe1b90bbd9965bdf77bac517c7d2495"},
		{"npm binary", one("binaryAttribute"), "31a92b15d92f8db860eda32aceb656c3"},
		{"npm all three", npm, "c932db14a896c663f83c260297d594ff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, md5OfMessageAttributes(tt.attrs))
			// The stored copy hashes the same, and map order never matters.
			for range 20 {
				assert.Equal(t, tt.want, md5OfMessageAttributes(copyMessageAttributes(tt.attrs)))
			}
		})
	}
}

func TestMD5OfSystemAttributesMatchesAWSTraceHeaderVector(t *testing.T) {
	assert.Equal(t, "5ae4d5d7636402d80f4eb6d213245a88", md5OfSystemAttributes(traceAttr(sampleTraceHeader))) // SPEC §9.1/§9.3 [AWS]
	assert.Equal(t, "5ae4d5d7636402d80f4eb6d213245a88", md5OfSystemAttributes(copySystemAttributes(traceAttr(sampleTraceHeader))))
}

func TestMD5OfAttributesIsEmptyWithoutAttributes(t *testing.T) {
	assert.Equal(t, "", md5OfMessageAttributes(nil))
	assert.Equal(t, "", md5OfMessageAttributes(map[string]types.MessageAttributeValue{}))
	assert.Equal(t, "", md5OfSystemAttributes(nil))
	assert.Equal(t, "", md5OfSystemAttributes(map[string]types.MessageSystemAttributeValue{}))
}

func TestMD5OfLargeAttributesUsesSameDigestAsSmall(t *testing.T) {
	// Over the stack buffer: the pooled path must produce the digest of the same encoding.
	big := strings.Repeat("x", 5000)
	attrs := map[string]types.MessageAttributeValue{"a": strAttr("String", big), "b": binAttr("Binary", []byte(big))}
	want := md5Hex(string(appendAttrDigest(appendAttrDigest(nil, "a", attrs["a"]), "b", attrs["b"])))
	for range 5 {
		assert.Equal(t, want, md5OfMessageAttributes(attrs))
	}
}

func TestCompareUTF16OrdersLikeJavaStrings(t *testing.T) {
	tests := []struct {
		a, b string
		less bool
	}{
		{"General", "Hello", true},
		{"Hello", "Help.Me", true},
		{"Help", "Help.Me", true},
		{"Z", "a", true},
		{"a", "é", true},
		{"\U0001D400", "\uFF21", true}, // supplementary before U+E000–U+FFFF in UTF-16, not in UTF-8
		{"\uD7FF", "\U0001D400", true},
		{"x\U00010000", "x\uE000", true},
		{"\U00010000", "\U00020000", true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.less, compareUTF16(tt.a, tt.b) < 0, "%q < %q", tt.a, tt.b)
		assert.Equal(t, tt.less, compareUTF16(tt.b, tt.a) > 0, "%q > %q", tt.b, tt.a)
	}
	assert.Zero(t, compareUTF16("same", "same"))
}

// invalidUTF8Bodies are bodies whose bytes the SDK's JSON encoder must replace.
var invalidUTF8Bodies = []struct{ in, want string }{
	{"\xff", "\uFFFD"},
	{"a\xffb", "a\uFFFDb"},
	{"\xff\xfe", "\uFFFD\uFFFD"},                     // per byte, not per run
	{"a\xe2\x82b", "a\uFFFD\uFFFDb"},                 // truncated 3-byte sequence: one per byte
	{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},           // encoded surrogate
	{"\xc0\xaf", "\uFFFD\uFFFD"},                     // overlong
	{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"}, // above U+10FFFF
	{"ok \uFFFD \xff é", "ok \uFFFD \uFFFD é"},       // a real U+FFFD stays
	{"\x80\U0001F600\xbf", "\uFFFD\U0001F600\uFFFD"}, // stray continuation bytes
	{"tail\xf0\x9f\x98", "tail\uFFFD\uFFFD\uFFFD"},   // truncated 4-byte at the end
	{"\xe2\x28\xa1", "\uFFFD(\uFFFD"},                // bad continuation
	{strings.Repeat("\xff", 3) + "x", strings.Repeat("\uFFFD", 3) + "x"},
}

func TestSanitizeBodyReplacesEachInvalidByteWithReplacementChar(t *testing.T) {
	for _, tt := range invalidUTF8Bodies {
		got := sanitizeBody(tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
		assert.True(t, utf8.ValidString(got))
		assert.Equal(t, len(tt.want), sanitizedLen(tt.in), "%q", tt.in)
	}
}

func TestSanitizeBodyReturnsValidBodyItself(t *testing.T) {
	for _, s := range []string{"", "hello", "héllo \U0001F600 \uFFFD", strings.Repeat("abc", 1000)} {
		got := sanitizeBody(s)
		assert.Equal(t, s, got)
		assert.Equal(t, unsafe.StringData(s), unsafe.StringData(got), "no copy for %q", s)
		assert.Equal(t, len(s), sanitizedLen(s))
	}
}

// captureTransport records the request body the real SDK would send and fails the call.
type captureTransport struct{ body []byte }

var errCaptured = errors.New("captured")

func (c *captureTransport) Do(r *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	c.body = b
	return nil, errCaptured
}

// sdkWire sends in through a real v1.53.0 client and returns the JSON body it put on the wire.
func sdkWire(t *testing.T, in *sqs.SendMessageInput) []byte {
	t.Helper()
	capture := &captureTransport{}
	client := sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://sqs.test"),
		Credentials:  aws.AnonymousCredentials{},
		HTTPClient:   capture,
		Retryer:      aws.NopRetryer{},
	})
	_, err := client.SendMessage(context.Background(), in)
	require.ErrorIs(t, err, errCaptured)
	require.NotEmpty(t, capture.body)
	require.True(t, utf8.Valid(capture.body), "the SDK sends valid UTF-8: %q", capture.body)
	return capture.body
}

// The real SDK's awsJson serializer, reached through the public client: what it sends for an
// invalid-UTF-8 body (and attribute strings) is exactly what sanitizeBody produces.
func TestSanitizeBodyMatchesSDKWireEncoding(t *testing.T) {
	for _, tt := range invalidUTF8Bodies {
		wire := sdkWire(t, &sqs.SendMessageInput{
			QueueUrl:    aws.String("http://sqs.test/000000000000/q"),
			MessageBody: aws.String(tt.in),
			MessageAttributes: map[string]types.MessageAttributeValue{
				"a": strAttr("String.x"+tt.in, "v"+tt.in),
			},
		})
		var sent struct {
			MessageBody       string
			MessageAttributes map[string]struct{ DataType, StringValue string }
		}
		require.NoError(t, json.Unmarshal(wire, &sent))
		assert.Equal(t, sanitizeBody(tt.in), sent.MessageBody, "%q", tt.in)
		assert.Equal(t, sanitizeBody("v"+tt.in), sent.MessageAttributes["a"].StringValue)
		assert.Equal(t, sanitizeBody("String.x"+tt.in), sent.MessageAttributes["a"].DataType)
		stored := copyMessageAttributes(map[string]types.MessageAttributeValue{"a": strAttr("String.x"+tt.in, "v"+tt.in)})
		assert.Equal(t, sent.MessageAttributes["a"].StringValue, *stored["a"].StringValue)
		assert.Equal(t, sent.MessageAttributes["a"].DataType, *stored["a"].DataType)
	}
}

func TestValidateBodyRequiresNonEmptyBody(t *testing.T) {
	requireSQSError(t, validateBody(""), "MissingRequiredParameterException", "MissingParameter", 400,
		"The request must contain the parameter MessageBody.")
}

func TestValidateBodyRejectsCharactersOutsideAllowedSet(t *testing.T) {
	const tail = ", the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."
	tests := []struct {
		body string
		hex  string
	}{
		{"\x07", "#x7"}, // the quoted AWS sample
		{"\x00", "#x0"},
		{"bell\x07ring", "#x7"},
		{"\x1b[0m", "#x1B"},
		{"\x08", "#x8"},
		{"\x0b", "#xB"},
		{"\x0c", "#xC"},
		{"\x1f", "#x1F"},
		{"\uFFFE", "#xFFFE"},
		{"x\uFFFF", "#xFFFF"}, // the 2026 production capture
		{"a\x01\x02", "#x1"},  // first one reported
		{"\xff\x02", "#x2"},   // invalid UTF-8 is U+FFFD, allowed; then #x2
	}
	for _, tt := range tests {
		requireSQSError(t, validateBody(tt.body), "InvalidMessageContents", "InvalidMessageContents", 400,
			"Invalid binary character '"+tt.hex+"' was found in the message body"+tail)
	}
}

func TestValidateBodyAcceptsAllowedCharacters(t *testing.T) {
	for _, body := range []string{
		"x", "\t\n\r", " ~", "\x7f", "\u0080", "\uD7FF", "\uE000", "\uFFFD", "\U00010000", "\U0010FFFF",
		"héllo wörld \U0001F600", "\xff", "\xef\xbf", "\xef\xbf\xbd", strings.Repeat("a", 1<<20),
	} {
		assert.Nil(t, validateBody(body), "%q", body)
	}
}

func TestValidateMessageAttributesAcceptsValidAttributes(t *testing.T) {
	tests := map[string]map[string]types.MessageAttributeValue{
		"none":        nil,
		"empty map":   {},
		"string":      {"s": strAttr("String", "v")},
		"custom":      {"s": strAttr("String.json", `{"a":1}`), "n": strAttr("Number.java.lang.Long", "12"), "b": binAttr("Binary.gif", []byte{0})},
		"number":      {"timestamp": strAttr("Number", "1493147359900"), "f": strAttr("Number.float", "4563442423554324324264524243.32543234")},
		"binary":      {"b": binAttr("Binary", []byte{0, 1, 2, 0xff})},
		"umlauts":     {"attr.1øßä": strAttr("String", "Valida")}, // accepted by AWS
		"name chars":  {"a-b_c.d9": strAttr("String", "v"), "AWS": strAttr("String", "v"), "awsx.y": strAttr("String", "v")},
		"unicode val": {"u": strAttr("String", "tab\tnl\ncr\r \U0001F600 \uFFFD")},
		"ten":         tenAttributes(),
		"256 name":    {strings.Repeat("L", 256): strAttr("String", "v")},
		"256 type":    {"t": strAttr("String."+strings.Repeat("L", 249), "v")},
		"empty lists": {"s": {DataType: aws.String("String"), StringValue: aws.String("v"), StringListValues: []string{}, BinaryListValues: [][]byte{}}},
		"empty other": {"s": {DataType: aws.String("String"), StringValue: aws.String("v"), BinaryValue: []byte{}}, "b": {DataType: aws.String("Binary"), StringValue: aws.String(""), BinaryValue: []byte{1}}},
	}
	for name, attrs := range tests {
		assert.Nil(t, validateMessageAttributes(attrs, nil), name)
	}
}

func tenAttributes() map[string]types.MessageAttributeValue {
	m := map[string]types.MessageAttributeValue{}
	for _, c := range "abcdefghij" {
		m[string(c)] = strAttr("String", "v")
	}
	return m
}

func TestValidateMessageAttributesReportsEachRuleWithItsText(t *testing.T) {
	eleven := tenAttributes()
	eleven["k"] = strAttr("String", "v")
	one := func(name string, v types.MessageAttributeValue) map[string]types.MessageAttributeValue {
		return map[string]types.MessageAttributeValue{name: v}
	}
	const allowed = ", the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."
	tests := []struct {
		name  string
		attrs map[string]types.MessageAttributeValue
		want  string
	}{
		{"more than ten", eleven, "Number of message attributes [11] exceeds the allowed maximum [10]."},
		{"empty name", one("", strAttr("String", "v")), "The request must contain non-empty message attribute name."},
		{"name too long", one(strings.Repeat("L", 257), strAttr("String", "v")), "Message (user) attribute name must be shorter than 256 bytes."},
		{"name with space", one("trace id", strAttr("String", "v")), "Message (user) attributes name can only contain upper and lower score characters, digits, periods, hyphens and underscores. "},
		{"name with !", one("Invalid-!-attr", strAttr("String", "v")), "Message (user) attributes name can only contain upper and lower score characters, digits, periods, hyphens and underscores. "},
		{"name with §", one("Invalid-§-attr", strAttr("String", "v")), "Message (user) attributes name can only contain upper and lower score characters, digits, periods, hyphens and underscores. "},
		{"name with invalid UTF-8", one("a\xff", strAttr("String", "v")), "Message (user) attributes name can only contain upper and lower score characters, digits, periods, hyphens and underscores. "},
		{"name AWS.", one("aWs.-Invalid-attr", strAttr("String", "v")), "You can't use message attribute names beginning with 'AWS.' or 'Amazon.'. These strings are reserved for internal use."},
		{"name Amazon.", one("AMAZON.x", strAttr("String", "v")), "You can't use message attribute names beginning with 'AWS.' or 'Amazon.'. These strings are reserved for internal use."},
		{"name starts with dot", one(".-Invalid-attr", strAttr("String", "v")), "Message (user) attribute name must not begin with character '.'."},
		{"name ends with dot", one("Invalid.", strAttr("String", "v")), "Message (user) attribute name must not end with character '.'."},
		{"name with ..", one("Invalid..Name", strAttr("String", "v")), "Message (user) attribute name must not have successive '.' characters."},
		{"nil DataType", one("a", types.MessageAttributeValue{StringValue: aws.String("v")}), "The message (user) attribute 'a' must contain a non-empty message attribute type."},
		{"empty DataType", one("a", strAttr("", "v")), "The message (user) attribute 'a' must contain a non-empty message attribute type."},
		{"lower-case type", one("Author", strAttr("string", "v")), "The type of message (user) attribute 'Author' is invalid. You must use only the following supported type prefixes: Binary, Number, String."},
		{"unknown type", one("Attribute_name", strAttr("Invalid", "Valid")), "The type of message (user) attribute 'Attribute_name' is invalid. You must use only the following supported type prefixes: Binary, Number, String."},
		{"type without dot", one("a", strAttr("Stringy", "v")), "The type of message (user) attribute 'a' is invalid. You must use only the following supported type prefixes: Binary, Number, String."},
		{"type with empty label", one("a", strAttr("String.", "v")), "The type of message (user) attribute 'a' is invalid. You must use only the following supported type prefixes: Binary, Number, String."},
		{"type too long", one("Attribute_name", strAttr("Number."+strings.Repeat("L", 256), "1")), "Message (user) attribute type must be shorter than 256 bytes."},
		{"empty string", one("ErrorDetails", strAttr("String", "")), "Message (user) attribute 'ErrorDetails' must contain a non-empty value of type 'String'."},
		{"nil string", one("a", types.MessageAttributeValue{DataType: aws.String("String")}), "Message (user) attribute 'a' must contain a non-empty value of type 'String'."},
		{"empty number", one("a", strAttr("Number", "")), "Message (user) attribute 'a' must contain a non-empty value of type 'Number'."},
		{"empty custom", one("a", strAttr("String.json", "")), "Message (user) attribute 'a' must contain a non-empty value of type 'String.json'."},
		{"empty binary", one("a", binAttr("Binary", []byte{})), "Message (user) attribute 'a' must contain a non-empty value of type 'Binary'."},
		{"nil binary", one("a", binAttr("Binary.gif", nil)), "Message (user) attribute 'a' must contain a non-empty value of type 'Binary.gif'."},
		{"two values", one("a", types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String("v"), BinaryValue: []byte{1}}), "Message (user) attribute 'a' must have a single value."},
		{"string with binary value", one("a", binAttr("String", []byte{1})), "Message (user) attribute 'a' with type 'String' must use field 'String'."},
		{"number with binary value", one("a", binAttr("Number.int", []byte{1})), "Message (user) attribute 'a' with type 'Number' must use field 'String'."},
		{"binary with string value", one("a", strAttr("Binary", "v")), "Message (user) attribute 'a' with type 'Binary' must use field 'Binary'."},
		{"control char", one("attr1", strAttr("String", "Invalid-\x08,\x0b")), "Invalid binary character '#x8' was found in the message attribute 'attr1' value" + allowed},
		{"U+FFFF in number", one("n", strAttr("Number", "1\uFFFF")), "Invalid binary character '#xFFFF' was found in the message attribute 'n' value" + allowed},
		{"not a number", one("Age", strAttr("Number", "Hello")), "Can't cast the value of message (user) attribute 'Age' to a number."},
		{"custom not a number", one("Age", strAttr("Number.int", "1.2.3")), "Can't cast the value of message (user) attribute 'Age' to a number."},
		{"39 digits", one("n", strAttr("Number", strings.Repeat("9", 39))), "Number value of message (user) attribute 'n' must have at most 38 significant digits."},
		{"too large", one("n", strAttr("Number", "1e126")), "Number value of message (user) attribute 'n' must be between 10^-128 and 10^+126 in magnitude."},
		{"too small", one("n", strAttr("Number", "-1e-129")), "Number value of message (user) attribute 'n' must be between 10^-128 and 10^+126 in magnitude."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireInvalidParameterValue(t, validateMessageAttributes(tt.attrs, nil), tt.want)
		})
	}
}

func TestValidateMessageAttributesRejectsListValuesAsUnsupported(t *testing.T) {
	for _, v := range []types.MessageAttributeValue{
		{DataType: aws.String("String"), StringValue: aws.String("v"), StringListValues: []string{"a"}},
		{DataType: aws.String("Binary"), BinaryListValues: [][]byte{{1}}},
	} {
		err := validateMessageAttributes(map[string]types.MessageAttributeValue{"l": v}, nil)
		requireSQSError(t, err, "UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", 400,
			"Message attribute list values are not supported.")
	}
}

func TestValidateMessageAttributesReportsFirstInvalidNameInSortedOrder(t *testing.T) {
	attrs := map[string]types.MessageAttributeValue{
		"b": strAttr("String", ""),
		"a": strAttr("Bogus", "v"),
		"c": strAttr("Number", "x"),
		"A": strAttr("String", "ok"),
	}
	for range 50 {
		requireInvalidParameterValue(t, validateMessageAttributes(attrs, nil),
			"The type of message (user) attribute 'a' is invalid. You must use only the following supported type prefixes: Binary, Number, String.")
	}
}

func TestCheckNumberFollowsDecimalSyntaxPrecisionAndRange(t *testing.T) {
	tests := []struct {
		in   string
		want numberProblem
	}{
		{"0", numberOK}, {"-1", numberOK}, {"+1.5", numberOK}, {".5", numberOK}, {"5.", numberOK},
		{"1e5", numberOK}, {"1E-5", numberOK}, {"2.5e+3", numberOK}, {"1493147359900", numberOK},
		{"4563442423554324324264524243.32543234", numberOK}, {strings.Repeat("9", 38), numberOK},
		{"0." + strings.Repeat("0", 50) + strings.Repeat("7", 38), numberOK},
		{"1" + strings.Repeat("0", 100), numberOK}, // trailing zeros are not significant
		{"9.99e125", numberOK}, {"1e-128", numberOK}, {"0e99999999999", numberOK}, {"000.000", numberOK},
		{"-0", numberOK},
		{"", numberSyntax}, {"abc", numberSyntax}, {"1.2.3", numberSyntax}, {"1e", numberSyntax},
		{"1e+", numberSyntax}, {"e5", numberSyntax}, {" 1", numberSyntax}, {"1 ", numberSyntax},
		{"0x10", numberSyntax}, {"NaN", numberSyntax}, {"Infinity", numberSyntax}, {"-", numberSyntax},
		{".", numberSyntax}, {"1_000", numberSyntax}, {"1,5", numberSyntax}, {"--1", numberSyntax},
		{"1e5.5", numberSyntax}, {"١", numberSyntax},
		{strings.Repeat("9", 39), numberPrecision}, {"1." + strings.Repeat("0", 37) + "1", numberPrecision},
		{"1e126", numberRange}, {"10e125", numberRange}, {"1e-129", numberRange},
		{"0.1e-128", numberRange}, {"1e99999999999", numberRange}, {"1e-99999999999", numberRange},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, checkNumber(tt.in), "%q", tt.in)
	}
}

func TestValidateSystemAttributesAcceptsOnlyAWSTraceHeaderString(t *testing.T) {
	assert.Nil(t, validateSystemAttributes(nil, nil))
	assert.Nil(t, validateSystemAttributes(map[string]types.MessageSystemAttributeValue{}, nil))
	assert.Nil(t, validateSystemAttributes(traceAttr(sampleTraceHeader), nil))

	sys := func(name string, v types.MessageSystemAttributeValue) map[string]types.MessageSystemAttributeValue {
		return map[string]types.MessageSystemAttributeValue{name: v}
	}
	tests := []struct {
		name  string
		attrs map[string]types.MessageSystemAttributeValue
		want  string
	}{
		{"other name", sys("SenderId", types.MessageSystemAttributeValue{DataType: aws.String("String"), StringValue: aws.String("x")}), "Message system attribute name 'SenderId' is invalid."},
		{"wrong case", sys("awstraceheader", types.MessageSystemAttributeValue{DataType: aws.String("String"), StringValue: aws.String("x")}), "Message system attribute name 'awstraceheader' is invalid."},
		{"binary type", sys("AWSTraceHeader", types.MessageSystemAttributeValue{DataType: aws.String("Binary"), BinaryValue: []byte("x")}), "The type of message system attribute 'AWSTraceHeader' is invalid. You must use only the following supported type: String."},
		{"custom type", sys("AWSTraceHeader", types.MessageSystemAttributeValue{DataType: aws.String("String.x"), StringValue: aws.String("x")}), "The type of message system attribute 'AWSTraceHeader' is invalid. You must use only the following supported type: String."},
		{"no type", sys("AWSTraceHeader", types.MessageSystemAttributeValue{StringValue: aws.String("x")}), "The type of message system attribute 'AWSTraceHeader' is invalid. You must use only the following supported type: String."},
		{"empty value", traceAttr(""), "Message system attribute 'AWSTraceHeader' must contain a non-empty value of type 'String'."},
		{"two values", sys("AWSTraceHeader", types.MessageSystemAttributeValue{DataType: aws.String("String"), StringValue: aws.String("x"), BinaryValue: []byte{1}}), "Message system attribute 'AWSTraceHeader' must have a single value."},
		{"binary value", sys("AWSTraceHeader", types.MessageSystemAttributeValue{DataType: aws.String("String"), BinaryValue: []byte{1}}), "Message system attribute 'AWSTraceHeader' with type 'String' must use field 'String'."},
		{"bad char", traceAttr("Root=\x01"), "Invalid binary character '#x1' was found in the message system attribute 'AWSTraceHeader' value, the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireInvalidParameterValue(t, validateSystemAttributes(tt.attrs, nil), tt.want)
		})
	}
	err := validateSystemAttributes(sys("AWSTraceHeader", types.MessageSystemAttributeValue{
		DataType: aws.String("String"), StringValue: aws.String("x"), StringListValues: []string{"y"},
	}), nil)
	requireSQSError(t, err, "UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", 400,
		"Message attribute list values are not supported.")
}

func TestMessageSizeCountsBodyAndAttributeNameTypeAndValue(t *testing.T) {
	assert.Equal(t, 5, messageSize("hello", nil))
	assert.Equal(t, 2, messageSize("é", nil))
	assert.Equal(t, 4, messageSize("\U0001F600", nil))
	attrs := map[string]types.MessageAttributeValue{
		"name":  strAttr("String", "value"),         // 4 + 6 + 5
		"n":     strAttr("Number.int", "42"),        // 1 + 10 + 2
		"bin":   binAttr("Binary", []byte{0, 1, 2}), // 3 + 6 + 3
		"ünï":   strAttr("String", "ß"),             // 5 + 6 + 2
		"empty": {DataType: aws.String("String")},   // 5 + 6
	}
	assert.Equal(t, 3+15+13+12+13+11, messageSize("abc", attrs))
	// Measured as SQS receives it: each invalid byte is a 3-byte U+FFFD on the wire.
	assert.Equal(t, 3+1, messageSize("\xffa", nil))
	assert.Equal(t, 1+6+3, messageSize("", map[string]types.MessageAttributeValue{"a": strAttr("String", "\xff")}))
	// The limit is on the stored message: a copy measures the same.
	assert.Equal(t, messageSize("x\xff", attrs), messageSize(sanitizeBody("x\xff"), copyMessageAttributes(attrs)))
}

func TestCopyMessageAttributesIsIndependentOfTheInput(t *testing.T) {
	in := map[string]types.MessageAttributeValue{
		"s": strAttr("String", "before"),
		"b": binAttr("Binary", []byte{1, 2, 3}),
		"c": binAttr("Binary.x", []byte{4, 5}),
		"l": {DataType: aws.String("String"), StringValue: aws.String("v"), StringListValues: []string{"x"}, BinaryListValues: [][]byte{{9}, nil}},
		"e": {DataType: aws.String("Binary"), BinaryValue: []byte{}},
	}
	digest := md5OfMessageAttributes(in)
	out := copyMessageAttributes(in)
	require.Equal(t, in, out)

	// Mutating everything the caller still holds changes nothing in the copy.
	*in["s"].StringValue = "after"
	*in["s"].DataType = "Number"
	in["b"].BinaryValue[0] = 99
	in["l"].StringListValues[0] = "changed"
	in["l"].BinaryListValues[0][0] = 0
	delete(in, "c")
	in["new"] = strAttr("String", "n")

	assert.Len(t, out, 5)
	assert.Equal(t, "before", *out["s"].StringValue)
	assert.Equal(t, "String", *out["s"].DataType)
	assert.Equal(t, []byte{1, 2, 3}, out["b"].BinaryValue)
	assert.Equal(t, []byte{4, 5}, out["c"].BinaryValue)
	assert.Equal(t, []string{"x"}, out["l"].StringListValues)
	assert.Equal(t, [][]byte{{9}, nil}, out["l"].BinaryListValues)
	assert.NotNil(t, out["e"].BinaryValue, "an empty non-nil value stays non-nil")
	assert.Empty(t, out["e"].BinaryValue)
	assert.Nil(t, out["b"].StringValue)
	assert.Nil(t, out["s"].BinaryValue)
	assert.Equal(t, digest, md5OfMessageAttributes(out))

	// Values share one buffer, but appending to one cannot overwrite another.
	_ = append(out["b"].BinaryValue, 7, 7, 7)
	assert.Equal(t, []byte{4, 5}, out["c"].BinaryValue)

	// And a copy handed out can be mutated without touching another copy.
	again := copyMessageAttributes(out)
	*again["s"].StringValue = "mutated"
	again["c"].BinaryValue[0] = 0
	assert.Equal(t, "before", *out["s"].StringValue)
	assert.Equal(t, []byte{4, 5}, out["c"].BinaryValue)
}

func TestCopySystemAttributesIsIndependentOfTheInput(t *testing.T) {
	in := traceAttr(sampleTraceHeader)
	out := copySystemAttributes(in)
	require.Equal(t, in, out)
	*in["AWSTraceHeader"].StringValue = "changed"
	in["other"] = types.MessageSystemAttributeValue{}
	assert.Equal(t, sampleTraceHeader, *out["AWSTraceHeader"].StringValue)
	assert.Len(t, out, 1)
}

func TestCopyAttributesIsNilWhenEmpty(t *testing.T) {
	assert.Nil(t, copyMessageAttributes(nil))
	assert.Nil(t, copyMessageAttributes(map[string]types.MessageAttributeValue{}))
	assert.Nil(t, copySystemAttributes(nil))
	assert.Nil(t, copySystemAttributes(map[string]types.MessageSystemAttributeValue{}))
}

func TestCopyMessageAttributesStoresWhatTheWireCarries(t *testing.T) {
	out := copyMessageAttributes(map[string]types.MessageAttributeValue{
		"a": {DataType: aws.String("String.\xff"), StringValue: aws.String("x\xfe"), StringListValues: []string{"\xff"}},
	})
	assert.Equal(t, "String.\uFFFD", *out["a"].DataType)
	assert.Equal(t, "x\uFFFD", *out["a"].StringValue)
	assert.Equal(t, []string{"\uFFFD"}, out["a"].StringListValues)
}

// The ReceiveMessage filter, on the attributes of LocalStack's AWS-validated
// test_receive_message_message_attribute_names_filters; the digests are AWS's answers.
func TestSelectMessageAttributesFiltersByNameAllAndPrefix(t *testing.T) {
	attrs := map[string]types.MessageAttributeValue{
		"Help.Me": strAttr("String", "Me"),
		"Hello":   strAttr("String", "There"),
		"General": strAttr("String", "Kenobi"),
	}
	tests := []struct {
		name   string
		names  []string
		want   []string
		digest string
	}{
		{"nil list", nil, nil, ""},
		{"empty list", []string{}, nil, ""},
		{"All", []string{"All"}, []string{"General", "Hello", "Help.Me"}, "4c360f3fdafd970e05fae2f149d997f5"},
		{"asterisk", []string{"*"}, []string{"General", "Hello", "Help.Me"}, "4c360f3fdafd970e05fae2f149d997f5"},
		{"dot asterisk", []string{".*"}, []string{"General", "Hello", "Help.Me"}, "4c360f3fdafd970e05fae2f149d997f5"},
		{"All among others", []string{"Foo", "All"}, []string{"General", "Hello", "Help.Me"}, "4c360f3fdafd970e05fae2f149d997f5"},
		{"only non-existing", []string{"Foo", "Help"}, nil, ""},
		{"only existing", []string{"Hello", "General"}, []string{"General", "Hello"}, "fca026605781cb4126a1e9044df24232"},
		{"existing and non-existing", []string{"Foo", "Hello"}, []string{"Hello"}, "a311262e065454b75da111d535b8dacd"},
		{"prefix without the dot", []string{"Hel.*"}, []string{"Hello", "Help.Me"}, "83fee93c1bcd8b9a5a923ffacdc636c7"},
		{"prefix ending in a dot", []string{"Help..*"}, []string{"Help.Me"}, ""},
		{"prefix of a whole name", []string{"Hello.*"}, []string{"Hello"}, "a311262e065454b75da111d535b8dacd"},
		{"prefix and name overlap", []string{"Hel.*", "Hello"}, []string{"Hello", "Help.Me"}, "83fee93c1bcd8b9a5a923ffacdc636c7"},
		{"case-sensitive name", []string{"hello"}, nil, ""},
		{"case-sensitive prefix", []string{"hel.*"}, nil, ""},
		{"illegal name AWS.", []string{"AWS."}, nil, ""},
		{"illegal name ..foo", []string{"..foo"}, nil, ""},
		{"asterisk is not a glob", []string{"Hel*"}, nil, ""},
		{"All is case-sensitive", []string{"all"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := selectMessageAttributes(attrs, tt.names)
			if tt.want == nil {
				assert.Nil(t, got)
				return
			}
			keys := make([]string, 0, len(got))
			for k := range got {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			assert.Equal(t, tt.want, keys)
			for _, k := range keys {
				assert.Equal(t, attrs[k], got[k])
			}
			if tt.digest != "" {
				assert.Equal(t, tt.digest, md5OfMessageAttributes(got))
			}
		})
	}
	assert.Nil(t, selectMessageAttributes(nil, []string{"All"}))
}

func TestSelectMessageAttributesReturnsCopies(t *testing.T) {
	stored := map[string]types.MessageAttributeValue{
		"a": strAttr("String", "v"),
		"b": binAttr("Binary", []byte{1}),
		"c": strAttr("String", "w"),
	}
	for _, names := range [][]string{{"All"}, {"a", "b"}} {
		got := selectMessageAttributes(stored, names)
		*got["a"].StringValue = "changed"
		*got["a"].DataType = "Number"
		got["b"].BinaryValue[0] = 9
		got["x"] = strAttr("String", "new")
		assert.Equal(t, "v", *stored["a"].StringValue)
		assert.Equal(t, "String", *stored["a"].DataType)
		assert.Equal(t, []byte{1}, stored["b"].BinaryValue)
		assert.Len(t, stored, 3)
	}
}

// raceEnabled reports whether the test binary was built with -race, under which sync.Pool
// drops items at random (so pooled paths allocate now and then).
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

func TestHotPathAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	body := `{"order":1234,"items":["a","b"],"note":"héllo wörld 😀"}`
	ascii := strings.Repeat("hello world ", 100)
	attrs := map[string]types.MessageAttributeValue{
		"trace":     strAttr("String", "abc"),
		"timestamp": strAttr("Number", "1493147359900"),
		"blob":      binAttr("Binary", []byte{1, 2, 3}),
	}
	sys := traceAttr(sampleTraceHeader)
	allocs := func(f func()) float64 { return testing.AllocsPerRun(200, f) }

	assert.Equal(t, 1.0, allocs(func() { _ = md5Hex(body) }), "md5Hex allocates only its result")
	assert.Equal(t, 1.0, allocs(func() { _ = md5Hex(ascii) }), "md5Hex of a larger body")
	assert.Zero(t, allocs(func() { _ = validateBody(body) }), "validateBody, UTF-8")
	assert.Zero(t, allocs(func() { _ = validateBody(ascii) }), "validateBody, ASCII")
	assert.Zero(t, allocs(func() { _ = sanitizeBody(body) }), "sanitizeBody of a valid body")
	assert.Zero(t, allocs(func() { _ = messageSize(body, attrs) }), "messageSize")
	assert.Zero(t, allocs(func() { _ = validateMessageAttributes(attrs, nil) }), "validateMessageAttributes")
	assert.Zero(t, allocs(func() { _ = validateSystemAttributes(sys, nil) }), "validateSystemAttributes")
	assert.Equal(t, 1.0, allocs(func() { _ = md5OfMessageAttributes(attrs) }), "md5OfMessageAttributes")
	assert.Equal(t, 1.0, allocs(func() { _ = md5OfSystemAttributes(sys) }), "md5OfSystemAttributes")
	assert.Zero(t, allocs(func() { _ = selectMessageAttributes(attrs, []string{"nothing"}) }), "select, none")
	// Map, one array for the pointers' strings, one buffer for the bytes.
	assert.LessOrEqual(t, allocs(func() { _ = copyMessageAttributes(attrs) }), 4.0, "copyMessageAttributes")
	assert.LessOrEqual(t, allocs(func() { _ = selectMessageAttributes(attrs, []string{"All"}) }), 4.0, "select All")
	assert.LessOrEqual(t, allocs(func() { _ = copySystemAttributes(sys) }), 4.0, "copySystemAttributes")

	if !raceEnabled() {
		big := map[string]types.MessageAttributeValue{"big": strAttr("String", strings.Repeat("x", 4000))}
		assert.Equal(t, 1.0, allocs(func() { _ = md5OfMessageAttributes(big) }), "md5OfMessageAttributes, pooled buffer")
	}
}

func BenchmarkMessageAttributesSendReceive(b *testing.B) {
	body := `{"order":1234,"items":["a","b"]}`
	attrs := map[string]types.MessageAttributeValue{
		"trace":     strAttr("String", "abc"),
		"timestamp": strAttr("Number", "1493147359900"),
	}
	b.ReportAllocs()
	for b.Loop() {
		body := sanitizeBody(body)
		if validateBody(body) != nil || validateMessageAttributes(attrs, nil) != nil {
			b.Fatal("invalid")
		}
		_ = messageSize(body, attrs)
		stored := copyMessageAttributes(attrs)
		_ = md5Hex(body)
		_ = md5OfMessageAttributes(stored)
		out := selectMessageAttributes(stored, []string{"All"})
		_ = md5OfMessageAttributes(out)
	}
}

// The digest a queue remembers of the body sent last is the body's own, whatever came before.
func TestBodyDigestIsEachBodysMD5(t *testing.T) {
	var d bodyDigest
	long := strings.Repeat("z", maxRememberedBody+1)
	for _, body := range []string{"", "a", "a", "b", "a", long, long, "b", ""} {
		if got, want := d.of(body), md5.Sum([]byte(body)); got != want {
			t.Errorf("of(%.8q) = %x, want %x", body, got, want)
		}
	}
	if d.body == long {
		t.Error("a body longer than maxRememberedBody is held")
	}
}

// firstInvalidChar's word-at-a-time scan finds what a scan byte by byte finds, wherever the
// character sits.
func TestFirstInvalidCharFindsWhatAByteScanFinds(t *testing.T) {
	byteScan := func(s string) (rune, bool) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return rune(c), true
			}
			if c == 0xEF && i+2 < len(s) && s[i+1] == 0xBF && (s[i+2] == 0xBE || s[i+2] == 0xBF) {
				return 0xFFC0 | rune(s[i+2]&0x3F), true
			}
		}
		return 0, false
	}
	check := func(s string) {
		gotR, gotBad := firstInvalidChar(s)
		wantR, wantBad := byteScan(s)
		if gotR != wantR || gotBad != wantBad {
			t.Fatalf("firstInvalidChar(%q) = %#x, %v; want %#x, %v", s, gotR, gotBad, wantR, wantBad)
		}
	}
	for n := 0; n <= 19; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("a~ ", n)[:n])
				b[at] = byte(c)
				check(string(b))
				if at+2 < n {
					b[at], b[at+1], b[at+2] = 0xEF, 0xBF, byte(0xBE+c%2)
					check(string(b))
					b[at+1] = 0x80 // a character of the same lead byte that is allowed
					check(string(b))
				}
			}
		}
	}
	check("é" + strings.Repeat("x", 16) + "\x01")
	check(strings.Repeat("\u00e9", 20) + "\uFFFF")
}

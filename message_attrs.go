package sqsfake

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// This file holds what SQS does to a message's body and attributes on the way in and out:
// the body as the wire delivers it (sanitizeBody), its character rules (validateBody), the
// rules for message and system attributes (SPEC.md §9.2), the size checked against
// MaximumMessageSize (§5.8), the MD5 digests (§9.3), deep copies, and the ReceiveMessage
// attribute filter (§5.10). Everything here is pure. On valid input the checks and sizes
// allocate nothing, the digests only the string they return, and a copy its map plus one
// array for its strings and one buffer for its bytes.
//
// Where AWS's error text is not known (SPEC.md marks it UNVERIFIED) the text below is chosen
// and its source is named next to it: [AWS] recorded against real SQS, [3P] real SQS output
// quoted by a third party, [EMU] the wording of an emulator that appears to have transcribed
// AWS (LocalStack, local-aws-sqs, Eucalyptus), [OURS] written here in AWS's style.

const (
	maxMessageAttributeCount = 10  // attributes per message [DOC][AWS]
	maxMessageAttributeName  = 256 // characters in a name [DOC][AWS: 257 rejected]
	maxMessageAttributeType  = 256 // characters in a DataType [DOC][AWS: 263 rejected]
	maxNumberDigits          = 38  // significant digits of a Number value [DOC]
	minNumberExponent        = -128
	maxNumberExponent        = 126 // |value| must lie in [1e-128, 1e126) unless zero [DOC]

	awsTraceHeader = "AWSTraceHeader"

	// allowedCharacters is the tail every "Invalid binary character" message ends with.
	allowedCharacters = "the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."
)

// md5Sum returns the MD5 of s's bytes, hashed in place: md5.Sum only reads its argument,
// so the string's bytes are never copied.
func md5Sum(s string) [md5.Size]byte {
	return md5.Sum(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// bodyDigest remembers the MD5 of the body last hashed, for a test that sends the same body
// again and again; bodies longer than maxRememberedBody are neither hashed twice nor held.
type bodyDigest struct {
	body string
	sum  [md5.Size]byte
}

const maxRememberedBody = 4096

// of returns md5Sum(body).
func (d *bodyDigest) of(body string) [md5.Size]byte {
	if len(body) > maxRememberedBody {
		return md5Sum(body)
	}
	if body != d.body || d.body == "" {
		d.body, d.sum = body, md5Sum(body)
	}
	return d.sum
}

// md5Hex returns the lower-case hex MD5 of s (MD5OfMessageBody / MD5OfBody). It allocates
// only the returned string.
func md5Hex(s string) string {
	sum := md5Sum(s)
	var dst [2 * md5.Size]byte
	hex.Encode(dst[:], sum[:])
	return string(dst[:])
}

// attrValue is either attribute value type. They have identical fields, so each converts to
// the other and one generic implementation serves both.
type attrValue interface {
	types.MessageAttributeValue | types.MessageSystemAttributeValue
}

// attrMD5StackSize is the digest input that md5OfAttrs builds on the stack; larger inputs
// (big binary or string values) borrow a buffer from attrMD5Buffers instead.
const attrMD5StackSize = 1024

var attrMD5Buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4*attrMD5StackSize); return &b }}

// md5OfMessageAttributes returns SQS's MD5OfMessageAttributes digest, or "" when attrs is
// empty (AWS omits the field then rather than sending the MD5 of nothing). SPEC.md §9.3 gives
// the algorithm; attrs should be the attributes as stored (after copyMessageAttributes) or, on
// receive, the selected subset. It allocates only the returned string.
func md5OfMessageAttributes(attrs map[string]types.MessageAttributeValue) string {
	return md5OfAttrs(attrs)
}

// md5OfSystemAttributes is md5OfMessageAttributes for MessageSystemAttributes, the value SQS
// answers as MD5OfMessageSystemAttributes ("" when attrs is empty).
func md5OfSystemAttributes(attrs map[string]types.MessageSystemAttributeValue) string {
	return md5OfAttrs(attrs)
}

func md5OfAttrs[V attrValue](attrs map[string]V) string {
	if len(attrs) == 0 {
		return ""
	}
	var keyBuf [maxMessageAttributeCount + 6]string
	keys := keyBuf[:0]
	size := 0
	for name, v := range attrs {
		keys = append(keys, name)
		size += attrDigestSize(name, types.MessageAttributeValue(v))
	}
	slices.SortFunc(keys, compareUTF16)
	var sum [md5.Size]byte
	if size <= attrMD5StackSize {
		var stack [attrMD5StackSize]byte
		sum = md5.Sum(appendAttrsDigest(stack[:0], keys, attrs))
	} else {
		bp := attrMD5Buffers.Get().(*[]byte)
		buf := appendAttrsDigest((*bp)[:0], keys, attrs)
		sum = md5.Sum(buf)
		if cap(buf) <= 2<<20 { // pool at most about one maximum-size message per buffer
			*bp = buf[:0]
			attrMD5Buffers.Put(bp)
		}
	}
	var dst [2 * md5.Size]byte
	hex.Encode(dst[:], sum[:])
	return string(dst[:])
}

func appendAttrsDigest[V attrValue](buf []byte, keys []string, attrs map[string]V) []byte {
	for _, name := range keys {
		buf = appendAttrDigest(buf, name, types.MessageAttributeValue(attrs[name]))
	}
	return buf
}

func attrDigestSize(name string, v types.MessageAttributeValue) int {
	n := 4 + len(name) + 4 + len(deref(v.DataType)) + 1 + 4
	if v.StringValue != nil {
		return n + len(*v.StringValue)
	}
	return n + len(v.BinaryValue)
}

// appendAttrDigest appends one attribute in the digest's encoding: length-prefixed name and
// DataType, the transport byte (1 string, 2 binary), the length-prefixed value. The transport
// is chosen by which value is present, as AWS's SDKs do when they verify the digest; for a
// validated attribute that is the one its DataType calls for.
func appendAttrDigest(buf []byte, name string, v types.MessageAttributeValue) []byte {
	buf = appendLenPrefixed(buf, name)
	buf = appendLenPrefixed(buf, deref(v.DataType))
	if v.StringValue != nil || v.BinaryValue == nil {
		buf = append(buf, 1)
		return appendLenPrefixed(buf, deref(v.StringValue))
	}
	buf = append(buf, 2)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(v.BinaryValue)))
	return append(buf, v.BinaryValue...)
}

func appendLenPrefixed(buf []byte, s string) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
	return append(buf, s...)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// compareUTF16 orders attribute names for the digest. UNVERIFIED choice: SQS runs on the JVM
// and AWS's Java and .NET SDKs verify MD5OfMessageAttributes over names sorted by UTF-16 code
// units (TreeMap / ordinal), so that order is used. It equals byte order for every pair of
// names except where one has a supplementary character (U+10000…) and the other a character
// of U+E000–U+FFFF at the first difference: UTF-16 puts the supplementary one first.
func compareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	x, y := a[i], b[i]
	// The common prefix ends on the same rune boundary in both, so x and y are both lead
	// bytes or both continuation bytes of runes with the same lead byte.
	if x >= 0xF0 && (y == 0xEE || y == 0xEF) {
		return -1
	}
	if y >= 0xF0 && (x == 0xEE || x == 0xEF) {
		return 1
	}
	return int(x) - int(y)
}

// sanitizeBody returns a string as SQS receives it from the SDK: the JSON encoder of
// smithy-go v1.28.9 (transport/http/protocol/internal/json appendEscapedString, like
// encoding/json's escapeStringBytes) writes U+FFFD for every byte at which
// utf8.DecodeRuneInString reports RuneError with width 1 — one U+FFFD per invalid byte, not
// per run (unlike strings.ToValidUTF8). A valid s is returned as it is, with no allocation.
// The same applies to every string member the SDK sends (attribute StringValue, DataType).
func sanitizeBody(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(sanitizedLen(s))
	start := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString("\uFFFD")
			i++
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	return b.String()
}

// sanitizedLen is len(sanitizeBody(s)) without building it: each invalid byte becomes the
// three bytes of U+FFFD.
func sanitizedLen(s string) int {
	if utf8.ValidString(s) {
		return len(s)
	}
	n := len(s)
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n += 2
		}
		i += size
	}
	return n
}

// firstInvalidChar returns the first character of s outside SQS's allowed set
// #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF, and whether there is one.
// A valid Go string cannot hold surrogates, so the only characters ≥ 0x80 that fail are
// U+FFFE and U+FFFF. Invalid UTF-8 bytes count as the U+FFFD the SDK sends for them
// (sanitizeBody), which is allowed. It does not allocate.
func firstInvalidChar(s string) (rune, bool) {
	i := 0
	// Eight bytes at a time while all of them are printable ASCII (0x20–0x7F), which holds
	// none of the characters looked for: a byte below 0x20 sets its top bit in w-0x20…, one
	// from 0x80 has it set in w.
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if (w|(w-0x2020202020202020))&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c < 0x20 {
			if c != '\t' && c != '\n' && c != '\r' {
				return rune(c), true
			}
			continue
		}
		// U+FFFE is EF BF BE and U+FFFF is EF BF BF. 0xEF is never a continuation byte, so
		// wherever it occurs a decoder starts a rune there, as this byte scan assumes.
		if c == 0xEF && i+2 < len(s) && s[i+1] == 0xBF && (s[i+2] == 0xBE || s[i+2] == 0xBF) {
			return 0xFFC0 | rune(s[i+2]&0x3F), true
		}
	}
	return 0, false
}

// hexChar formats a character as SQS's messages do: '#x' and upper-case hex without leading
// zeros ('#x7', '#x1B', '#xFFFF' [3P: "Invalid binary character '#xFFFF' …"]).
func hexChar(r rune) string {
	return "#x" + strings.ToUpper(strconv.FormatInt(int64(r), 16))
}

// A textFault is the first thing in a string that is not a character SQS takes: a character
// outside the allowed set, a lone UTF-16 surrogate included, or a byte that is not UTF-8. A
// Go string cannot hold a surrogate, and what the SDK sends of it is always UTF-8
// (sanitizeBody), so only a call noted as nonUnicode (callnotes.go) has the last two; the
// zero value is no fault.
type textFault struct {
	r    rune // the character, or the byte
	kind textFaultKind
}

type textFaultKind uint8

const (
	noFault textFaultKind = iota
	charFault
	byteFault
)

func (f textFault) found() bool { return f.kind != noFault }

// describe names the fault as SQS's messages begin: "Invalid binary character '#xD800'"
// [AWS's wording; a lone surrogate is a character outside the set], or, for a byte that is
// not UTF-8, "Invalid UTF-8 byte '#xFF'" [OURS: SQS's answer to such a byte is unknown; the
// fake refuses it rather than store the U+FFFD encoding/json would make of it].
func (f textFault) describe() string {
	if f.kind == byteFault {
		return "Invalid UTF-8 byte '" + hexChar(f.r) + "'"
	}
	return "Invalid binary character '" + hexChar(f.r) + "'"
}

// attrFaults are the faults of one message attribute's DataType and StringValue.
type attrFaults struct{ dataType, value textFault }

// validateBody checks a message body: empty → MissingParameter [AWS]; a character outside
// the allowed set → InvalidMessageContents with AWS's text [3P, 2019 and 2026 captures]. It
// does not allocate for a valid body.
func validateBody(body string) *sqsError {
	if body == "" {
		return errMissingParameter("MessageBody")
	}
	if r, bad := firstInvalidChar(body); bad {
		return errBodyFault(textFault{r, charFault})
	}
	return nil
}

// valueFault returns the fault of an attribute value: the one the call noted, else the first
// character of s outside the allowed set.
func valueFault(s string, noted textFault) textFault {
	if noted.found() {
		return noted
	}
	if r, bad := firstInvalidChar(s); bad {
		return textFault{r, charFault}
	}
	return textFault{}
}

// errBodyFault is InvalidMessageContents for a body with fault f.
func errBodyFault(f textFault) *sqsError {
	return newError("InvalidMessageContents", f.describe()+" was found in the message body, "+allowedCharacters)
}

// attrKind is the base type of a DataType.
type attrKind uint8

const (
	attrInvalid attrKind = iota
	attrString
	attrNumber
	attrBinary
)

// attrKindOf returns the base type of dataType. Accepted: "String", "Number", "Binary", each
// optionally followed by "." and a non-empty custom label ("Number.float",
// "Binary.gif", "Number.java.lang.Long") [DOC]; case-sensitive ("string" is rejected [3P]).
// UNVERIFIED choice: "String." (empty label) and "Stringfoo" (no dot) are rejected.
func attrKindOf(dataType string) attrKind {
	var kind attrKind
	switch {
	case strings.HasPrefix(dataType, "String"):
		kind = attrString
	case strings.HasPrefix(dataType, "Number"):
		kind = attrNumber
	case strings.HasPrefix(dataType, "Binary"):
		kind = attrBinary
	default:
		return attrInvalid
	}
	rest := dataType[6:]
	if rest == "" || (len(rest) > 1 && rest[0] == '.') {
		return kind
	}
	return attrInvalid
}

func (k attrKind) String() string {
	switch k {
	case attrString:
		return "String"
	case attrNumber:
		return "Number"
	case attrBinary:
		return "Binary"
	}
	return ""
}

// validateMessageAttributes applies SPEC.md §9.2 to a SendMessage's MessageAttributes and
// returns the first violation, checking attributes in sorted name order so which one is
// reported does not depend on map order. Every violation is InvalidParameterValue [AWS for
// the code] except list values (UnsupportedOperation, see below). Order of the checks, and
// the texts:
//
//   - more than 10 attributes: "Number of message attributes [<n>] exceeds the allowed
//     maximum [10]." [3P: AWS SDK for Java stack trace; EMU ×5]
//
// then for each attribute, by name:
//
//   - empty name: "The request must contain non-empty message attribute name." [3P, 2015]
//   - name longer than 256 characters: "Message (user) attribute name must be shorter than
//     256 bytes." [EMU; AWS says "shorter than" where equal is allowed, cf. §5.8's size text]
//   - a name character other than a Unicode letter or digit, '_', '-' or '.':
//     "Message (user) attributes name can only contain upper and lower score characters,
//     digits, periods, hyphens and underscores. " [EMU, trailing space included]. The set is
//     UNVERIFIED: AWS accepted "attr.1øßä" and rejected '!', '"', '§', '(' and '?' [AWS], which
//     letters-and-digits (Java's isLetterOrDigit) explains.
//   - name starting with "AWS." or "Amazon." in any case: "You can't use message attribute
//     names beginning with 'AWS.' or 'Amazon.'. These strings are reserved for internal use."
//     [EMU]
//   - name starting / ending with '.': "Message (user) attribute name must not begin with
//     character '.'." / "… must not end with character '.'." [EMU]
//   - ".." in the name: "Message (user) attribute name must not have successive '.'
//     characters." [EMU; enforcement UNVERIFIED, the developer guide forbids it]
//   - empty DataType (the SDK's validator catches only a nil one): "The message (user)
//     attribute '<name>' must contain a non-empty message attribute type." [EMU]
//   - DataType not String/Number/Binary[.label]: "The type of message (user) attribute
//     '<name>' is invalid. You must use only the following supported type prefixes: Binary,
//     Number, String." [3P, 2023]
//   - DataType longer than 256 characters: "Message (user) attribute type must be shorter
//     than 256 bytes." [EMU]
//   - a non-empty StringListValues or BinaryListValues ("Not implemented" [DOC]):
//     UnsupportedOperation "Message attribute list values are not supported." [EMU:
//     Eucalyptus; UNVERIFIED]
//   - no non-empty value: "Message (user) attribute '<name>' must contain a non-empty value
//     of type '<DataType>'." [AWS for DataType "String"; the DataType as sent is quoted, as
//     [EMU] does, UNVERIFIED for custom types]
//   - both StringValue and BinaryValue non-empty: "Message (user) attribute '<name>' must
//     have a single value." [EMU]
//   - only the other value: "Message (user) attribute '<name>' with type '<String|Number|
//     Binary>' must use field '<String|Binary>'." [EMU]
//   - a String/Number value with a character the body may not hold: "Invalid binary
//     character '#x<hex>' was found in the message attribute '<name>' value, the set of
//     allowed characters is …." [code AWS; text EMU: Eucalyptus, in the body message's style]
//   - Number value that is not a decimal number (optional sign, digits with an optional
//     point, optional exponent): "Can't cast the value of message (user) attribute '<name>'
//     to a number." [3P capture quoted by one reimplementation; EMU]
//   - more than 38 significant digits: "Number value of message (user) attribute '<name>'
//     must have at most 38 significant digits." [OURS, UNVERIFIED]
//   - non-zero magnitude outside [10^-128, 10^126): "Number value of message (user)
//     attribute '<name>' must be between 10^-128 and 10^+126 in magnitude." [OURS, UNVERIFIED]
//
// Names, DataTypes and values are judged as the SDK would send them (invalid UTF-8 counts as
// U+FFFD). It does not allocate for valid attributes.
//
// faults holds the attributes whose DataType or StringValue the call noted as not Unicode
// text (nonUnicode); nil when it noted none.
func validateMessageAttributes(attrs map[string]types.MessageAttributeValue, faults map[string]attrFaults) *sqsError {
	if len(attrs) == 0 {
		return nil
	}
	if len(attrs) > maxMessageAttributeCount {
		return errInvalidParameterValue("Number of message attributes [" + strconv.Itoa(len(attrs)) +
			"] exceeds the allowed maximum [" + strconv.Itoa(maxMessageAttributeCount) + "].")
	}
	var keyBuf [maxMessageAttributeCount]string
	keys := keyBuf[:0]
	for name := range attrs {
		keys = append(keys, name)
	}
	slices.Sort(keys)
	for _, name := range keys {
		if err := validateMessageAttribute(name, attrs[name], faults[name]); err != nil {
			return err
		}
	}
	return nil
}

func validateMessageAttribute(name string, v types.MessageAttributeValue, faults attrFaults) *sqsError {
	if err := validateAttributeName(name); err != nil {
		return err
	}
	dataType := deref(v.DataType)
	if dataType == "" {
		return errInvalidParameterValue("The message (user) attribute '" + name + "' must contain a non-empty message attribute type.")
	}
	kind := attrKindOf(dataType)
	if kind == attrInvalid {
		return errInvalidParameterValue("The type of message (user) attribute '" + name +
			"' is invalid. You must use only the following supported type prefixes: Binary, Number, String.")
	}
	if utf8.RuneCountInString(dataType) > maxMessageAttributeType {
		return errInvalidParameterValue("Message (user) attribute type must be shorter than 256 bytes.")
	}
	if faults.dataType.found() {
		return errInvalidParameterValue(faults.dataType.describe() + " was found in the message attribute '" + name + "' type, " + allowedCharacters)
	}
	if len(v.StringListValues) > 0 || len(v.BinaryListValues) > 0 {
		return newError("UnsupportedOperation", "Message attribute list values are not supported.")
	}
	if err := checkSingleValue("Message (user) attribute '", name, kind, dataType, v.StringValue, v.BinaryValue); err != nil {
		return err
	}
	if kind == attrBinary {
		return nil
	}
	value := *v.StringValue
	if fault := valueFault(value, faults.value); fault.found() {
		return errInvalidParameterValue(fault.describe() + " was found in the message attribute '" + name + "' value, " + allowedCharacters)
	}
	if kind == attrNumber {
		switch checkNumber(value) {
		case numberSyntax:
			return errInvalidParameterValue("Can't cast the value of message (user) attribute '" + name + "' to a number.")
		case numberPrecision:
			return errInvalidParameterValue("Number value of message (user) attribute '" + name +
				"' must have at most 38 significant digits.")
		case numberRange:
			return errInvalidParameterValue("Number value of message (user) attribute '" + name +
				"' must be between 10^-128 and 10^+126 in magnitude.")
		}
	}
	return nil
}

// checkSingleValue requires exactly one non-empty value, the one kind calls for. The
// message names the attribute as what + name + "'", what being "Message (user) attribute '"
// or "Message system attribute '" (built only on failure, so a valid attribute costs nothing).
func checkSingleValue(what, name string, kind attrKind, dataType string, stringValue *string, binaryValue []byte) *sqsError {
	hasString := stringValue != nil && *stringValue != ""
	hasBinary := len(binaryValue) > 0
	switch {
	case !hasString && !hasBinary:
		return errInvalidParameterValue(what + name + "' must contain a non-empty value of type '" + dataType + "'.")
	case hasString && hasBinary:
		return errInvalidParameterValue(what + name + "' must have a single value.")
	case kind == attrBinary && !hasBinary:
		return errInvalidParameterValue(what + name + "' with type 'Binary' must use field 'Binary'.")
	case kind != attrBinary && !hasString:
		return errInvalidParameterValue(what + name + "' with type '" + kind.String() + "' must use field 'String'.")
	}
	return nil
}

// validateAttributeName applies the name rules listed on validateMessageAttributes.
func validateAttributeName(name string) *sqsError {
	if name == "" {
		return errInvalidParameterValue("The request must contain non-empty message attribute name.")
	}
	count := 0
	valid := true
	for _, r := range name { // invalid UTF-8 arrives as U+FFFD, which is not a letter
		count++
		if r != '_' && r != '-' && r != '.' && !isLetterOrDigit(r) {
			valid = false
		}
	}
	if count > maxMessageAttributeName {
		return errInvalidParameterValue("Message (user) attribute name must be shorter than 256 bytes.")
	}
	if !valid {
		return errInvalidParameterValue("Message (user) attributes name can only contain upper and lower score characters, digits, periods, hyphens and underscores. ")
	}
	if hasPrefixFold(name, "AWS.") || hasPrefixFold(name, "Amazon.") {
		return errInvalidParameterValue("You can't use message attribute names beginning with 'AWS.' or 'Amazon.'. These strings are reserved for internal use.")
	}
	if name[0] == '.' {
		return errInvalidParameterValue("Message (user) attribute name must not begin with character '.'.")
	}
	if name[len(name)-1] == '.' {
		return errInvalidParameterValue("Message (user) attribute name must not end with character '.'.")
	}
	if strings.Contains(name, "..") {
		return errInvalidParameterValue("Message (user) attribute name must not have successive '.' characters.")
	}
	return nil
}

func isLetterOrDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

type numberProblem uint8

const (
	numberOK numberProblem = iota
	numberSyntax
	numberPrecision
	numberRange
)

// checkNumber judges a Number attribute's value. Syntax (UNVERIFIED, Java BigDecimal's): an
// optional sign, digits with at most one '.', at least one digit, then optionally 'e' or 'E',
// an optional sign and digits; no spaces, no "NaN"/"Infinity", no hex. Precision: at most 38
// significant digits, leading and trailing zeros not counting ("Leading and trailing zeroes
// are trimmed" [DOC]). Range: zero, or a magnitude in [10^-128, 10^126) [DOC: "between 10^-128
// and 10^+126"]. The value itself is stored as sent [AWS].
func checkNumber(s string) numberProblem {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intStart := i
	for i < len(s) && isDecimalDigit(s[i]) {
		i++
	}
	intEnd := i
	fracStart, fracEnd := i, i
	if i < len(s) && s[i] == '.' {
		i++
		fracStart = i
		for i < len(s) && isDecimalDigit(s[i]) {
			i++
		}
		fracEnd = i
	}
	if intEnd == intStart && fracEnd == fracStart {
		return numberSyntax
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		neg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			neg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return numberSyntax
		}
		for ; i < len(s); i++ {
			if !isDecimalDigit(s[i]) {
				return numberSyntax
			}
			if exp < 1_000_000 { // far past the range; stop growing
				exp = exp*10 + int(s[i]-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	if i != len(s) {
		return numberSyntax
	}
	// Digits as one sequence d[0..n) = integer part then fraction part; the value is
	// 0.d × 10^(intLen+exp) before normalising.
	intLen := intEnd - intStart
	n := intLen + fracEnd - fracStart
	digit := func(k int) byte {
		if k < intLen {
			return s[intStart+k]
		}
		return s[fracStart+k-intLen]
	}
	first, last := -1, -1
	for k := range n {
		if digit(k) != '0' {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	if first < 0 {
		return numberOK // zero
	}
	if last-first+1 > maxNumberDigits {
		return numberPrecision
	}
	// The leading significant digit is worth 10^e.
	e := intLen - 1 - first + exp
	if e < minNumberExponent || e >= maxNumberExponent {
		return numberRange
	}
	return numberOK
}

func isDecimalDigit(c byte) bool { return '0' <= c && c <= '9' }

// validateSystemAttributes checks SendMessage's MessageSystemAttributes: only AWSTraceHeader,
// DataType "String", one non-empty StringValue with the body's character rules [DOC]. Every
// violation is InvalidParameterValue; texts follow the message-attribute ones (checked in
// sorted name order, first violation wins):
//
//   - another name: "Message system attribute name '<name>' is invalid." [EMU]
//   - DataType other than "String": "The type of message system attribute 'AWSTraceHeader'
//     is invalid. You must use only the following supported type: String." [OURS,
//     UNVERIFIED; empty DataType included]
//   - list values: UnsupportedOperation "Message attribute list values are not supported."
//     (as for message attributes)
//   - value: "Message system attribute 'AWSTraceHeader' must contain a non-empty value of
//     type 'String'." / "… must have a single value." / "… with type 'String' must use field
//     'String'." [OURS, after the message-attribute texts]
//   - a character outside the allowed set: "Invalid binary character '#x<hex>' was found in
//     the message system attribute 'AWSTraceHeader' value, the set of allowed characters
//     is …." [OURS]
//
// faults is as for validateMessageAttributes.
func validateSystemAttributes(attrs map[string]types.MessageSystemAttributeValue, faults map[string]attrFaults) *sqsError {
	if len(attrs) == 0 {
		return nil
	}
	var keyBuf [4]string
	keys := keyBuf[:0]
	for name := range attrs {
		keys = append(keys, name)
	}
	slices.Sort(keys)
	for _, name := range keys {
		v := attrs[name]
		if name != awsTraceHeader {
			return errInvalidParameterValue("Message system attribute name '" + name + "' is invalid.")
		}
		dataType := deref(v.DataType)
		if dataType != "String" {
			return errInvalidParameterValue("The type of message system attribute '" + name +
				"' is invalid. You must use only the following supported type: String.")
		}
		if len(v.StringListValues) > 0 || len(v.BinaryListValues) > 0 {
			return newError("UnsupportedOperation", "Message attribute list values are not supported.")
		}
		if err := checkSingleValue("Message system attribute '", name, attrString, dataType, v.StringValue, v.BinaryValue); err != nil {
			return err
		}
		if fault := valueFault(*v.StringValue, faults[name].value); fault.found() {
			return errInvalidParameterValue(fault.describe() + " was found in the message system attribute '" + name + "' value, " + allowedCharacters)
		}
	}
	return nil
}

// messageSize is the size SQS checks against MaximumMessageSize (§5.8): the body's UTF-8
// bytes plus, per attribute, the bytes of its name, its DataType and its value (StringValue
// or BinaryValue). System attributes do not count [AWS]. Strings are measured as SQS receives
// them, i.e. after the SDK's U+FFFD replacement (sanitizedLen), so raw input and stored copies
// give the same size.
func messageSize(body string, attrs map[string]types.MessageAttributeValue) int {
	n := sanitizedLen(body)
	for name, v := range attrs {
		n += sanitizedLen(name) + sanitizedLen(deref(v.DataType)) + len(v.BinaryValue)
		if v.StringValue != nil {
			n += sanitizedLen(*v.StringValue)
		}
	}
	return n
}

// copyMessageAttributes returns attrs as the fake stores or hands them out: a deep copy
// (fresh DataType/StringValue pointers, fresh BinaryValue bytes and list slices) so neither the
// caller's memory is retained nor the fake's exposed; nil when attrs is empty. String members
// pass through sanitizeBody, so they hold what SQS would have received over the wire (a no-op
// and no allocation for valid UTF-8). Names are kept as they are: a name with invalid UTF-8
// fails validateMessageAttributes. The pointers of all attributes share one backing array and
// the byte values one buffer (each sub-slice capacity-limited), to keep the allocation count
// flat: the map, the string array, the byte buffer.
func copyMessageAttributes(attrs map[string]types.MessageAttributeValue) map[string]types.MessageAttributeValue {
	return copyAttrs(attrs, nil, true)
}

// copySystemAttributes is copyMessageAttributes for MessageSystemAttributes.
func copySystemAttributes(attrs map[string]types.MessageSystemAttributeValue) map[string]types.MessageSystemAttributeValue {
	return copyAttrs(attrs, nil, true)
}

// selectMessageAttributes returns deep copies of the attributes a ReceiveMessage with
// MessageAttributeNames=names returns (§5.10), or nil when none is selected:
//
//   - "All", ".*" and "*" select every attribute [AWS];
//   - "<prefix>.*" selects the names that start with <prefix>, the dot NOT being part of the
//     prefix: AWS answered "Hel.*" with both "Hello" and "Help.Me" (its MD5OfMessageAttributes
//     83fee93c… is the digest of exactly those two, SPEC §9.3) [AWS];
//   - any other entry is an exact, case-sensitive name; names that do not exist, and invalid
//     ones ("AWS.", "..foo"), select nothing and are not errors [AWS].
//
// An empty names selects nothing. The caller computes MD5OfMessageAttributes over the result.
func selectMessageAttributes(attrs map[string]types.MessageAttributeValue, names []string) map[string]types.MessageAttributeValue {
	if len(attrs) == 0 || len(names) == 0 {
		return nil
	}
	for _, n := range names {
		if n == "All" || n == ".*" || n == "*" {
			return copyAttrs(attrs, nil, true)
		}
	}
	return copyAttrs(attrs, names, false)
}

// copyAttrs deep-copies the attributes of attrs that names selects (all of them when all).
func copyAttrs[V attrValue](attrs map[string]V, names []string, all bool) map[string]V {
	if len(attrs) == 0 {
		return nil
	}
	count, strCount, binBytes := 0, 0, 0
	for name, v := range attrs {
		if !all && !attributeSelected(name, names) {
			continue
		}
		mv := types.MessageAttributeValue(v)
		count++
		if mv.DataType != nil {
			strCount++
		}
		if mv.StringValue != nil {
			strCount++
		}
		binBytes += len(mv.BinaryValue)
	}
	if count == 0 {
		return nil
	}
	// Both arenas are sized up front and never regrow. make with capacity 0 still gives a
	// non-nil slice, so an empty non-nil BinaryValue stays non-nil.
	strs := stringArena(make([]string, 0, strCount))
	bin := byteArena(make([]byte, 0, binBytes))
	out := make(map[string]V, count)
	for name, v := range attrs {
		if !all && !attributeSelected(name, names) {
			continue
		}
		mv := types.MessageAttributeValue(v)
		out[name] = V(types.MessageAttributeValue{
			DataType:         strs.copy(mv.DataType),
			StringValue:      strs.copy(mv.StringValue),
			BinaryValue:      bin.copy(mv.BinaryValue),
			StringListValues: copyStringList(mv.StringListValues),
			BinaryListValues: copyBinaryList(mv.BinaryListValues),
		})
	}
	return out
}

// stringArena hands out *string pointers into one array; byteArena hands out sub-slices of
// one buffer, each with its capacity cut to its length so an append cannot reach the next.
type stringArena []string

func (a *stringArena) copy(p *string) *string {
	if p == nil {
		return nil
	}
	*a = append(*a, sanitizeBody(*p))
	return &(*a)[len(*a)-1]
}

type byteArena []byte

func (a *byteArena) copy(b []byte) []byte {
	if b == nil {
		return nil
	}
	start := len(*a)
	*a = append(*a, b...)
	return (*a)[start:len(*a):len(*a)]
}

func copyStringList(l []string) []string {
	if l == nil {
		return nil
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = sanitizeBody(s)
	}
	return out
}

func copyBinaryList(l [][]byte) [][]byte {
	if l == nil {
		return nil
	}
	out := make([][]byte, len(l))
	for i, b := range l {
		if b != nil {
			out[i] = append(make([]byte, 0, len(b)), b...)
		}
	}
	return out
}

func attributeSelected(name string, names []string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
		if prefix, ok := strings.CutSuffix(n, ".*"); ok && strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

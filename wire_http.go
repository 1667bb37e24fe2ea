package sqsfake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/sqsfake/sqsfake/internal/reqlog"
)

// Door 3: SQS's wire protocol, awsJson1_0 (SPEC.md §2, ECOSYSTEM.md §2.5). A request is a POST
// whose X-Amz-Target header names the operation and whose body is the JSON of its input; the
// handler decodes the body into the SDK's input type, calls the door-1 method, and writes
// the output as the SDK's own serializer does (jsonWriter), or the error in AWS's shape. The
// query protocol (wire_query.go, wire_xml.go) goes through the same path.

// What Handler serves, and the server (cmd/sqsfake) with it.
const (
	// MaxRequestBytes caps the body of a request to Handler; a larger body is refused with
	// HTTP 413 before it is decoded. Every valid request stays below it, even a batch whose
	// 1 MiB of message text a client's JSON encoder escapes into six bytes a character.
	MaxRequestBytes = 8 << 20
	// ConsolePath is the path of the console's page (console.go, docs/console.md): open
	// http://127.0.0.1:9324/_sqsfake/console/ in a browser. Its JSON endpoints are under
	// ConsolePath + "api/".
	ConsolePath = "/_sqsfake/console/"
)

const (
	jsonContentType = "application/x-amz-json-1.0"
	targetPrefix    = "AmazonSQS."
	sqsNamespace    = "com.amazonaws.sqs#"
	coralNamespace  = "com.amazon.coral.service#"
)

// wireOp is an operation as door 3 calls it.
type wireOp struct {
	operation
	// input is the schema of the operation's input, whose traits name its query parameters.
	input *smithy.Schema
	// decode, if set, reads a request body into the input in place of decodeInput, and
	// returns the call's context with what it notes for the engine: members given explicitly
	// that Go's zero values cannot express (wire_zeros.go), strings that are not Unicode text
	// (wire_text.go).
	decode func(ctx context.Context, body []byte, r *http.Request, in any) (context.Context, error)
}

// wireOps holds the 23 operations of the operation table as door 3 calls them.
var wireOps = func() map[string]wireOp {
	decoders := map[string]func(ctx context.Context, body []byte, r *http.Request, in any) (context.Context, error){
		"ChangeMessageVisibility": decodeAs(decodeChangeMessageVisibility),
		"CreateQueue":             decodeAs(decodeQueueAttributes[sqs.CreateQueueInput]),
		"ReceiveMessage":          decodeAs(decodeReceiveMessage),
		"SendMessage":             decodeAs(decodeSendMessage),
		"SendMessageBatch":        decodeAs(decodeSendMessageBatch),
		"SetQueueAttributes":      decodeAs(decodeQueueAttributes[sqs.SetQueueAttributesInput]),
	}
	m := make(map[string]wireOp, len(operations))
	for name, op := range operations {
		m[name] = wireOp{operation: op, input: schemaOf(op.newInput().(smithy.Serializable)), decode: decoders[name]}
	}
	return m
}()

// decodeAs adapts the decoder of one input type to wireOp.decode.
func decodeAs[In any](decode func(ctx context.Context, body []byte, r *http.Request, in *In) (context.Context, error)) func(context.Context, []byte, *http.Request, any) (context.Context, error) {
	return func(ctx context.Context, body []byte, r *http.Request, in any) (context.Context, error) {
		return decode(ctx, body, r, in.(*In))
	}
}

// run decodes a request body into the operation's input and calls the door-1 method.
func (op wireOp) run(f *Fake, ctx context.Context, body []byte, r *http.Request) (smithy.Serializable, error) {
	in := op.newInput()
	if op.decode == nil {
		if err := decodeInput(body, in); err != nil {
			return nil, err
		}
	} else {
		var err error
		if ctx, err = op.decode(ctx, body, r, in); err != nil {
			return nil, err
		}
	}
	return op.call(f, ctx, in)
}

// Handler returns an http.Handler that speaks SQS's wire protocols over the fake: serve it
// (httptest.NewServer(f.Handler()), or go run ./cmd/sqsfake) and point any SDK, the AWS CLI or
// boto3 at it with an endpoint URL. It speaks awsJson1_0, the protocol of current SDKs, and
// the older query protocol (Action=…&Version=2012-11-05 in a form-encoded POST or a GET,
// answered in XML; see wire_query.go), chosen per request, over the same queues.
//
// An awsJson1_0 request is routed on its X-Amz-Target header (AmazonSQS.<Operation>); the
// path is ignored, so the SDKs that post to the queue URL work too. Outputs are written as the SDK's own serializer writes them, with
// map entries in key order so that the same calls give the same bytes, and errors as SQS
// writes them: the status of the error, a body {"__type":"com.amazonaws.sqs#<Shape>",
// "message":…} and the x-amzn-query-error header that gives callers the legacy error code.
// Every answer carries an x-amzn-RequestId, the one door 1 gives the call.
//
// Requests the fake cannot decode are answered with AWS's protocol errors: an unknown
// target with UnknownOperationException, a body that is not one JSON value of the
// operation's input with SerializationException (HTTP 400), a body over MaxRequestBytes with
// HTTP 413 (at once, without reading the body, when its declared Content-Length is over).
// Nothing is decoded to other text than was sent: a lone UTF-16 surrogate escape
// ("\ud800") or bytes that are not UTF-8, which Go's JSON decoder would turn into U+FFFD,
// are refused in a message body (InvalidMessageContents; a failed entry of a batch), in a
// message or system attribute (InvalidParameterValue) and in a queue attribute
// (InvalidAttributeValue); elsewhere the U+FFFD fails the member's own checks. An
// X-Amzn-Trace-Id request header becomes the AWSTraceHeader system attribute of the
// messages a SendMessage or SendMessageBatch sends without one, as with AWS X-Ray.
//
// The handler writes no Date header of its own: the fake's clock is virtual, and a Date
// from it would skew the signing clock of AWS SDKs. A Go test that needs no socket can use
// HTTPClient instead.
//
// Under ConsolePath it serves the console, a page that shows the queues and each message's
// timeline on the clock (docs/console.md).
func (f *Fake) Handler() http.Handler { return &wireHandler{f: f} }

// wireHandler is the Handler of a fake.
type wireHandler struct{ f *Fake }

// A wireError is an error as door 3 writes it.
type wireError struct {
	status  int
	typ     string // the __type member: a shape ID
	query   string // the x-amzn-query-error header, "" for none
	message string
}

func (h *wireHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, ConsolePath) || r.URL.Path+"/" == ConsolePath { // no SQS request's path
		h.f.serveConsole(w, r)
		return
	}
	// Read the whole body before answering anything: a client still writing its request when
	// the answer arrives may close the connection under the response (aws-sdk-go-v2#2737).
	body, werr := readBody(w, r)
	defer releaseBody(body)
	var who *identity // nil until the request is authenticated
	if werr == nil {
		who, werr = h.authenticate(r, body.Bytes())
	}
	if isQueryRequest(r) {
		h.serveQuery(w, r, body.Bytes(), who, werr)
		return
	}
	if werr == nil {
		werr = checkRequest(r)
	}
	target := r.Header.Get("X-Amz-Target")
	name := strings.TrimPrefix(target, targetPrefix)
	var op wireOp
	if werr == nil {
		op, werr = lookupTarget(target)
	}
	if werr != nil {
		writeError(w, h.refuse(name, werr, who), werr)
		return
	}

	out, requestID, err := h.call(op, name, r, body.Bytes(), who)
	if err != nil {
		writeError(w, requestID, wireErrorOf(err))
		return
	}
	payload := newJSONWriter()
	defer payload.release()
	out.Serialize(payload)
	writeAnswer(w, http.StatusOK, jsonContentTypeHeader, requestID, payload.Bytes())
}

// writeAnswer writes an answer of either protocol: its status, Content-Type, request id and
// body.
func writeAnswer(w http.ResponseWriter, status int, contentType []string, requestID string, body []byte) {
	header := w.Header()
	header["Content-Type"] = contentType
	header.Set("X-Amzn-Requestid", requestID)
	header.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// call runs op, named name, on the JSON body of a request and returns its output, or its
// error, and the request id of the call. A body that does not decode into the operation's
// input reaches no operation: the refusal is recorded as such. An injected lost response
// drops the connection here: the operation happened; the answer never comes.
func (h *wireHandler) call(op wireOp, name string, r *http.Request, body []byte, who *identity) (smithy.Serializable, string, error) {
	cn := &callNumber{door: DoorHTTP, as: who}
	out, err := op.run(h.f, context.WithValue(r.Context(), callNumberKey{}, cn), body, r)
	if err != nil && r.Context().Err() != nil && !serverClosing(r.Context()) {
		// The request's context ended: its client went away (a long poll it canceled); the
		// answer reaches no one. The server's log says so rather than log a 503.
		reqlog.SetGone(r.Context(), "it canceled the request while the call ran or waited")
	}
	if err != nil && cn.n == 0 {
		return nil, h.refuse(name, wireErrorOf(err), who), err
	}
	if err != nil && isLostResponse(err) {
		panic(http.ErrAbortHandler)
	}
	return out, uuidFor(h.f.seed, streamRequestID, cn.n), err
}

// authenticate returns who a request acts as. In signed mode (WithCredentials) that is the
// access key its signature names, once the SDK's signer has checked the signature; a
// request that fails the check is refused before anything else is read. Otherwise it is
// whoever the request's credential scope says, unchecked: its region, and its access key
// id as the account when that is 12 digits. A request over plain HTTP has
// aws:SecureTransport false.
func (h *wireHandler) authenticate(r *http.Request, body []byte) (*identity, *wireError) {
	var id wireIdentity
	if h.f.creds != nil {
		var serr *sigError
		// Clients sign with their wall clock, whatever the fake's clock reads.
		if id, serr = verifySignature(r, body, h.f.creds, time.Now()); serr != nil {
			return nil, serr.wire()
		}
	} else {
		id = identify(r)
	}
	who := h.f.trimOwn(identity{account: id.account, region: id.region, principal: id.principal, orgID: id.orgID, insecure: !overTLS(r)})
	switch who {
	case identity{insecure: true}:
		return &wireOwnOverHTTP, nil // the common request allocates nothing
	case identity{}:
		return &wireOwn, nil
	}
	p := new(identity) // allocated here only: &who would move who to the heap on every request
	*p = who
	return p, nil
}

// wireOwn and wireOwnOverHTTP are the identities of the fake's own root user in its own region, over
// TLS and over plain HTTP: the identities of most wire requests, shared. Read only.
var wireOwn, wireOwnOverHTTP = identity{}, identity{insecure: true}

// jsonContentTypeHeader is the Content-Type of every answer. Its capacity is its length, so
// a handler that appends to it gets a copy.
var jsonContentTypeHeader = []string{jsonContentType}

// bodyBuffers recycles the buffers requests are read into: a decoded input shares no memory
// with its body, so the buffer is free again once the body is decoded.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// errTooLarge answers a request body over MaxRequestBytes.
var errTooLarge = &wireError{status: http.StatusRequestEntityTooLarge, typ: coralNamespace + "RequestEntityTooLargeException",
	message: "Request body must be no longer than " + strconv.Itoa(MaxRequestBytes) + " bytes."}

// readAhead is how much of a declared Content-Length a body's buffer is grown to before any
// of it arrives.
const readAhead = 64 << 10

// readBody reads the whole request body, up to MaxRequestBytes, into a buffer that
// releaseBody recycles. Its memory is in proportion to the bytes received, not to the length
// the request declares.
func readBody(w http.ResponseWriter, r *http.Request) (*bytes.Buffer, *wireError) {
	buf := bodyBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	if r.Body == nil || r.Body == http.NoBody {
		return buf, nil
	}
	if r.ContentLength > MaxRequestBytes {
		// Refused on its declared length, at once: reading on would wait for a body the
		// client may never send. net/http closes the connection after the answer.
		return buf, errTooLarge
	}
	if r.ContentLength > 0 {
		// Grown for the declared length only up to readAhead: the rest grows as bytes arrive,
		// so a client that declares 8 MiB and sends one byte costs no more than it sent
		// (issue 25, attack 5). A larger body costs a few more copies as the buffer doubles.
		buf.Grow(int(min(r.ContentLength, readAhead)) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return buf, errTooLarge
		}
		// The body ended before its length, or the connection broke: the client went away
		// mid-request, and the refusal reaches no one (the server's log says so).
		reqlog.SetGone(r.Context(), "its request body was cut after "+strconv.Itoa(buf.Len())+" bytes ("+err.Error()+")")
		return buf, serializationError("could not read the request body: " + err.Error())
	}
	return buf, nil
}

// releaseBody recycles a body's buffer, unless it grew too big to keep around.
func releaseBody(buf *bytes.Buffer) {
	if buf.Cap() <= 64<<10 {
		bodyBuffers.Put(buf)
	}
}

// checkRequest refuses what is not an awsJson1_0 request. (Query-protocol requests never
// get here: ServeHTTP sends them to serveQuery.)
func checkRequest(r *http.Request) *wireError {
	if r.Method != http.MethodPost {
		return &wireError{status: http.StatusMethodNotAllowed, typ: coralNamespace + "UnknownOperationException",
			message: "SQS requests are POSTs with an X-Amz-Target header; got " + r.Method + "."}
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" || ct == jsonContentType {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case err != nil:
		return serializationError("Malformed Content-Type " + strconv.Quote(echo(ct)) + ".")
	case mt == jsonContentType, mt == "application/x-amz-json-1.1", mt == "application/json":
		return nil
	}
	return serializationError("Unsupported Content-Type " + strconv.Quote(echo(ct)) + "; SQS expects " + jsonContentType + ".")
}

// lookupTarget returns the operation an X-Amz-Target header names.
func lookupTarget(target string) (wireOp, *wireError) {
	if name, ok := strings.CutPrefix(target, targetPrefix); ok {
		if op, ok := wireOps[name]; ok {
			return op, nil
		}
	}
	msg := "Missing X-Amz-Target header."
	if target != "" {
		msg = "Unknown operation " + strconv.Quote(echo(target)) + "."
	}
	return wireOp{}, &wireError{status: http.StatusBadRequest, typ: coralNamespace + "UnknownOperationException", message: msg}
}

func serializationError(message string) *wireError {
	return &wireError{status: http.StatusBadRequest, typ: coralNamespace + "SerializationException", message: message}
}

// inputError marks a request body that does not decode into the operation's input.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }

// decodeInput decodes a request body into in. encoding/json fits the SDK's input types: Go
// field names are the Smithy member names, matched case-insensitively (CreateQueue's "tags"),
// and blobs are base64 as on the wire. An empty body, or one of JSON whitespace only, is an
// empty input; anything else must be one JSON value.
func decodeInput(body []byte, in any) error {
	if len(bytes.Trim(body, jsonSpace)) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &inputError{errors.New(typeErrorMessage(te))}
		}
		return &inputError{err}
	}
	return nil
}

// typeErrorMessage words a member of the wrong JSON type as SQS's front end does: "STRING_VALUE
// can not be converted to an Integer" is AWS's answer to a string where an integer belongs
// [3P]; the other combinations follow its pattern (unverified).
func typeErrorMessage(e *json.UnmarshalTypeError) string {
	switch {
	case e.Value == "object":
		return "Start of structure or map found where not expected."
	case e.Value == "array":
		return "Start of list found where not expected."
	}
	token := "STRING_VALUE"
	switch {
	case strings.HasPrefix(e.Value, "number"):
		token = "NUMBER_VALUE"
	case e.Value == "bool":
		token = "BOOLEAN_VALUE"
	}
	target := "a Structure"
	switch e.Type.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32:
		target = "an Integer"
	case reflect.Int, reflect.Int64:
		target = "a Long"
	case reflect.String:
		target = "a String"
	case reflect.Bool:
		target = "a Boolean"
	case reflect.Slice:
		target = "a List"
	case reflect.Map:
		target = "a Map"
	}
	return token + " can not be converted to " + target
}

// withTraceHeader gives a message sent without an AWSTraceHeader system attribute the
// request's X-Amzn-Trace-Id header, as SQS does for X-Ray (SPEC.md §9.1), and reports
// whether it did.
func withTraceHeader(attrs map[string]types.MessageSystemAttributeValue, r *http.Request) (map[string]types.MessageSystemAttributeValue, bool) {
	trace := r.Header.Get("X-Amzn-Trace-Id")
	name := string(types.MessageSystemAttributeNameForSendsAWSTraceHeader)
	if trace == "" {
		return attrs, false
	}
	if _, ok := attrs[name]; ok {
		return attrs, false
	}
	if attrs == nil {
		attrs = make(map[string]types.MessageSystemAttributeValue, 1)
	}
	attrs[name] = types.MessageSystemAttributeValue{DataType: aws.String("String"), StringValue: aws.String(trace)}
	return attrs, true
}

// traceHeaderFault is the fault of a request's X-Amzn-Trace-Id header as an AWSTraceHeader
// value: its first byte that is not UTF-8 (HTTP lets a header carry such bytes; net/http
// refuses control characters), or none.
func traceHeaderFault(r *http.Request) textFault {
	trace := r.Header.Get("X-Amzn-Trace-Id")
	for i := 0; i < len(trace); {
		c, size := utf8.DecodeRuneInString(trace[i:])
		if c == utf8.RuneError && size == 1 {
			return textFault{rune(trace[i]), byteFault}
		}
		i += size
	}
	return textFault{}
}

// shapeByCode maps the query codes of the unmodeled errors to their wire shapes.
var shapeByCode = func() map[string]string {
	m := make(map[string]string, len(errorKinds))
	for shape, k := range errorKinds {
		m[k.code] = shape
	}
	return m
}()

// wireErrorOf shapes an error of a door-1 method for the wire.
func wireErrorOf(err error) *wireError {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		status := http.StatusBadRequest
		var re *awshttp.ResponseError
		if errors.As(err, &re) {
			status = re.HTTPStatusCode()
		}
		code := ae.ErrorCode()
		shape := code
		if t := reflect.TypeOf(ae); t.Kind() == reflect.Pointer && t.Elem().PkgPath() == sqsTypesPath {
			shape = t.Elem().Name()
		} else if s, ok := shapeByCode[code]; ok {
			shape = s
		}
		fault := "Sender"
		if ae.ErrorFault() == smithy.FaultServer {
			fault = "Receiver"
		}
		return &wireError{status: status, typ: namespaceOf(shape) + shape, query: code + ";" + fault, message: ae.ErrorMessage()}
	}
	var ie *inputError
	if errors.As(err, &ie) {
		return serializationError(ie.Error())
	}
	e := serviceErrorOf(err)
	return &wireError{status: e.status, typ: namespaceOf(e.shape) + e.shape, query: e.queryError(), message: e.message}
}

// namespaceOf is the namespace of a shape's __type: SQS's own, or for AccessDenied the
// front end's that SQS shares with other services (SPEC-access §1).
func namespaceOf(shape string) string {
	if shape == "AccessDeniedException" {
		return coralNamespace
	}
	return sqsNamespace
}

// code is the error code a caller's ErrorCode() gives for e: the legacy query code where the
// answer has one, else the name of its shape.
func (e *wireError) code() string {
	if code, _, _ := strings.Cut(e.query, ";"); code != "" {
		return code
	}
	return e.typ[strings.LastIndexByte(e.typ, '#')+1:]
}

// refuse records a request refused before it reached an operation (refuseRequest) and
// returns its request id; who is whom it was authenticated as, nil if it was not.
func (h *wireHandler) refuse(op string, e *wireError, who *identity) string {
	return h.f.refuseRequest(op, e.code(), e.message, who)
}

// writeError writes e as SQS writes its errors.
func writeError(w http.ResponseWriter, requestID string, e *wireError) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(struct {
		Type    string `json:"__type"`
		Message string `json:"message,omitempty"`
	}{e.typ, e.message})
	payload := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	header := w.Header()
	header.Set("Content-Type", jsonContentType)
	header.Set("X-Amzn-Requestid", requestID)
	if e.query != "" {
		header.Set("X-Amzn-Query-Error", e.query)
	}
	header.Set("Content-Length", strconv.Itoa(len(payload)))
	w.WriteHeader(e.status)
	w.Write(payload)
}

// HTTPClient returns an sqs.HTTPClient that answers requests with f.Handler() in memory,
// without a socket. A stock client built with it runs the SDK's whole path — serialization,
// endpoint resolution, signing if credentials are given, retries, response and error
// deserialization — against the fake, and works inside a testing/synctest bubble (a loopback
// server does not):
//
//	client := sqs.New(sqs.Options{
//		Region:       "us-east-1",
//		BaseEndpoint: aws.String("http://sqs.fake.invalid"),
//		Credentials:  aws.AnonymousCredentials{},
//		HTTPClient:   f.HTTPClient(),
//	})
func (f *Fake) HTTPClient() sqs.HTTPClient { return &memoryClient{h: f.Handler()} }

// memoryClient runs a handler on a ResponseRecorder for each request.
type memoryClient struct{ h http.Handler }

// Do answers r with the handler. Like net/http, it fails with the context's error when the
// request's context ends, before or while the handler runs.
func (c *memoryClient) Do(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	if err := ctx.Err(); err != nil {
		closeBody(r)
		return nil, &url.Error{Op: urlErrorOp(r.Method), URL: r.URL.String(), Err: err}
	}
	rec := httptest.NewRecorder()
	if aborted := serveRecovering(c.h, rec, r); aborted {
		// The handler dropped the connection (an injected lost response).
		closeBody(r)
		return nil, &url.Error{Op: urlErrorOp(r.Method), URL: r.URL.String(), Err: io.ErrUnexpectedEOF}
	}
	closeBody(r)
	if err := ctx.Err(); err != nil {
		return nil, &url.Error{Op: urlErrorOp(r.Method), URL: r.URL.String(), Err: err}
	}
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// serveRecovering runs h and reports whether it aborted with http.ErrAbortHandler, as the
// net/http server would have dropped the connection.
func serveRecovering(h http.Handler, w http.ResponseWriter, r *http.Request) (aborted bool) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			aborted = true
		}
	}()
	h.ServeHTTP(w, r)
	return false
}

func closeBody(r *http.Request) {
	if r.Body != nil {
		r.Body.Close()
	}
}

// urlErrorOp names a method as net/http's errors do: "Post" for POST.
func urlErrorOp(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + strings.ToLower(method[1:])
}

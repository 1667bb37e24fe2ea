package snsfake

import (
	"bytes"
	"cmp"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/smithy-go"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
	"github.com/sqsfake/sqsfake/internal/reqlog"
)

// The wire: SNS's awsQuery protocol (form POSTs of Action=…&Version=2010-03-31, XML
// answers in SNS's namespace; SPEC-sns.md §2), served beside the queue fake's own wire on
// one port. Handler routes each request (SPEC-sns.md §2.3, first match wins):
//
//  1. an X-Amz-Target header: SQS's JSON protocol;
//  2. Version 2010-03-31: SNS; 2012-11-05: SQS;
//  3. the SigV4 credential scope's service (Authorization header or X-Amz-Credential):
//     sns or sqs;
//  4. a path other than "/": SQS (its query protocol may post to the queue URL), except the
//     signing certificate's path, which SNS serves;
//  5. an Action only SNS has: SNS; AddPermission and RemovePermission with a TopicArn: SNS;
//     anything else: SQS, which answers its own errors.
//
// The confirmation and unsubscribe links of envelopes (GET /?Action=ConfirmSubscription&…,
// GET /?Action=Unsubscribe&…) carry neither Version nor scope and are SNS's by rule 5.
//
// Who a request is: in the queue fake's signed mode (WithCredentials) the key that signed it,
// once companion.VerifyRequest has checked its signature for service sns with the guards
// SQS's wire has, a request that fails being refused as SQS refuses it (an unsigned one with
// AccessDenied; AWS's SNS answer there is unverified); in lenient mode, as the queue fake
// reads it: the region of its credential scope when it has one (else the fake's), and the
// account its access key id names when that is 12 digits (else the fake's own). The
// confirmation link needs no signature in either mode, as on AWS: its token authenticates
// it (tokens.go). The unsubscribe link needs one in signed mode, as if
// AuthenticateOnUnsubscribe were set.
//
// A request is handed on whole or refused whole. The router reads a form body — the only
// body it reads — up to sqsfake.MaxRequestBytes, the queue fake's own cap (8 MiB: every
// valid request of either service stays below it, a 1 MiB SQS message whose multibyte text a
// form escapes into nine bytes a character included), and next reads every byte the client
// sent, the read's error included. A form over the cap, by its declared Content-Length or by
// what arrives, is refused with HTTP 413: by SNS (RequestEntityTooLarge) when what was read
// of it names SNS, else by the queue fake.

const snsNamespace = "http://sns.amazonaws.com/doc/2010-03-31/"

// Handler returns an http.Handler that serves SNS's wire protocol and hands every other
// request to next (the queue fake's Handler), by the routing rule above. A request is handed
// on whole or refused whole: the router reads a form body up to sqsfake.MaxRequestBytes, the
// queue fake's own cap, and gives next every byte it read followed by whatever it did not
// (a read error included), so next reads what the client sent; a form over the cap is
// refused with HTTP 413 by whichever service it names (next's own refusal for SQS). A call
// whose response an injected fault loses (sqsfake.Fault.LoseResponse) drops the connection,
// as the queue fake's Handler does: the handler panics with http.ErrAbortHandler, which
// net/http's server takes as "drop the connection".
func (s *Fake) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == SigningCertPath() {
			w.Header().Set("Content-Type", "application/x-pem-file")
			_, _ = w.Write(SigningCertificatePEM())
			return
		}
		rt := s.route(r)
		defer rt.release()
		switch {
		case !rt.sns:
			if next == nil {
				http.NotFound(w, r)
				return
			}
			next.ServeHTTP(w, r)
		case rt.tooLarge:
			s.refuse(w, rt.action, errTooLarge)
		default:
			s.serve(w, r, rt)
		}
	})
}

// errTooLarge refuses an SNS form over sqsfake.MaxRequestBytes, as the queue fake refuses an
// SQS one: HTTP 413, before its parameters are decoded. (AWS's SNS answer to an oversized
// request is UNVERIFIED; no SNS request a client can validly make comes near the cap.)
var errTooLarge = &snsError{code: "RequestEntityTooLarge", status: http.StatusRequestEntityTooLarge,
	message: "Request body must be no longer than " + strconv.Itoa(sqsfake.MaxRequestBytes) + " bytes."}

// routed is what the router found of a request: whether it is SNS's, its body as read,
// and, for SNS, whether it is over the cap and the Action it names.
type routed struct {
	sns, tooLarge bool
	action        string
	body          *bytes.Buffer // the form body read, nil when none was; recycled by release
	readErr       error         // what reading the body failed with, if it did
}

func (rt *routed) release() {
	if rt.body != nil && rt.body.Cap() <= 64<<10 {
		bodyBuffers.Put(rt.body)
	}
	rt.body = nil
}

// bodyBuffers recycles the buffers the router reads form bodies into.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readAhead is how much of a declared Content-Length the body's buffer is grown to before
// any of it arrives: the rest grows as bytes arrive, so a client that declares 8 MiB and
// sends one byte costs what it sent.
const readAhead = 64 << 10

// route decides whether r is SNS's, by the rule above. A form body is read whole, up to
// one byte over sqsfake.MaxRequestBytes; a request handed on gets a body that reads as the
// client's: the bytes read, then the rest of the connection's body (or the read's error).
func (s *Fake) route(r *http.Request) routed {
	var rt routed
	if r.Header.Get("X-Amz-Target") != "" {
		return rt
	}
	query := r.URL.RawQuery
	var body string
	if r.Method == http.MethodPost && isForm(r.Header.Get("Content-Type")) && r.Body != nil && r.Body != http.NoBody {
		if r.ContentLength > sqsfake.MaxRequestBytes {
			rt.tooLarge = true // refused on its declared length, unread, as the queue fake does
		} else {
			buf := bodyBuffers.Get().(*bytes.Buffer)
			buf.Reset()
			if r.ContentLength > 0 {
				buf.Grow(int(min(r.ContentLength, readAhead)) + bytes.MinRead)
			}
			_, rt.readErr = buf.ReadFrom(io.LimitReader(r.Body, sqsfake.MaxRequestBytes+1))
			rt.body = buf
			rt.tooLarge = buf.Len() > sqsfake.MaxRequestBytes
			rest := r.Body
			if rt.readErr != nil {
				rest = io.NopCloser(errReader{rt.readErr})
			}
			r.Body = handedOn{Reader: io.MultiReader(bytes.NewReader(buf.Bytes()), rest), Closer: r.Body}
			body = bytesView(buf.Bytes())
			if rt.tooLarge {
				body = body[:strings.LastIndexByte(body, '&')+1] // the parameters read whole
			}
		}
	}
	// The routing parameters, the body's first (as the queue fake's query decoder reads them).
	p := peekParams(body, query)
	switch p.version {
	case "2010-03-31":
		rt.sns = true
	case "2012-11-05":
	default:
		switch scopeService(r) {
		case "sns":
			rt.sns = true
		case "sqs":
		default:
			if r.URL.Path != "/" && r.URL.Path != "" {
				break
			}
			if p.action == "AddPermission" || p.action == "RemovePermission" {
				rt.sns = p.topicArn
			} else {
				_, rt.sns = wireOps[p.action]
			}
		}
	}
	// The Action outlives the body's buffer (the log, the call record): a copy, of at most
	// what an error quotes of it.
	rt.action = strings.Clone(p.action[:min(len(p.action), maxEcho+utf8.UTFMax)])
	return rt
}

// bytesView is b as a string without a copy: valid while b is neither written nor recycled,
// the request's lifetime. The router and the decoder read the body through it; what they
// keep they copy (rt.action, params.decode's strings).
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// hasParam reports whether a form gives the parameter key (unescaped as peekParams does).
func hasParam(form, key string) bool {
	for form != "" {
		var pair string
		pair, form, _ = strings.Cut(form, "&")
		k, _, _ := strings.Cut(pair, "=")
		if len(k) <= 3*len(key) {
			if u, ok := unescape(k); ok && u == key {
				return true
			}
		}
	}
	return false
}

// isForm reports whether a Content-Type is a form's, without regard to case, as the queue
// fake's query door reads it.
func isForm(ct string) bool {
	const form = "application/x-www-form-urlencoded"
	return len(ct) >= len(form) && strings.EqualFold(ct[:len(form)], form)
}

// handedOn is the body a request handed on reads: what the router read, then the rest.
type handedOn struct {
	io.Reader
	io.Closer
}

// errReader fails every read with its error: a body whose read failed fails for next too.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// routingParams are the parameters the router reads.
type routingParams struct {
	version, action string
	topicArn        bool
}

// peekParams reads Version, Action and whether TopicArn is given from forms (a body, then a
// query string): the first value of each, as the decoders read them, without decoding any
// other parameter's value. A pair that does not unescape is skipped (the service it goes to
// refuses the form).
func peekParams(forms ...string) routingParams {
	var p routingParams
	var hasVersion, hasAction bool
	for _, form := range forms {
		for form != "" {
			var pair string
			pair, form, _ = strings.Cut(form, "&")
			key, value, _ := strings.Cut(pair, "=")
			if len(key) > 24 {
				continue // none of the three, even escaped
			}
			k, ok := unescape(key)
			if !ok {
				continue
			}
			switch {
			case k == "Version" && !hasVersion:
				p.version, hasVersion = unescapeOr(value), true
			case k == "Action" && !hasAction:
				p.action, hasAction = unescapeOr(value), true
			case k == "TopicArn":
				p.topicArn = p.topicArn || value != ""
			}
		}
	}
	return p
}

func unescape(s string) (string, bool) {
	if !strings.ContainsAny(s, "%+") {
		return s, true
	}
	u, err := url.QueryUnescape(s)
	return u, err == nil
}

func unescapeOr(s string) string {
	u, _ := unescape(s)
	return u
}

// scopeService reads the service of a SigV4 credential scope, from the Authorization header
// or a presigned X-Amz-Credential: <key>/<date>/<region>/<service>/aws4_request.
func scopeService(r *http.Request) string {
	_, _, service := scopeOf(r)
	return service
}

func scopeOf(r *http.Request) (key, region, service string) {
	cred := r.URL.Query().Get("X-Amz-Credential")
	if auth := r.Header.Get("Authorization"); cred == "" && strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") {
		if _, rest, ok := strings.Cut(auth, "Credential="); ok {
			cred, _, _ = strings.Cut(rest, ",")
		}
	}
	parts := strings.Split(strings.TrimSpace(cred), "/")
	if len(parts) != 5 {
		return "", "", ""
	}
	return parts[0], parts[2], parts[3]
}

// wireOps are the operations the wire serves: the fake's, and the two links' GETs.
var wireOps = operations

// inputTypes maps each operation to its input type, for decoding.
var inputTypes = map[string]reflect.Type{}

func init() {
	for name := range operations {
		m, ok := reflect.TypeFor[*Fake]().MethodByName(name)
		if !ok {
			panic("snsfake: no method " + name)
		}
		inputTypes[name] = m.Type.In(2).Elem()
	}
}

func (s *Fake) serve(w http.ResponseWriter, r *http.Request, rt routed) {
	action := rt.action
	reqlog.SetAction(r.Context(), echoName(action)) // for the server's -v log
	if rt.readErr != nil {
		// The client went away, or stopped sending, before its body was read: nobody reads
		// the answer.
		s.refuse(w, action, newError("RequestCanceled", "could not read the request body: "+rt.readErr.Error()))
		return
	}
	var body []byte
	if rt.body != nil {
		body = rt.body.Bytes()
	}
	note := &wireNote{door: sqsfake.DoorHTTP}
	ctx := context.WithValue(r.Context(), requestIDKey{}, note)
	if tr := r.Header.Get("X-Amzn-Trace-Id"); tr != "" {
		ctx = context.WithValue(ctx, traceKey{}, tr)
	}
	region := companion.Region(s.sq)
	key, rg, _ := scopeOf(r)
	if rg != "" {
		region = rg
	}
	as := func(o *sns.Options) {
		o.Region = region
		if isAccountID(key) {
			o.Credentials = identityCredentials{sqsfake.Identity{AccountID: key}}
		}
	}
	// The envelopes' confirmation link: an unsigned GET without Version, whose token
	// authenticates it, in signed mode too.
	if r.Method == http.MethodGet && action == "ConfirmSubscription" && !hasParam(r.URL.RawQuery, "Version") {
		form, ferr := parseParams(r.Context(), r.URL.RawQuery, nil, true)
		if ferr != nil {
			s.refuse(w, action, ferr)
			return
		}
		s.serveConfirmLink(ctx, w, form, region)
		return
	}
	// Signed mode: the request acts as the key that signed it, or is refused as SQS's wire
	// refuses it (the same checks, for service sns) — before anything else of it is read or
	// kept, its Action included.
	id, signed, err := companion.VerifyRequest(s.sq, r, body, "sns")
	if err != nil {
		var se *companion.SignatureError
		if errors.As(err, &se) {
			s.refuse(w, action, &snsError{code: se.Code, message: se.Message, status: se.Status})
			return
		}
		s.refuse(w, action, errInvalidParameter(err.Error()))
		return
	}
	if signed {
		region = cmp.Or(id.Region, companion.Region(s.sq))
		as = func(o *sns.Options) {
			o.Region = region
			o.Credentials = identityCredentials{id}
		}
	}
	call, ok := operations[action]
	if !ok {
		s.refuse(w, action, newError("InvalidAction", "The action "+echo(action)+" is not valid for this web service."))
		return
	}
	form, ferr := parseParams(r.Context(), r.URL.RawQuery, body, r.Method == http.MethodGet)
	if ferr != nil {
		s.refuse(w, action, ferr)
		return
	}
	in := reflect.New(inputTypes[action])
	if err := form.decode("", in.Elem()); err != nil {
		if e, ok := err.(*snsError); ok {
			s.refuse(w, action, e)
			return
		}
		s.refuse(w, action, errInvalidParameter(err.Error()))
		return
	}
	out, err := call(s, ctx, in.Interface(), []func(*sns.Options){as})
	if err != nil && errors.Is(err, sqsfake.ErrLostResponse) {
		// An injected lost response drops the connection, as SQS's wire does: the
		// operation happened; the answer never comes.
		panic(http.ErrAbortHandler)
	}
	if err != nil {
		writeError(w, note.requestID, wireError(err))
		return
	}
	writeResult(w, action, note.requestID, out)
}

// refuse answers a request refused before it reached an operation, recorded as a call of
// the Action it named.
func (s *Fake) refuse(w http.ResponseWriter, action string, e *snsError) {
	action = echoName(action)
	sc := companion.BeginServiceCall(s.sq, recordName(action), sqsfake.DoorHTTP, nil, nil, false)
	writeError(w, sc.RequestID(), e)
	kept := *e
	kept.message = cutText(e.message, maxKept)
	sc.End(operationError(action, sc.RequestID(), &kept))
}

// serveConfirmLink answers the SubscribeURL GET: the token decides; a malformed or
// other-region TopicArn is "Invalid parameter: Topic" (SPEC-sns.md §5.2). Confirmed this way,
// ConfirmationWasAuthenticated is false.
func (s *Fake) serveConfirmLink(ctx context.Context, w http.ResponseWriter, form *params, region string) {
	c := &call{op: "ConfirmSubscription", who: caller{account: companion.AccountID(s.sq), region: region}}
	c.sc = companion.BeginServiceCall(s.sq, recordName(c.op), sqsfake.DoorHTTP, &sqsfake.Identity{Region: region}, nil, true)
	if ferr := c.sc.Refusal(ctx); ferr != nil {
		s.answerFault(w, c, ferr)
		return
	}
	topicArn := form.get("TopicArn")
	p := strings.Split(topicArn, ":")
	var e *snsError
	var arn string
	if len(p) != 6 || p[0] != "arn" || p[2] != "sns" || p[3] != region {
		e = errInvalidParameter("Topic")
	} else {
		s.mu.Lock()
		arn, e = s.confirmByLink(topicArn, form.get("Token"))
		s.mu.Unlock()
	}
	if ferr := c.sc.Settle(ctx, nil); ferr != nil {
		s.answerFault(w, c, ferr)
		return
	}
	defer c.done()
	if e != nil {
		_ = c.fail(e)
		writeError(w, c.requestID(), e)
		return
	}
	writeResult(w, "ConfirmSubscription", c.requestID(), &sns.ConfirmSubscriptionOutput{SubscriptionArn: &arn})
}

// answerFault answers, and ends, a wire call an injected fault failed with err: a lost
// response drops the connection; any other error is answered as SNS's error.
func (s *Fake) answerFault(w http.ResponseWriter, c *call, err error) {
	err = c.fail(err)
	c.done()
	if errors.Is(err, sqsfake.ErrLostResponse) {
		panic(http.ErrAbortHandler)
	}
	writeError(w, c.requestID(), wireError(err))
}

// wireError is the SNS error a door-1 error is on the wire: the service error it carries,
// or for a missing member SNS's answer (SPEC-sns.md §5.4, §6.2), or InternalError.
func wireError(err error) *snsError {
	var api smithy.APIError
	if errors.As(err, &api) {
		return newError(api.ErrorCode(), api.ErrorMessage())
	}
	var ipe smithy.InvalidParamsError
	if errors.As(err, &ipe) {
		if errs := ipe.Errs(); len(errs) > 0 {
			if pe, ok := errs[0].(smithy.InvalidParamError); ok {
				field := strings.TrimPrefix(pe.Field(), ipe.Context+".")
				if path, ok := dataTypePath(field); ok {
					return newError("ValidationError", "1 validation error detected: Value null at '"+echo(path)+"' failed to satisfy constraint: Member must not be null")
				}
				return errInvalidParameter(field + " Reason: no value for required parameter")
			}
		}
	}
	return newError("InternalError", err.Error())
}

// dataTypePath is the wire path SNS names a message attribute without a DataType by, from
// the SDK validator's field: MessageAttributes["a"].DataType is
// messageAttributes.a.member.dataType; PublishBatchRequestEntries[0].MessageAttributes["a"].
// DataType is publishBatchRequestEntries.1.member.messageAttributes.a.member.dataType (the
// entry's index from 1) [AWS rec 2024-11].
func dataTypePath(field string) (string, bool) {
	rest, ok := strings.CutSuffix(field, `"].DataType`)
	if !ok {
		return "", false
	}
	prefix := ""
	if after, ok := strings.CutPrefix(rest, "PublishBatchRequestEntries["); ok {
		idx, tail, ok := strings.Cut(after, "]")
		n, err := strconv.Atoi(idx)
		if !ok || err != nil {
			return "", false
		}
		prefix, rest = "publishBatchRequestEntries."+strconv.Itoa(n+1)+".member.", strings.TrimPrefix(tail, ".")
	}
	name, ok := strings.CutPrefix(rest, `MessageAttributes["`)
	if !ok {
		return "", false
	}
	return prefix + "messageAttributes." + name + ".member.dataType", true
}

func writeError(w http.ResponseWriter, requestID string, e *snsError) {
	var b bytes.Buffer
	b.WriteString(`<ErrorResponse xmlns="` + snsNamespace + `"><Error><Type>` + e.queryType() + `</Type><Code>`)
	_ = xml.EscapeText(&b, []byte(e.code))
	b.WriteString(`</Code><Message>`)
	_ = xml.EscapeText(&b, []byte(e.message))
	b.WriteString(`</Message></Error><RequestId>` + requestID + `</RequestId></ErrorResponse>`)
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("X-Amzn-Requestid", requestID)
	w.WriteHeader(e.status)
	_, _ = w.Write(b.Bytes())
}

func writeResult(w http.ResponseWriter, action, requestID string, out any) {
	var b bytes.Buffer
	b.WriteString(`<` + action + `Response xmlns="` + snsNamespace + `">`)
	inner := bytes.Buffer{}
	encodeXML(&inner, reflect.ValueOf(out).Elem())
	if inner.Len() > 0 || !voidOutput[action] {
		b.WriteString(`<` + action + `Result>`)
		b.Write(inner.Bytes())
		b.WriteString(`</` + action + `Result>`)
	}
	b.WriteString(`<ResponseMetadata><RequestId>` + requestID + `</RequestId></ResponseMetadata></` + action + `Response>`)
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("X-Amzn-Requestid", requestID)
	_, _ = w.Write(b.Bytes())
}

// voidOutput are the operations whose answer has no <OpResult> (the model's output is
// Unit); the others have one even when it is empty (TagResource's <TagResourceResult/>),
// which the SDK's decoder requires.
var voidOutput = map[string]bool{"AddPermission": true, "DeleteTopic": true, "PutDataProtectionPolicy": true,
	"RemovePermission": true, "SetSubscriptionAttributes": true, "SetTopicAttributes": true, "Unsubscribe": true}

// encodeXML writes the members of an output struct as awsQuery XML.
func encodeXML(b *bytes.Buffer, v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "ResultMetadata" {
			continue
		}
		fv := v.Field(i)
		switch f.Type.Kind() {
		case reflect.Pointer:
			if fv.IsNil() {
				continue
			}
			element(b, f.Name, fv.Elem().String())
		case reflect.Bool:
			element(b, f.Name, strconv.FormatBool(fv.Bool()))
		case reflect.Slice:
			if fv.IsNil() {
				continue
			}
			b.WriteString("<" + f.Name + ">")
			for j := range fv.Len() {
				b.WriteString("<member>")
				encodeXML(b, fv.Index(j))
				b.WriteString("</member>")
			}
			b.WriteString("</" + f.Name + ">")
		case reflect.Map:
			if fv.IsNil() {
				continue
			}
			keys := fv.MapKeys()
			sort.Slice(keys, func(a, c int) bool { return keys[a].String() < keys[c].String() })
			b.WriteString("<" + f.Name + ">")
			for _, k := range keys {
				b.WriteString("<entry>")
				element(b, "key", k.String())
				element(b, "value", fv.MapIndex(k).String())
				b.WriteString("</entry>")
			}
			b.WriteString("</" + f.Name + ">")
		}
	}
}

func element(b *bytes.Buffer, name, text string) {
	b.WriteString("<" + name + ">")
	_ = xml.EscapeText(b, []byte(text))
	b.WriteString("</" + name + ">")
}

func isAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

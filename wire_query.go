package sqsfake

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/smithy-go"

	"github.com/sqsfake/sqsfake/internal/reqlog"
)

// Door 3's second protocol: SQS's query protocol (awsQuery), the protocol of aws-sdk-go v1
// before v1.47.6, aws-sdk-go-v2 service/sqs before v1.27.0, the JavaScript SDK v2 before
// 2.1491.0 and of hand-written ?Action= requests. A request names its operation in an Action
// parameter, form-encoded in a POST body or in the query string of a GET or POST, and gives
// the operation's input as flattened parameters (QueueUrl=…, AttributeName.1=All,
// MessageAttribute.1.Name=…, SendMessageBatchRequestEntry.2.Id=…); the answer is XML
// (wire_xml.go). The handler decodes the parameters into the JSON of the same input and runs
// it through the awsJson1_0 path — the same decoding, explicit zeros, trace header, engine
// call, request id and faults — so that both protocols share one engine and one state.
//
// The parameter names come from the SDK's own model (the xmlName and xmlFlattened traits of
// its schemas, which aws-sdk-go v1.47.5's api-2.json gives as locationName and flattened, and
// which aws-sdk-go-v2 service/sqs v1.26.0's awsquery serializers write): a member's name or
// xmlName; a flattened list's items as Name.1, Name.2, …, an empty list as "Name=" (both SDKs
// send that); a flattened map's entries as Name.N.<key name> and Name.N.<value name>, a
// structure's members after its name and a dot.
//
// Requests the protocol refuses, with their sources:
//   - no Action on a queue's URL (GET https://sqs…/123456789012/jobs): HTTP 404 and the body
//     <UnknownOperationException/>, as AWS answers (LocalStack's AWS-validated
//     test_get_queue_without_action_returns_unknown_operation);
//   - no Action elsewhere: MissingAction, HTTP 400 (AWS's common errors);
//   - an Action that is no SQS operation, or CreateQueue or ListQueues sent to a queue's URL:
//     InvalidAction, "The action X is not valid for this endpoint.", HTTP 400 (real SQS quoted
//     in mirkokiefer/aws-lib#8; LocalStack's query API, checked against AWS);
//   - a query string with a broken %-escape: MalformedQueryString, HTTP 404 (AWS's common
//     errors);
//   - an integer parameter that is not one, or a binary value that is not base64:
//     InvalidParameterValue in SQS's "Value … for parameter … is invalid. Reason: …" words
//     (UNVERIFIED: no capture of AWS's answer was found);
//   - a map entry without its key (MessageAttribute.1.Value.… without MessageAttribute.1.Name)
//     or without its value: MissingParameter naming the parameter (UNVERIFIED);
//   - a batch without entries: EmptyBatchRequest (aws/aws-sdk-php#630); a missing member:
//     MissingParameter naming the query parameter, DeleteMessageBatchRequestEntry.1.Id rather
//     than Entries[0].Id (aws/aws-sdk-js#2388; renameMissing);
//   - a method other than GET and POST: HTTP 405, as on the awsJson1_0 path (isQueryRequest).
//
// Version is not checked: SDKs send 2012-11-05, and SQS has served older WSDL versions
// (UNVERIFIED for a request without one; LocalStack, moto and ElasticMQ ignore it). Unknown
// parameters are ignored. A QueueUrl parameter wins over the queue the path names, as on AWS
// (LocalStack's query API, checked against AWS). A queue that does not exist is "The
// specified queue does not exist for this wsdl version." on this protocol, as SQS words it
// there (aws-sdk-go v1's smoke test; every query-era report), and "… does not exist." on
// awsJson1_0 (ElasticMQ#905).

const queryContentType = "text/xml"

// isQueryRequest reports whether a request speaks the query protocol: it has no X-Amz-Target,
// and it is a GET, a form-encoded POST, or a POST with an Action in its query string. Query
// requests are "HTTP GET or POST" (Amazon SQS Developer Guide, "Making Query API requests";
// LocalStack and fake_sqs serve those two): a PUT, DELETE or any other method goes to the
// awsJson1_0 path, which refuses it with HTTP 405.
func isQueryRequest(r *http.Request) bool {
	if r.Header.Get("X-Amz-Target") != "" {
		return false
	}
	switch r.Method {
	case http.MethodGet:
		return true
	case http.MethodPost:
	default:
		return false
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return strings.Contains(r.URL.RawQuery, "Action=")
	}
	return len(ct) >= len(formContentType) && strings.EqualFold(ct[:len(formContentType)], formContentType)
}

const formContentType = "application/x-www-form-urlencoded"

// queueInPath returns the queue URL a request's path names, /<account>/<queue name> or
// /queue/<region>/<account>/<queue name> (the fake's URLs outside its own region) with an
// optional slash after it, or "".
func queueInPath(r *http.Request) string {
	p := strings.TrimSuffix(r.URL.Path, "/")
	rest := strings.TrimPrefix(p, "/")
	if tail, ok := strings.CutPrefix(rest, "queue/"); ok {
		region, after, ok := strings.Cut(tail, "/")
		if !ok || !isRegionName(region) {
			return ""
		}
		rest = after
	}
	account, name, ok := strings.Cut(rest, "/")
	if !ok || len(account) != 12 || name == "" || strings.Contains(name, "/") {
		return ""
	}
	for _, c := range []byte(account) {
		if c < '0' || c > '9' {
			return ""
		}
	}
	scheme, host := requestOrigin(r)
	return scheme + "://" + host + p
}

// serveQuery answers a query-protocol request whose body has been read.
func (h *wireHandler) serveQuery(w http.ResponseWriter, r *http.Request, body []byte, who *identity, readErr *wireError) {
	if wantsJSON(r) {
		a := &jsonAnswer{ResponseWriter: w}
		w = a
		defer func() {
			if p := recover(); p != nil {
				panic(p) // a lost response: the connection is dropped, nothing written
			}
			a.flush()
		}()
	}
	if readErr != nil {
		writeQueryError(w, h.refuse("", readErr, who), readErr)
		return
	}
	d := formDecoders.Get().(*formDecoder)
	defer d.release()
	if perr := d.parse(r, body); perr != nil {
		writeQueryError(w, h.refuse("", perr, who), perr)
		return
	}
	queueURL := queueInPath(r)
	action, given := d.get("Action")
	if given {
		reqlog.SetAction(r.Context(), action)
	}
	if action == "" && queueURL != "" {
		requestID := h.refuse("", errNoActionOnQueue, who)
		writeAnswer(w, http.StatusNotFound, queryContentTypeHeader, requestID, []byte("<UnknownOperationException/>"))
		return
	}
	op, werr := lookupAction(action, queueURL != "")
	if werr != nil {
		writeQueryError(w, h.refuse(action, werr, who), werr)
		return
	}
	if _, ok := d.get("QueueUrl"); !ok && queueURL != "" && op.input.Member("QueueUrl") != nil {
		d.params = append(d.params, formParam{"QueueUrl", queueURL})
	}
	if entries := op.input.Member("Entries"); entries != nil && !d.present(entries, memberElement(entries)) {
		// A batch without a single entry parameter is an empty batch: SQS answers
		// EmptyBatchRequest, as it answered aws-sdk-php v3 when it sent DeleteMessageBatch's
		// entries under names SQS did not read (aws/aws-sdk-php#630), rather than
		// MissingParameter.
		d.params = append(d.params, formParam{memberElement(entries), ""})
	}
	if werr := d.structure(op.input, ""); werr != nil {
		writeQueryError(w, h.refuse(action, werr, who), werr)
		return
	}
	out, requestID, err := h.call(op, action, r, d.buf, who)
	if err != nil {
		writeQueryError(w, requestID, d.renameMissing(op.input, wireErrorOf(err)))
		return
	}
	payload := newXMLWriter(action)
	defer payload.release()
	out.Serialize(payload)
	payload.finish(action, requestID)
	writeAnswer(w, http.StatusOK, queryContentTypeHeader, requestID, payload.Bytes())
}

// errNoActionOnQueue is how a request to a queue's URL without an Action is recorded; its
// answer is a bare <UnknownOperationException/> with HTTP 404.
var errNoActionOnQueue = &wireError{status: http.StatusNotFound, typ: coralNamespace + "UnknownOperationException"}

// queryContentTypeHeader is the Content-Type of every query answer; its capacity is its
// length, so a handler that appends to it gets a copy.
var queryContentTypeHeader = []string{queryContentType}

// parse reads the parameters of a request: those of a form-encoded body, then those of the
// query string that the body does not give. A parameter given twice counts once, as its
// first value (TestQueryDuplicateParameterKeepsItsFirstValue). No capture of SQS's answer to
// a repeated parameter was found (UNVERIFIED), and emulators differ: moto's _get_param takes
// the first value, a Java servlet's getParameter (SQS's front end is Java) the first,
// ElasticMQ's Pekko parameterMap the last. No SDK repeats a parameter. The awsJson1_0 path
// keeps the last of a repeated JSON member, as encoding/json and Jackson (by default) do;
// the two protocols parse differently, so the fake does not force one rule on both.
//
// The decoder is linear in the request, up to a logarithm: parameters are added in one pass,
// and a form of more than indexedParams is looked up through a sorted index rather than by
// scanning (BenchmarkQueryDecoder: 1, 100 and 65,536 parameters cost the same a parameter).
// It stops, with errClientGone, when the request's context ends: a client that went away
// does not keep the server decoding its form (issue 25, attack 7).
func (d *formDecoder) parse(r *http.Request, body []byte) *wireError {
	d.ctx = r.Context()
	if r.Method != http.MethodGet && len(body) > 0 {
		if werr := d.add(string(body)); werr != nil {
			return werr
		}
	}
	if r.URL.RawQuery != "" {
		if werr := d.add(r.URL.RawQuery); werr != nil {
			return werr
		}
	}
	return d.index()
}

// add adds the parameters of a form-encoded string. The body's come first, so that a
// parameter both give is the body's (get returns the first). It refuses a broken %-escape.
// Unlike url.ParseQuery it takes a semicolon for part of a value, so that a hand-written
// MessageBody=a;b keeps it (UNVERIFIED on AWS; signed mode refuses a ';' in the query
// string, checkOneReading), and it allocates nothing for parameters without escapes.
func (d *formDecoder) add(form string) *wireError {
	for form != "" {
		var pair string
		pair, form, _ = strings.Cut(form, "&")
		if pair == "" {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		key, ok1 := formUnescape(key)
		value, ok2 := formUnescape(value)
		if !ok1 || !ok2 {
			return malformedQuery()
		}
		d.params = append(d.params, formParam{key, value})
		if len(d.params)%ctxCheckEvery == 0 && d.ctx.Err() != nil {
			return errClientGone
		}
	}
	return nil
}

// indexedParams is the most parameters a form may have and still be looked up by scanning;
// ctxCheckEvery how often, in parameters, the decoder checks that the client is still there.
const (
	indexedParams = 32
	ctxCheckEvery = 1024
)

// errClientGone ends the decoding of a request whose client went away; nobody reads it.
var errClientGone = &wireError{status: http.StatusBadRequest, query: "RequestCanceled;Sender", message: "The client went away before the request was decoded."}

// index sorts the parameters of a large form by name, first occurrence first, for get and
// eachUnder. Parameters added after it (a QueueUrl from the path, an empty batch's entry)
// are scanned.
func (d *formDecoder) index() *wireError {
	if len(d.params) <= indexedParams {
		return nil
	}
	if len(d.params) >= ctxCheckEvery && d.ctx.Err() != nil {
		return errClientGone
	}
	d.order = slices.Grow(d.order[:0], len(d.params))
	for i := range d.params {
		d.order = append(d.order, int32(i))
	}
	slices.SortStableFunc(d.order, func(a, b int32) int { return strings.Compare(d.params[a].key, d.params[b].key) })
	return nil
}

// eachUnder calls fn with each parameter whose name is base, a dot and more, until fn
// returns false: the indexed ones in name order, then the rest in the order given.
func (d *formDecoder) eachUnder(base string, fn func(formParam) bool) {
	under := func(k string) bool { return len(k) > len(base)+1 && k[len(base)] == '.' && strings.HasPrefix(k, base) }
	if d.order != nil {
		// The names that begin with base are one run of the index; those under it are in it.
		i, _ := slices.BinarySearchFunc(d.order, base, func(i int32, base string) int { return strings.Compare(d.params[i].key, base) })
		for ; i < len(d.order); i++ {
			p := d.params[d.order[i]]
			if !strings.HasPrefix(p.key, base) {
				break
			}
			if under(p.key) && !fn(p) {
				return
			}
		}
	}
	for _, p := range d.params[len(d.order):] {
		if under(p.key) && !fn(p) {
			return
		}
	}
}

// formUnescape decodes a form-encoded key or value.
func formUnescape(s string) (string, bool) {
	if !strings.ContainsAny(s, "%+") {
		return s, true
	}
	u, err := url.QueryUnescape(s)
	return u, err == nil
}

// get returns the first value of a parameter, and whether it is given.
func (d *formDecoder) get(key string) (string, bool) {
	if d.order != nil {
		i, found := slices.BinarySearchFunc(d.order, key, func(i int32, key string) int { return strings.Compare(d.params[i].key, key) })
		if found {
			return d.params[d.order[i]].value, true
		}
	}
	for _, p := range d.params[len(d.order):] {
		if p.key == key {
			return p.value, true
		}
	}
	return "", false
}

func malformedQuery() *wireError {
	return &wireError{status: http.StatusNotFound, query: "MalformedQueryString;Sender", message: "The query string contains a syntax error."}
}

// lookupAction returns the operation an Action names; onQueue says the request went to a
// queue's URL, where CreateQueue and ListQueues are not valid.
func lookupAction(action string, onQueue bool) (wireOp, *wireError) {
	if action == "" {
		return wireOp{}, &wireError{status: http.StatusBadRequest, query: "MissingAction;Sender",
			message: "The request is missing an action or a required parameter."}
	}
	op, ok := wireOps[action]
	if !ok || onQueue && (action == "CreateQueue" || action == "ListQueues") {
		return wireOp{}, &wireError{status: http.StatusBadRequest, query: "InvalidAction;Sender",
			message: "The action " + echo(action) + " is not valid for this endpoint."}
	}
	return op, nil
}

// writeQueryError writes e as the query protocol's ErrorResponse, with the legacy code and
// the fault of its x-amzn-query-error, or for the protocol's own errors the short name of
// their shape.
func writeQueryError(w http.ResponseWriter, requestID string, e *wireError) {
	code, fault, ok := strings.Cut(e.query, ";")
	if !ok {
		code = e.typ[strings.LastIndexByte(e.typ, '#')+1:]
		fault = "Sender"
		if e.status >= 500 {
			fault = "Receiver"
		}
	}
	message := e.message
	if code == errorKinds["QueueDoesNotExist"].code && message == errQueueDoesNotExist().message {
		message = "The specified queue does not exist for this wsdl version."
	}
	b := make([]byte, 0, 256+len(message))
	b = append(b, `<?xml version="1.0"?><ErrorResponse xmlns="`+queryNamespace+`"><Error><Type>`...)
	b = appendXMLText(b, fault)
	b = append(b, "</Type><Code>"...)
	b = appendXMLText(b, code)
	b = append(b, "</Code><Message>"...)
	b = appendXMLText(b, message)
	b = append(b, "</Message><Detail/></Error><RequestId>"...)
	b = appendXMLText(b, requestID)
	b = append(b, "</RequestId></ErrorResponse>"...)
	writeAnswer(w, e.status, queryContentTypeHeader, requestID, b)
}

// A queryMember is a member of an input structure and the parameter name it has.
type queryMember struct {
	param  string
	schema *smithy.Schema
}

// queryMembersCache holds the members of each input structure, by schema.
var queryMembersCache sync.Map // *smithy.Schema → []queryMember

// queryMembers returns the members of structure s in name order, each with its parameter
// name. When two members share a name, the first keeps it: ReceiveMessage's
// MessageSystemAttributeNames has the wire name of AttributeNames (AttributeName) in the
// model, so both arrive as AttributeNames, which SQS reads as the same list.
func queryMembers(s *smithy.Schema) []queryMember {
	if m, ok := queryMembersCache.Load(s); ok {
		return m.([]queryMember)
	}
	var members []queryMember
	for _, name := range slices.Sorted(mapKeys(s.Members())) {
		m := s.Member(name)
		param := memberElement(m)
		if !slices.ContainsFunc(members, func(q queryMember) bool { return q.param == param }) {
			members = append(members, queryMember{param: param, schema: m})
		}
	}
	queryMembersCache.Store(s, members)
	return members
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// formDecoder writes the JSON of an input from the query parameters that give it.
type formDecoder struct {
	ctx    context.Context // the request's: decoding stops when it ends
	params []formParam
	order  []int32 // for a large form, the indexes of params sorted by name (index)
	buf    []byte
}

// A formParam is one parameter of a query request.
type formParam struct{ key, value string }

var formDecoders = sync.Pool{New: func() any { return &formDecoder{buf: make([]byte, 0, 512)} }}

func (d *formDecoder) release() {
	clear(d.params)
	d.params, d.buf, d.order, d.ctx = d.params[:0], d.buf[:0], nil, nil
	if cap(d.buf) <= 64<<10 && cap(d.params) <= 1024 {
		formDecoders.Put(d)
	}
}

// structure writes the JSON object of structure s from the parameters under prefix.
func (d *formDecoder) structure(s *smithy.Schema, prefix string) *wireError {
	d.buf = append(d.buf, '{')
	first := true
	for _, m := range queryMembers(s) {
		param := prefix + m.param
		if !d.present(m.schema, param) {
			continue
		}
		if !first {
			d.buf = append(d.buf, ',')
		}
		first = false
		d.buf = appendJSONString(d.buf, m.schema.MemberName())
		d.buf = append(d.buf, ':')
		if err := d.value(m.schema, param); err != nil {
			return err
		}
	}
	d.buf = append(d.buf, '}')
	return nil
}

// present reports whether the parameters give a member whose parameter name is param.
func (d *formDecoder) present(s *smithy.Schema, param string) bool {
	if _, ok := d.get(param); ok {
		return true
	}
	switch s.Type() {
	case smithy.ShapeTypeList, smithy.ShapeTypeSet, smithy.ShapeTypeMap, smithy.ShapeTypeStructure:
		found := false
		d.eachUnder(param, func(formParam) bool { found = true; return false })
		return found
	}
	return false
}

// value writes the JSON of the value of schema s that parameter param gives.
func (d *formDecoder) value(s *smithy.Schema, param string) *wireError {
	switch s.Type() {
	case smithy.ShapeTypeString, smithy.ShapeTypeEnum:
		v, _ := d.get(param)
		d.buf = appendJSONRaw(d.buf, v) // bytes that are not UTF-8 are judged as in JSON
	case smithy.ShapeTypeInteger, smithy.ShapeTypeIntEnum, smithy.ShapeTypeLong, smithy.ShapeTypeShort, smithy.ShapeTypeByte:
		v, _ := d.get(param)
		bits := 32
		if s.Type() == smithy.ShapeTypeLong {
			bits = 64
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, bits)
		if err != nil {
			return invalidParameter(v, param, "Must be an integer.")
		}
		d.buf = strconv.AppendInt(d.buf, n, 10)
	case smithy.ShapeTypeBlob:
		v, _ := d.get(param)
		if _, err := base64.StdEncoding.DecodeString(v); err != nil {
			return invalidParameter(v, param, "Must be base64-encoded.")
		}
		d.buf = appendJSONString(d.buf, v)
	case smithy.ShapeTypeStructure:
		return d.structure(s, param+".")
	case smithy.ShapeTypeList, smithy.ShapeTypeSet:
		return d.list(s, param)
	case smithy.ShapeTypeMap:
		return d.mapValue(s, param)
	default:
		// SQS's inputs hold no other shapes (TestQueryDecodesEveryInputShape).
		return &wireError{status: http.StatusInternalServerError, query: "InternalError;Receiver",
			message: "sqsfake cannot read parameter " + param + " of shape type " + strconv.Itoa(int(s.Type())) + "."}
	}
	return nil
}

// list writes the JSON array of a list member: a flattened list's items are param.1, param.2,
// …; another's param.member.1, … (or the list member's xmlName in place of member). Items
// come in the order of their numbers; "param=" alone is an empty list.
func (d *formDecoder) list(s *smithy.Schema, param string) *wireError {
	base := param
	if !flattened(s) {
		base += "." + elementOr(s.ListMember(), "member")
	}
	d.buf = append(d.buf, '[')
	for i, n := range d.numbers(base) {
		if i%ctxCheckEvery == ctxCheckEvery-1 && d.ctx != nil && d.ctx.Err() != nil {
			return errClientGone
		}
		if i > 0 {
			d.buf = append(d.buf, ',')
		}
		if err := d.value(s.ListMember(), base+"."+strconv.Itoa(n)); err != nil {
			return err
		}
	}
	d.buf = append(d.buf, ']')
	return nil
}

// mapValue writes the JSON object of a map member: a flattened map's entries are
// param.N.<key> and param.N.<value>, another's param.entry.N.<key> and ….
func (d *formDecoder) mapValue(s *smithy.Schema, param string) *wireError {
	base := param
	if !flattened(s) {
		base += ".entry"
	}
	keyName, valueName := elementOr(s.MapKey(), "key"), elementOr(s.MapValue(), "value")
	d.buf = append(d.buf, '{')
	for i, n := range d.numbers(base) {
		entry := base + "." + strconv.Itoa(n) + "."
		key, ok := d.get(entry + keyName)
		if !ok {
			return errMissingQueryParameter(entry + keyName)
		}
		if !d.present(s.MapValue(), entry+valueName) {
			return errMissingQueryParameter(entry + valueName)
		}
		if i > 0 {
			d.buf = append(d.buf, ',')
		}
		d.buf = appendJSONString(d.buf, key)
		d.buf = append(d.buf, ':')
		if err := d.value(s.MapValue(), entry+valueName); err != nil {
			return err
		}
	}
	d.buf = append(d.buf, '}')
	return nil
}

// numbers returns, in order, the item numbers N of the parameters base.N and base.N.….
// Parameters whose next part is no positive number are ignored, as unknown parameters are.
func (d *formDecoder) numbers(base string) []int {
	var numbers []int
	d.eachUnder(base, func(p formParam) bool {
		rest := p.key[len(base)+1:]
		if dot := strings.IndexByte(rest, '.'); dot >= 0 {
			rest = rest[:dot]
		}
		n, err := strconv.Atoi(rest)
		if err == nil && n >= 1 && rest[0] != '+' {
			numbers = append(numbers, n)
		}
		return true
	})
	slices.Sort(numbers)
	return slices.Compact(numbers)
}

// missingPrefix opens the message of every MissingParameter answer.
const missingPrefix = "The request must contain the parameter "

// renameMissing returns e, a MissingParameter answer to a query request whose input is
// structure s, with the member it names as the query protocol names it: the engine and the
// SDK's validators name members as awsJson1_0 does (Entries[0].Id,
// MessageAttributes["k"].DataType, AWSAccountIds), SQS names the parameter the request lacks
// (DeleteMessageBatchRequestEntry.1.Id, as real SQS answered aws-sdk-js v2 in
// aws/aws-sdk-js#2388; MessageAttribute.1.Value.DataType, AWSAccountId, the latter two
// UNVERIFIED). Any other answer, or a member path it cannot follow, is returned as it is.
func (d *formDecoder) renameMissing(s *smithy.Schema, e *wireError) *wireError {
	path, ok := strings.CutPrefix(e.message, missingPrefix)
	if !ok || !strings.HasPrefix(e.query, "MissingParameter;") {
		return e
	}
	path, ok = strings.CutSuffix(path, ".")
	if !ok {
		return e
	}
	param, ok := d.paramOf(s, path)
	if !ok || param == path {
		return e
	}
	return &wireError{status: e.status, typ: e.typ, query: e.query, message: missingPrefix + param + "."}
}

// paramOf returns the query parameter of a member path of structure s in awsJson1_0's
// words: member names joined by dots, list items as [i] from 0, map entries as ["key"]. List
// items and map entries are numbered as the request numbers them.
func (d *formDecoder) paramOf(s *smithy.Schema, path string) (string, bool) {
	param, cur := "", s
	for path != "" {
		switch path[0] {
		case '.':
			path = path[1:]
		case '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return "", false
			}
			switch cur.Type() {
			case smithy.ShapeTypeList, smithy.ShapeTypeSet:
				i, err := strconv.Atoi(path[1:end])
				if err != nil || i < 0 {
					return "", false
				}
				if !flattened(cur) {
					param += "." + elementOr(cur.ListMember(), "member")
				}
				// Item i is the request's i-th number, in order (list writes them so).
				nums := d.numbers(param)
				if i >= len(nums) {
					return "", false
				}
				param += "." + strconv.Itoa(nums[i])
				cur, path = cur.ListMember(), path[end+1:]
			case smithy.ShapeTypeMap:
				quoted, err := strconv.QuotedPrefix(path[1:])
				if err != nil || !strings.HasPrefix(path[1+len(quoted):], "]") {
					return "", false
				}
				key, _ := strconv.Unquote(quoted)
				base := param
				if !flattened(cur) {
					base += ".entry"
				}
				keyName, valueName := elementOr(cur.MapKey(), "key"), elementOr(cur.MapValue(), "value")
				n := slices.IndexFunc(d.numbers(base), func(n int) bool {
					v, ok := d.get(base + "." + strconv.Itoa(n) + "." + keyName)
					return ok && v == key
				})
				if n < 0 {
					return "", false
				}
				param = base + "." + strconv.Itoa(d.numbers(base)[n]) + "." + valueName
				cur, path = cur.MapValue(), path[1+len(quoted)+1:]
			default:
				return "", false
			}
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			m := cur.Member(path[:end])
			if m == nil {
				return "", false
			}
			if param != "" {
				param += "."
			}
			param += memberElement(m)
			cur, path = m, path[end:]
		}
	}
	return param, true
}

func invalidParameter(value, param, reason string) *wireError {
	e := errInvalidValue(value, param, reason)
	return &wireError{status: e.status, query: e.code + ";Sender", message: e.message}
}

func errMissingQueryParameter(param string) *wireError {
	e := errMissingParameter(param)
	return &wireError{status: e.status, query: e.code + ";Sender", message: e.message}
}

// schemaOf returns the schema of the structure v serializes itself as, nil if none: the
// input and output types of the SDK open their Serialize with it.
func schemaOf(v smithy.Serializable) *smithy.Schema {
	p := schemaProbe{xmlWriter: &xmlWriter{}}
	v.Serialize(&p)
	return p.schema
}

// schemaProbe notes the schema of the first structure written to it.
type schemaProbe struct {
	*xmlWriter
	schema *smithy.Schema
	seen   bool
}

func (p *schemaProbe) WriteStruct(s *smithy.Schema) {
	if !p.seen {
		p.schema, p.seen = s, true
	}
	p.xmlWriter.WriteStruct(s)
}

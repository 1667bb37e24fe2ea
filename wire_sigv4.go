package sqsfake

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go/logging"

	"github.com/sqsfake/sqsfake/internal/bridge"
)

// Who is calling, on the wire (door 3), and whether the request's SigV4 signature holds.
//
// identify (lenient mode, the default) reads the caller from a request without checking
// anything: the access key id and region of the SigV4 credential scope, in the
// Authorization header or in the X-Amz-Credential query parameter of a presigned URL. An
// access key id of 12 digits is that account, the convention LocalStack users follow.
//
// verifySignature (signed mode: WithCredentials, cmd/sqsfake -credentials) checks a request's
// signature as AWS does for SQS, in AWS's order, and answers each refusal as SQS does. The
// signature itself is recomputed by the AWS SDK's own signer (aws/signer/v4) over a request
// rebuilt from exactly what the client signed; no signing code of our own.
//
// What AWS answers, and the evidence (SPEC-access.md §2; "coral" is the front end SQS's JSON
// protocol shares with DynamoDB, whose refusals dynalite recorded in order in its
// validations comments, github.com/mhart/dynalite index.js, 2013):
//
//	no Authorization header starting "AWS4-", no X-Amz-Algorithm/Credential/Signature
//	  query parameter: 403 AccessDenied (AccessDeniedException). REC: the unsigned step
//	  of yavosh/pail test/diff/testdata/golden/sqs-auth-errors.json. Its message was not
//	  recorded: we answer SQS's own AccessDenied text of the query era, "Access to the
//	  resource <scheme>://<host>/ is denied." (3P: aws/aws-sdk-php#188,
//	  bbc/sqs-consumer#225), with the host the request was sent to. UNCONFIRMED.
//	a part of the header without "=": 400 IncompleteSignature "'<part>' not a valid
//	  key=value pair (missing equal-sign) in Authorization header: '<header>'." (3P:
//	  aws/aws-sdk-go#289, iann0036/cloud9-sync#10; coral services).
//	Credential, Signature or SignedHeaders missing, or no X-Amz-Date and no Date header:
//	  400 IncompleteSignature, one sentence each, "Authorization header requires
//	  'Credential' parameter. … Authorization header requires existence of either a
//	  'X-Amz-Date' or a 'Date' header. Authorization=<header>" (3P: brendanhay/amazonka#316
//	  (SES, 400), aws/chalice#828; dynalite). Presigned: "AWS query-string parameters must
//	  include 'X-Amz-Algorithm'. … Re-examine the query-string parameters." (dynalite).
//	X-Amz-Date not in the basic format: 400 IncompleteSignature "Date must be in ISO-8601
//	  'basic format'. Got '<v>'. See http://en.wikipedia.org/wiki/ISO_8601" (dynalite).
//	dated more than 15 minutes ago: 403 SignatureDoesNotMatch "Signature expired:
//	  <X-Amz-Date> is now earlier than <now-15m> (<now> - 15 min.)" (REC pail clock-skew;
//	  3P on SQS: aws/aws-sdk-go#487, aws/aws-sdk-php#642).
//	dated more than 15 minutes ahead: 403 SignatureDoesNotMatch "Signature not yet
//	  current: <X-Amz-Date> is still later than <now+15m> (<now> + 15 min.)" (3P text from
//	  5-minute services: serverless/serverless#4679, serverless/enterprise#11; the 15 and
//	  the code INF from the expired case).
//	host not among the signed headers: 403 SignatureDoesNotMatch "'Host' must be a
//	  'SignedHeader' in the AWS Authorization." (dynalite).
//	another algorithm than AWS4-HMAC-SHA256: 400 IncompleteSignature "Unsupported AWS
//	  'algorithm': '<alg>' (only AWS4-HMAC-SHA256 for now). " (dynalite).
//	a credential of other than 5 parts: 400 IncompleteSignature "Credential must have
//	  exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got
//	  '<credential>'" (3P on SQS: boto/boto3#1752; aws/aws-sdk-go#1042).
//	a scope with a region that is no region name, another service than sqs, another
//	  terminator than aws4_request or another day than X-Amz-Date's: 403
//	  SignatureDoesNotMatch, one sentence each, "Credential should be scoped to a valid
//	  region, not '<r>'. Credential should be scoped to correct service: 'sqs'. Credential
//	  should be scoped with a valid terminator: 'aws4_request', not '<t>'. Date in
//	  Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP:
//	  '<d>' != '<day>', from '<X-Amz-Date>'. " (3P on SQS for the region sentence, with
//	  its trailing space: boto/boto#3690; cllunsford/aws-signing-proxy#25 for the
//	  service; dynalite for all four). Any region name is valid here: the fake serves
//	  every region.
//	an access key id the fake does not know: 403 InvalidClientTokenId
//	  (UnrecognizedClientException) "The security token included in the request is
//	  invalid." (REC pail unknown-key; 3P on SQS: ex-aws/ex_aws#220).
//	a signature that does not match: 403 SignatureDoesNotMatch "The request signature we
//	  calculated does not match the signature you provided. Check your AWS Secret Access
//	  Key and signing method. Consult the service documentation for details.\n\nThe
//	  Canonical String for this request should have been\n'<canonical request>'\n\nThe
//	  String-to-Sign should have been\n'<string to sign>'\n" (REC pail bad-signature for
//	  the code; 3P on SQS for the text and its two appendices: aws/aws-cli#5341, an SQS
//	  CreateQueue refusal of 2019 quoted in a public source file, aws/aws-sdk-ruby#374).
//
// The statuses: 403 as recorded (pail); 400 for IncompleteSignature as the SQS Common
// Errors page lists it and coral answers it (amazonka#316, cloud9-sync#10, dynalite).
//
// Presigned URLs (X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date, X-Amz-SignedHeaders,
// X-Amz-Signature in the query) are checked like headers, with the same 15-minute window
// around X-Amz-Date: SQS does not honour X-Amz-Expires, a presigned SQS URL lasts 15
// minutes whatever it says (3P: aws/aws-sdk-ruby#2498 for SQS; aws/aws-sdk-go#2167 and
// aws/aws-sdk-ruby#2887 for other non-S3 services), so there is no "Request has expired"
// here; X-Amz-Expires is signed like any query parameter and otherwise ignored. The payload
// hash of a presigned request is the SHA-256 of its body (empty for a GET), as botocore's
// SigV4QueryAuth signs it after moving the body into the query; UNSIGNED-PAYLOAD, S3's
// convention, is accepted too (UNCONFIRMED for SQS: a leniency for hand-made presigners).
// Either way a presigned request with a body is refused (checkOneReading): it is served on
// its signed query alone.
//
// A session token (X-Amz-Security-Token) is signed as the client signed it but not
// checked: the fake knows no tokens, so a known access key with any token is that key's
// caller (AWS would refuse a token it did not issue with InvalidClientTokenId).
//
// Rebuilding the request for the SDK's signer: the signer leaves out User-Agent,
// X-Amzn-Trace-Id, Expect and Transfer-Encoding under their canonical keys, which some clients
// sign (the AWS SDK for Java v1 signs user-agent); the rebuilt request carries them under
// their lower-case names, which the signer's rule does not match, so they are signed as the
// client signed them (signedCopy). The signer signs content-length only when it is above 0,
// while botocore's SigV4Auth signs "content-length:0" on a POST whose parameters are in the
// query: that header is put into the signer's canonical request by hand (signZeroLength).
// What remains out of reach, and no known client does: the signer signs x-amz-date rather
// than Date; a request that signed only a Date header is refused with SignatureDoesNotMatch.

// wireIdentity is who a wire request says it is.
type wireIdentity struct {
	accessKey string
	region    string // from the credential scope; "" if the request carried none (unsigned) or no region name
	account   string // "" = the fake's default account
	principal string // "" = default: the account's root
	orgID     string // the principal's aws:PrincipalOrgID; "" = none
	signed    bool   // verifySignature checked the signature (signed mode); identify never sets it
}

// SigV4 as SQS takes it.
const (
	sigAlgorithm  = "AWS4-HMAC-SHA256"
	sigService    = "sqs"
	sigTerminator = "aws4_request"
	amzDateFormat = "20060102T150405Z"
	// sigMaxSkew is how far X-Amz-Date may be from the server's clock, either way.
	sigMaxSkew = 15 * time.Minute
	// unsignedPayload is the payload hash S3's presigned URLs use.
	unsignedPayload = "UNSIGNED-PAYLOAD"
)

// identify reads the caller from a request in lenient mode, checking nothing: the
// Credential of an Authorization header (AWS4-HMAC-SHA256 Credential=AKID/20260101/
// us-east-1/sqs/aws4_request, SignedHeaders=…, Signature=…) or the X-Amz-Credential
// parameter of a presigned URL. A 12-digit access key id is the account; a region is taken
// only if it has a region's form (lower-case words and a number joined by hyphens). It never
// fails: a request without a credential, or with a malformed one, yields an empty identity.
func identify(r *http.Request) wireIdentity {
	var cred string
	if auth := r.Header.Get("Authorization"); auth != "" {
		cred = authCredential(auth)
	} else if v, ok := rawQueryValue(r.URL.RawQuery, "X-Amz-Credential"); ok {
		if u, err := url.QueryUnescape(v); err == nil {
			cred = u
		}
	}
	key, _, region, _, _, ok := scopeParts(cred)
	if !ok || key == "" {
		return wireIdentity{}
	}
	if !isRegionName(region) {
		region = ""
	}
	return wireIdentity{accessKey: key, region: region, account: accountOfKey(key)}
}

// authCredential returns the value of the Credential= parameter of an Authorization header,
// or "".
func authCredential(auth string) string {
	const name = "Credential="
	for off := 0; ; {
		i := strings.Index(auth[off:], name)
		if i < 0 {
			return ""
		}
		i += off
		if i > 0 && auth[i-1] != ' ' && auth[i-1] != ',' {
			off = i + len(name)
			continue
		}
		v := auth[i+len(name):]
		if end := strings.IndexByte(v, ','); end >= 0 {
			v = v[:end]
		}
		return strings.TrimSpace(v)
	}
}

// rawQueryValue returns the still-escaped value of the first parameter name in a raw query.
func rawQueryValue(rawQuery, name string) (string, bool) {
	for rawQuery != "" {
		var part string
		part, rawQuery, _ = strings.Cut(rawQuery, "&")
		if v, ok := strings.CutPrefix(part, name); ok && strings.HasPrefix(v, "=") {
			return v[1:], true
		}
	}
	return "", false
}

// scopeParts splits a credential key/date/region/service/terminator from the right, so a
// key id holding a '/' stays whole; ok is false with fewer than 5 parts.
func scopeParts(cred string) (key, date, region, service, term string, ok bool) {
	var parts [4]string
	rest := cred
	for i := 3; i >= 0; i-- {
		j := strings.LastIndexByte(rest, '/')
		if j < 0 {
			return "", "", "", "", "", false
		}
		parts[i], rest = rest[j+1:], rest[:j]
	}
	return rest, parts[0], parts[1], parts[2], parts[3], true
}

// sigError is a refusal of signed mode, as SQS answers it.
type sigError struct {
	code    string // the query protocol's code (x-amzn-query-error), such as SignatureDoesNotMatch
	shape   string // the awsJson1_0 __type's shape in com.amazon.coral.service, such as InvalidSignatureException
	message string
	status  int
}

func (e *sigError) Error() string { return e.code + ": " + e.message }

// wire returns the refusal as door 3 writes it: __type in coral's namespace, as SQS answers
// signature errors (pail's recording), and the code in x-amzn-query-error with fault Sender.
func (e *sigError) wire() *wireError {
	return &wireError{status: e.status, typ: coralNamespace + e.shape, query: e.code + ";Sender", message: e.message}
}

func errUnsigned(r *http.Request) *sigError {
	scheme, host := requestOrigin(r)
	return &sigError{code: "AccessDenied", shape: "AccessDeniedException", status: http.StatusForbidden,
		message: "Access to the resource " + scheme + "://" + host + "/ is denied."}
}

// overTLS reports whether a request came over TLS: a server's request says so in r.TLS; one
// HTTPClient hands to the handler in memory, as its client built it, in its URL's scheme
// (the SDK's https endpoints, with no socket in between).
func overTLS(r *http.Request) bool {
	return r.TLS != nil || r.URL != nil && r.URL.Scheme == "https"
}

// requestOrigin returns the scheme and host a request was sent to: a server's request names
// its host in r.Host, one HTTPClient hands over in memory in its URL.
func requestOrigin(r *http.Request) (scheme, host string) {
	scheme, host = "http", r.Host
	if overTLS(r) {
		scheme = "https"
	}
	if host == "" && r.URL != nil {
		host = r.URL.Host
	}
	return scheme, host
}

func errIncompleteSignature(message string) *sigError {
	return &sigError{code: "IncompleteSignature", shape: "IncompleteSignatureException", status: http.StatusBadRequest, message: message}
}

func errSignatureDoesNotMatch(message string) *sigError {
	return &sigError{code: "SignatureDoesNotMatch", shape: "InvalidSignatureException", status: http.StatusForbidden, message: message}
}

func errUnknownAccessKey() *sigError {
	return &sigError{code: "InvalidClientTokenId", shape: "UnrecognizedClientException", status: http.StatusForbidden,
		message: "The security token included in the request is invalid."}
}

// sigMismatchText begins the message of a signature that does not match.
const sigMismatchText = "The request signature we calculated does not match the signature you provided. " +
	"Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

// sigAuth is the signature a request carries, in either form.
type sigAuth struct {
	presigned     bool
	algorithm     string
	credential    string
	signedHeaders string
	signature     string
	date          string // X-Amz-Date as sent (or the Date header's time in the basic format)
	service       string // the credential scope's service, once checked: sqs, or a companion's
}

// verifySignature checks a request's SigV4 signature in signed mode and returns who sent it, or the
// refusal SQS would answer (see the evidence above). body is the request body, already
// read; now is the server's wall-clock time (clients sign with their real clock, whatever
// the fake's clock says). The signature is recomputed by the SDK's signer over a request
// holding exactly the headers the client signed, with their received values, the same
// X-Amz-Date, the same query and the SHA-256 of body. Nothing else of the request is
// looked at: an unsigned header added on the way does not matter.
func verifySignature(r *http.Request, body []byte, creds *credentialSet, now time.Time) (wireIdentity, *sigError) {
	return verifyFor(r, body, creds, now, sigService)
}

// verifyFor is verifySignature for a request to service: sqs, or a service a companion
// serves beside the fake (snsfake's sns), whose scope must name it.
func verifyFor(r *http.Request, body []byte, creds *credentialSet, now time.Time, want string) (wireIdentity, *sigError) {
	a, serr := readSigAuth(r)
	if serr != nil {
		return wireIdentity{}, serr
	}
	t, err := time.Parse(amzDateFormat, a.date)
	if err != nil {
		return wireIdentity{}, errIncompleteSignature("Date must be in ISO-8601 'basic format'. Got '" + echo(a.date) + "'. See http://en.wikipedia.org/wiki/ISO_8601")
	}
	now = now.UTC().Truncate(time.Second)
	if earliest := now.Add(-sigMaxSkew); t.Before(earliest) {
		return wireIdentity{}, errSignatureDoesNotMatch("Signature expired: " + a.date + " is now earlier than " +
			earliest.Format(amzDateFormat) + " (" + now.Format(amzDateFormat) + " - 15 min.)")
	}
	if latest := now.Add(sigMaxSkew); t.After(latest) {
		return wireIdentity{}, errSignatureDoesNotMatch("Signature not yet current: " + a.date + " is still later than " +
			latest.Format(amzDateFormat) + " (" + now.Format(amzDateFormat) + " + 15 min.)")
	}
	if !signsHost(a.signedHeaders) {
		return wireIdentity{}, errSignatureDoesNotMatch("'Host' must be a 'SignedHeader' in the AWS Authorization.")
	}
	if a.algorithm != sigAlgorithm {
		return wireIdentity{}, errIncompleteSignature("Unsupported AWS 'algorithm': '" + echo(a.algorithm) + "' (only AWS4-HMAC-SHA256 for now). ")
	}
	if strings.Count(a.credential, "/") != 4 {
		return wireIdentity{}, errIncompleteSignature("Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '" + echo(a.credential) + "'")
	}
	key, day, region, service, term, _ := scopeParts(a.credential)
	var scope strings.Builder
	if !isRegionName(region) {
		scope.WriteString("Credential should be scoped to a valid region, not '" + echo(region) + "'. ")
	}
	if service != want {
		scope.WriteString("Credential should be scoped to correct service: '" + want + "'. ")
	}
	if term != sigTerminator {
		scope.WriteString("Credential should be scoped with a valid terminator: '" + sigTerminator + "', not '" + echo(term) + "'. ")
	}
	if day != a.date[:8] {
		scope.WriteString("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '" +
			echo(day) + "' != '" + a.date[:8] + "', from '" + a.date + "'. ")
	}
	if scope.Len() > 0 {
		return wireIdentity{}, errSignatureDoesNotMatch(scope.String())
	}
	k, ok := creds.lookup(key)
	if !ok {
		return wireIdentity{}, errUnknownAccessKey()
	}
	a.service = service
	if serr := checkSignature(r, body, &a, k, region, t); serr != nil {
		return wireIdentity{}, serr
	}
	if serr := checkOneReading(r, body, &a); serr != nil {
		return wireIdentity{}, serr
	}
	return wireIdentity{accessKey: key, region: region, account: k.account, principal: k.principal, orgID: k.orgID, signed: true}, nil
}

// readSigAuth reads the signature of a request: its Authorization header, or else the
// parameters of a presigned URL. It refuses a request with neither (AccessDenied) and one
// whose signature lacks a part (IncompleteSignature).
func readSigAuth(r *http.Request) (sigAuth, *sigError) {
	if auth := r.Header.Get("Authorization"); strings.HasPrefix(strings.TrimSpace(auth), "AWS4-") {
		return readAuthHeader(r, auth)
	}
	q := r.URL.Query()
	if !q.Has("X-Amz-Algorithm") && !q.Has("X-Amz-Credential") && !q.Has("X-Amz-Signature") {
		return sigAuth{}, errUnsigned(r)
	}
	a := sigAuth{presigned: true, algorithm: q.Get("X-Amz-Algorithm"), credential: q.Get("X-Amz-Credential"),
		signedHeaders: q.Get("X-Amz-SignedHeaders"), signature: q.Get("X-Amz-Signature"), date: q.Get("X-Amz-Date")}
	var missing strings.Builder
	for _, p := range [...]struct{ name, value string }{
		{"X-Amz-Algorithm", a.algorithm}, {"X-Amz-Credential", a.credential}, {"X-Amz-Signature", a.signature},
		{"X-Amz-SignedHeaders", a.signedHeaders}, {"X-Amz-Date", a.date},
	} {
		if p.value == "" {
			missing.WriteString("AWS query-string parameters must include '" + p.name + "'. ")
		}
	}
	if missing.Len() > 0 {
		return sigAuth{}, errIncompleteSignature(missing.String() + "Re-examine the query-string parameters.")
	}
	return a, nil
}

// readAuthHeader reads an Authorization header of the form
// "AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…".
func readAuthHeader(r *http.Request, auth string) (sigAuth, *sigError) {
	var a sigAuth
	alg, params, _ := strings.Cut(strings.TrimSpace(auth), " ")
	a.algorithm = alg
	hasSignedHeaders := false
	for _, part := range strings.FieldsFunc(params, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' }) {
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			return sigAuth{}, errIncompleteSignature("'" + echo(part) + "' not a valid key=value pair (missing equal-sign) in Authorization header: '" + echo(auth) + "'.")
		}
		switch name {
		case "Credential":
			a.credential = value
		case "SignedHeaders":
			a.signedHeaders, hasSignedHeaders = value, true
		case "Signature":
			a.signature = value
		}
	}
	a.date = r.Header.Get("X-Amz-Date")
	if a.date == "" {
		if d := r.Header.Get("Date"); d != "" {
			// SigV4 allows a Date header in place of X-Amz-Date. The SDK's signer signs
			// x-amz-date, so such a request cannot match; its time is still checked.
			a.date = d
			if t, err := http.ParseTime(d); err == nil {
				a.date = t.UTC().Format(amzDateFormat)
			}
		}
	}
	var missing strings.Builder
	if a.credential == "" {
		missing.WriteString("Authorization header requires 'Credential' parameter. ")
	}
	if a.signature == "" {
		missing.WriteString("Authorization header requires 'Signature' parameter. ")
	}
	if !hasSignedHeaders {
		missing.WriteString("Authorization header requires 'SignedHeaders' parameter. ")
	}
	if a.date == "" {
		missing.WriteString("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ")
	}
	if missing.Len() > 0 {
		return sigAuth{}, errIncompleteSignature(missing.String() + "Authorization=" + echo(auth))
	}
	return a, nil
}

// signsHost reports whether a SignedHeaders list names host.
func signsHost(signedHeaders string) bool { return signsHeader(signedHeaders, "host") }

// signsHeader reports whether a SignedHeaders list names the header name, in lower case.
func signsHeader(signedHeaders, name string) bool {
	for h := range strings.SplitSeq(signedHeaders, ";") {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

// checkOneReading refuses a request whose signature holds but which the handler could read
// otherwise than the signature covers (docs/signatures.md, "One reading"):
//   - an X-Amz-Target header, which chooses the operation, not among the signed headers;
//   - a presigned request with a body: the signature of a presigned URL may leave its body
//     out (UNSIGNED-PAYLOAD), and the request is served on its signed query alone;
//   - a ';' in the query string: the SDK's signer, like url.ParseQuery, drops a pair that
//     holds one from the canonical query, and the query decoder would read it;
//   - a query-protocol parameter given more than once, in the query string, the form body or
//     both, of which the decoder would act on one.
//
// No SDK sends any of these: they percent-encode ';' and give each parameter once.
func checkOneReading(r *http.Request, body []byte, a *sigAuth) *sigError {
	if r.Header.Get("X-Amz-Target") != "" && !signsHeader(a.signedHeaders, "x-amz-target") {
		return errSignatureDoesNotMatch("'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization.")
	}
	if a.presigned && len(body) > 0 {
		return errSignatureDoesNotMatch("A presigned request is served on its signed query alone: its body must be empty.")
	}
	if strings.IndexByte(r.URL.RawQuery, ';') >= 0 {
		return errSignatureDoesNotMatch("The query string holds a ';', which the signature does not cover: encode it as %3B.")
	}
	if !isQueryRequest(r) {
		return nil
	}
	seen := make(map[string]struct{})
	repeated := func(form string) (string, bool) {
		for form != "" {
			var pair string
			pair, form, _ = strings.Cut(form, "&")
			if pair == "" {
				continue
			}
			raw, _, _ := strings.Cut(pair, "=")
			key, ok := formUnescape(raw)
			if !ok {
				continue // the decoder refuses it: MalformedQueryString
			}
			if _, dup := seen[key]; dup {
				return key, true
			}
			seen[key] = struct{}{}
		}
		return "", false
	}
	key, dup := repeated(r.URL.RawQuery)
	if !dup && r.Method != http.MethodGet {
		key, dup = repeated(string(body))
	}
	if dup {
		return &sigError{code: "MalformedQueryString", shape: "MalformedQueryString", status: http.StatusNotFound,
			message: "The query string contains a syntax error. Parameter '" + echo(key) + "' is given more than once."}
	}
	return nil
}

// checkSignature recomputes the signature of a request with k's secret and compares it
// with the one the request carries, in constant time.
func checkSignature(r *http.Request, body []byte, a *sigAuth, k *knownKey, region string, t time.Time) *sigError {
	sum := sha256.Sum256(body)
	payloadHash := hex.EncodeToString(sum[:])
	want, err := expectedSignature(r, a, k, region, t, payloadHash, nil)
	if err == nil && sameSignature(want, a.signature) {
		return nil
	}
	if a.presigned {
		if alt, err := expectedSignature(r, a, k, region, t, unsignedPayload, nil); err == nil && sameSignature(alt, a.signature) {
			return nil
		}
	}
	// Sign once more, logging, for the canonical request and string to sign AWS quotes.
	var log signingLog
	expectedSignature(r, a, k, region, t, payloadHash, &log)
	return errSignatureDoesNotMatch(sigMismatchText + "\n\nThe Canonical String for this request should have been\n'" +
		log.canonical + "'\n\nThe String-to-Sign should have been\n'" + log.stringToSign + "'\n")
}

func sameSignature(want, got string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// expectedSignature signs a rebuilt copy of r with the SDK's signer and returns the
// signature it computes. log, if not nil, receives the canonical request and string to
// sign.
func expectedSignature(r *http.Request, a *sigAuth, k *knownKey, region string, t time.Time, payloadHash string, log *signingLog) (string, error) {
	req := signedCopy(r, a)
	creds := aws.Credentials{AccessKeyID: k.accessKey, SecretAccessKey: k.secret}
	opts := func(o *v4.SignerOptions) {
		// The rebuilt request holds only signed headers; none is to be moved to the query.
		o.DisableHeaderHoisting = true
		if log != nil {
			o.Logger, o.LogSigning = log, true
		}
	}
	if a.presigned {
		signed, _, err := k.signer.PresignHTTP(context.Background(), creds, req, payloadHash, a.service, region, t, opts)
		if err != nil {
			return "", err
		}
		i := strings.LastIndex(signed, "X-Amz-Signature=")
		if i < 0 {
			return "", nil
		}
		return signed[i+len("X-Amz-Signature="):], nil
	}
	if zeroLength := req.ContentLength == 0 && signsContentLength(a.signedHeaders); zeroLength {
		// The SDK's signer signs content-length only above 0: sign as it does, then add
		// the header to its canonical request (signZeroLength).
		var own signingLog
		inner := opts
		opts = func(o *v4.SignerOptions) { inner(o); o.Logger, o.LogSigning = &own, true }
		if err := k.signer.SignHTTP(context.Background(), creds, req, payloadHash, a.service, region, t, opts); err != nil {
			return "", err
		}
		sig, ok := signZeroLength(&own, k.secret, region, a.service)
		if log != nil {
			*log = own
		}
		if !ok {
			return "", nil
		}
		return sig, nil
	}
	if err := k.signer.SignHTTP(context.Background(), creds, req, payloadHash, a.service, region, t, opts); err != nil {
		return "", err
	}
	auth := req.Header.Get("Authorization")
	i := strings.LastIndex(auth, "Signature=")
	if i < 0 {
		return "", nil
	}
	return auth[i+len("Signature="):], nil
}

// signsContentLength reports whether a SignedHeaders list names content-length.
func signsContentLength(signedHeaders string) bool {
	for name := range strings.SplitSeq(signedHeaders, ";") {
		if strings.EqualFold(name, "content-length") {
			return true
		}
	}
	return false
}

// signZeroLength is the signature of a request that signed "content-length:0", which the
// SDK's signer leaves out (it signs content-length only above 0) though botocore's
// SigV4Auth signs it on a POST whose parameters are in the query and whose body is empty
// (an AWS-validated case, issue 29): the canonical request the signer logged, with that
// header put in its place among the canonical headers and the signed ones, hashed into the
// logged string to sign, signed with the key SigV4 derives from secret. log receives the
// canonical request and string to sign as they should have been.
func signZeroLength(log *signingLog, secret, region, service string) (string, bool) {
	lines := strings.Split(log.canonical, "\n")
	// method, path, query, the headers, "", the signed headers, the payload hash.
	if len(lines) < 6 || lines[len(lines)-3] != "" {
		return "", false
	}
	headers := slices.Clone(lines[3 : len(lines)-3])
	i, _ := slices.BinarySearchFunc(headers, "content-length:", func(h, name string) int {
		k, _, _ := strings.Cut(h, ":")
		return strings.Compare(k+":", name)
	})
	headers = slices.Insert(headers, i, "content-length:0")
	signed := strings.Split(lines[len(lines)-2], ";")
	j, _ := slices.BinarySearch(signed, "content-length")
	signed = slices.Insert(signed, j, "content-length")
	canonical := strings.Join(append(append(append(slices.Clone(lines[:3]), headers...), ""), strings.Join(signed, ";"), lines[len(lines)-1]), "\n")
	sts := strings.Split(log.stringToSign, "\n")
	if len(sts) != 4 || len(sts[1]) < 8 {
		return "", false
	}
	sum := sha256.Sum256([]byte(canonical))
	sts[3] = hex.EncodeToString(sum[:])
	log.canonical, log.stringToSign = canonical, strings.Join(sts, "\n")
	mac := func(key []byte, s string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(s))
		return h.Sum(nil)
	}
	key := mac(mac(mac(mac([]byte("AWS4"+secret), sts[1][:8]), region), service), "aws4_request")
	return hex.EncodeToString(mac(key, log.stringToSign)), true
}

// signedCopy returns a request for the SDK's signer holding what r's client signed: its
// method, path and query (less X-Amz-Signature), host, and exactly the headers named in
// SignedHeaders with the values received; content-length goes in ContentLength, where the
// signer reads it. The signer writes X-Amz-Date and Authorization into the copy, never
// into r.
// signerSkips are the headers the SDK's signer never signs under their canonical key
// (aws/signer/internal/v4 IgnoredHeaders), though some clients sign them: the AWS SDK for
// Java v1 signs user-agent, for one.
var signerSkips = map[string]bool{"User-Agent": true, "X-Amzn-Trace-Id": true, "Expect": true, "Transfer-Encoding": true}

func signedCopy(r *http.Request, a *sigAuth) *http.Request {
	scheme, host := requestOrigin(r)
	rawQuery := r.URL.RawQuery
	if a.presigned {
		q := r.URL.Query()
		q.Del("X-Amz-Signature")
		rawQuery = q.Encode()
	}
	req := &http.Request{
		Method: r.Method,
		URL:    &url.URL{Scheme: scheme, Host: host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: rawQuery},
		Host:   host,
		Header: make(http.Header, strings.Count(a.signedHeaders, ";")+1),
	}
	for name := range strings.SplitSeq(a.signedHeaders, ";") {
		switch name = strings.ToLower(name); name {
		case "host", "authorization", "":
		case "content-length":
			v := r.Header.Get("Content-Length")
			if v == "" {
				v = strconv.FormatInt(r.ContentLength, 10)
			}
			req.ContentLength, _ = strconv.ParseInt(v, 10, 64)
		default:
			key := textproto.CanonicalMIMEHeaderKey(name)
			if v, ok := r.Header[key]; ok {
				if key == "X-Amz-Date" {
					v = slices.Clone(v) // SignHTTP overwrites it in place
				}
				if signerSkips[key] {
					// The SDK's signer leaves these out by their canonical key (its
					// IgnoredHeaders rule matches the map key as written); under the lower-case
					// name the client signed it signs them as the client did.
					key = name
				}
				req.Header[key] = v
			}
		}
	}
	return req
}

// signingLog receives the canonical request and the string to sign of the SDK's signer,
// which it logs with LogSigning.
type signingLog struct{ canonical, stringToSign string }

func (l *signingLog) Logf(_ logging.Classification, _ string, v ...any) {
	if len(v) >= 2 {
		l.canonical, _ = v[0].(string)
		l.stringToSign, _ = v[1].(string)
	}
}

// verifyRequest is signed mode (WithCredentials) for a companion that serves another
// service's wire beside the fake's (companion.VerifyRequest, which documents it): it checks
// the request's SigV4 signature for service with every guard the fake's own wire applies,
// and returns the Identity the request acts as; signed is false, with no error, when the
// fake is not in signed mode.
func (f *Fake) verifyRequest(r *http.Request, body []byte, service string) (id Identity, signed bool, err *bridge.SignatureError) {
	if f.creds == nil {
		return Identity{}, false, nil
	}
	w, serr := verifyFor(r, body, f.creds, time.Now(), service)
	if serr != nil {
		return Identity{}, true, &bridge.SignatureError{Code: serr.code, Message: serr.message, Status: serr.status}
	}
	return Identity{AccountID: w.account, Region: w.region, PrincipalARN: w.principal, OrgID: w.orgID}, true, nil
}

package sqsfake

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The clock of the signing tests: requests are signed at sigT0 unless a row says otherwise.
var sigT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	sigHost     = "127.0.0.1:9324"
	emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	jsonBody    = `{"QueueUrl":"http://127.0.0.1:9324/123456789012/jobs","MessageBody":"hi"}`
	queryForm   = "Action=SendMessage&MessageBody=hi&QueueUrl=http%3A%2F%2F127.0.0.1%3A9324%2F123456789012%2Fjobs&Version=2012-11-05"
)

// testCredentials is the set the signing tests verify against.
func testCredentials(t testing.TB) *credentialSet {
	t.Helper()
	set, err := newCredentialSet([]Credential{
		{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", PrincipalARN: "arn:aws:iam::111122223333:user/alice", OrgID: "o-a1b2c3d4e5"},
		{AccessKeyID: "444455556666", SecretAccessKey: "other-secret"},
		{AccessKeyID: "AKIDBOTOCORE", SecretAccessKey: "botocore-secret", AccountID: "777788889999"},
	}, DefaultAccountID, "aws")
	require.NoError(t, err)
	return set
}

// sigRequest is a request as the server receives it, unsigned.
func sigRequest(method, target, body string, header map[string]string) *http.Request {
	r := httptest.NewRequest(method, "http://"+sigHost+target, strings.NewReader(body))
	for k, v := range header {
		r.Header.Set(k, v)
	}
	return r
}

// jsonRequest is an unsigned awsJson1_0 SendMessage.
func jsonRequest(body string) *http.Request {
	return sigRequest("POST", "/", body, map[string]string{"Content-Type": jsonContentType, "X-Amz-Target": "AmazonSQS.SendMessage"})
}

// signHeader signs r in place with the SDK's signer, as the Go SDK does.
func signHeader(t testing.TB, r *http.Request, key, secret, token, region string, at time.Time, body string) *http.Request {
	t.Helper()
	creds := aws.Credentials{AccessKeyID: key, SecretAccessKey: secret, SessionToken: token}
	require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), creds, r, sha256Hex(body), "sqs", region, at))
	return r
}

// presign returns a server-side copy of r signed in its query, as a presigner makes it, with
// the given payload hash and X-Amz-Expires (0: none).
func presign(t testing.TB, r *http.Request, key, secret, region string, at time.Time, payloadHash string, expires int) *http.Request {
	t.Helper()
	if expires > 0 {
		q := r.URL.Query()
		q.Set("X-Amz-Expires", strconv.Itoa(expires))
		r.URL.RawQuery = q.Encode()
	}
	creds := aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}
	u, header, err := v4.NewSigner().PresignHTTP(context.Background(), creds, r, payloadHash, "sqs", region, at)
	require.NoError(t, err)
	out := httptest.NewRequest(r.Method, u, nil)
	for k, v := range header {
		if k != "Host" {
			out.Header[k] = v
		}
	}
	return out
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// sigMismatch is the SignatureDoesNotMatch SQS answers for a request whose canonical form is
// canonical, signed at date for scope.
func sigMismatch(canonical, date, scope string) *sigError {
	sts := "AWS4-HMAC-SHA256\n" + date + "\n" + scope + "\n" + sha256Hex(canonical)
	return errSignatureDoesNotMatch(sigMismatchText + "\n\nThe Canonical String for this request should have been\n'" +
		canonical + "'\n\nThe String-to-Sign should have been\n'" + sts + "'\n")
}

func TestVerifyAcceptsWhatClientsSign(t *testing.T) {
	creds := testCredentials(t)
	alice := wireIdentity{accessKey: "AKIDEXAMPLE", region: "us-east-1", account: "111122223333",
		principal: "arn:aws:iam::111122223333:user/alice", orgID: "o-a1b2c3d4e5", signed: true}
	tests := []struct {
		name string
		req  func(t *testing.T) *http.Request
		now  time.Time
		want wireIdentity
	}{
		{
			name: "JSON protocol POST",
			req: func(t *testing.T) *http.Request {
				return signHeader(t, jsonRequest(jsonBody), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, jsonBody)
			},
			want: alice,
		},
		{
			name: "query protocol form POST",
			req: func(t *testing.T) *http.Request {
				r := sigRequest("POST", "/", queryForm, map[string]string{"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
				return signHeader(t, r, "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, queryForm)
			},
			want: alice,
		},
		{
			name: "query protocol GET with a query string to canonicalize",
			req: func(t *testing.T) *http.Request {
				r := sigRequest("GET", "/123456789012/jobs?Version=2012-11-05&Action=SendMessage&MessageBody=a%20b%2Bc~&Attribute.1=x", "", nil)
				return signHeader(t, r, "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, "")
			},
			want: alice,
		},
		{
			name: "12-digit key without an account: the key is the account, its root the principal",
			req: func(t *testing.T) *http.Request {
				return signHeader(t, jsonRequest(jsonBody), "444455556666", "other-secret", "", "eu-central-1", sigT0, jsonBody)
			},
			want: wireIdentity{accessKey: "444455556666", region: "eu-central-1", account: "444455556666",
				principal: "arn:aws:iam::444455556666:root", signed: true},
		},
		{
			name: "a session token, signed as sent, is not checked",
			req: func(t *testing.T) *http.Request {
				return signHeader(t, jsonRequest(jsonBody), "AKIDEXAMPLE", "secret", "FwoGZXIvYXdzEXAMPLE", "us-east-1", sigT0, jsonBody)
			},
			want: alice,
		},
		{
			// The AWS SDK for Java v1 signs user-agent, which the Go signer never signs on its
			// own: a lower-case key gets it past the signer's exclusion here, and the request
			// arrives with the canonical key, as over the wire.
			name: "a client that signed user-agent and x-amzn-trace-id (Java SDK v1)",
			req: func(t *testing.T) *http.Request {
				r := jsonRequest(jsonBody)
				r.Header["user-agent"] = []string{"aws-sdk-java/1.12.261 Linux/6.1"}
				r.Header["x-amzn-trace-id"] = []string{"Root=1-5759e988-bd862e3fe1be46a994272793"}
				r = signHeader(t, r, "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, jsonBody)
				require.Contains(t, r.Header.Get("Authorization"), "user-agent", "the fixture signs user-agent")
				for _, k := range []string{"user-agent", "x-amzn-trace-id"} {
					v := r.Header[k]
					delete(r.Header, k)
					r.Header[textproto.CanonicalMIMEHeaderKey(k)] = v
				}
				return r
			},
			want: alice,
		},
		{
			name: "a header added after signing does not matter",
			req: func(t *testing.T) *http.Request {
				r := signHeader(t, jsonRequest(jsonBody), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, jsonBody)
				r.Header.Set("X-Forwarded-For", "10.0.0.1")
				r.Header.Set("User-Agent", "proxy/1.0")
				return r
			},
			want: alice,
		},
		{
			name: "a header of several values with spaces to trim",
			req: func(t *testing.T) *http.Request {
				r := jsonRequest(jsonBody)
				r.Header["X-Amz-Meta-Note"] = []string{"  a   b ", "c"}
				return signHeader(t, r, "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, jsonBody)
			},
			want: alice,
		},
		{
			name: "signed exactly 15 minutes ago",
			req: func(t *testing.T) *http.Request {
				return signHeader(t, jsonRequest(jsonBody), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, jsonBody)
			},
			now:  sigT0.Add(15*time.Minute + 999*time.Millisecond),
			want: alice,
		},
		{
			name: "signed 15 minutes ahead",
			req: func(t *testing.T) *http.Request {
				return signHeader(t, jsonRequest(jsonBody), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0.Add(15*time.Minute), jsonBody)
			},
			want: alice,
		},
		{
			name: "presigned GET, SHA-256 of the empty body",
			req: func(t *testing.T) *http.Request {
				r := sigRequest("GET", "/123456789012/jobs?Action=ReceiveMessage&Version=2012-11-05", "", nil)
				return presign(t, r, "AKIDEXAMPLE", "secret", "us-east-1", sigT0, emptySHA256, 300)
			},
			want: alice,
		},
		{
			name: "presigned GET with UNSIGNED-PAYLOAD",
			req: func(t *testing.T) *http.Request {
				r := sigRequest("GET", "/?Action=ListQueues&Version=2012-11-05", "", nil)
				return presign(t, r, "AKIDEXAMPLE", "secret", "us-east-1", sigT0, "UNSIGNED-PAYLOAD", 0)
			},
			want: alice,
		},
		{
			name: "presigned URL past its X-Amz-Expires but within 15 minutes: SQS ignores X-Amz-Expires",
			req: func(t *testing.T) *http.Request {
				r := sigRequest("GET", "/?Action=ListQueues&Version=2012-11-05", "", nil)
				return presign(t, r, "AKIDEXAMPLE", "secret", "us-east-1", sigT0, emptySHA256, 60)
			},
			now:  sigT0.Add(10 * time.Minute),
			want: alice,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.req(t)
			before := r.Header.Clone()
			body, err := io.ReadAll(r.Body)
			require.NoError(t, err)
			now := tt.now
			if now.IsZero() {
				now = sigT0
			}
			got, serr := verifySignature(r, body, creds, now)
			require.Nil(t, serr)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, before, r.Header, "verify changed the request's headers")
		})
	}
}

// botocoreFixture is testdata/sigv4_botocore.json, written by testdata/sigv4_botocore.py.
type botocoreFixture struct {
	Requests []struct {
		Name    string      `json:"name"`
		Method  string      `json:"method"`
		URL     string      `json:"url"`
		Headers [][2]string `json:"headers"`
		Body    string      `json:"body"`
	} `json:"requests"`
}

func TestVerifyAcceptsBotocoreSignatures(t *testing.T) {
	raw, err := os.ReadFile("testdata/sigv4_botocore.json")
	require.NoError(t, err)
	var fx botocoreFixture
	require.NoError(t, json.Unmarshal(raw, &fx))
	require.Len(t, fx.Requests, 4)
	creds := testCredentials(t)
	want := wireIdentity{accessKey: "AKIDBOTOCORE", region: "eu-west-1", account: "777788889999",
		principal: "arn:aws:iam::777788889999:root", signed: true}
	for _, req := range fx.Requests {
		t.Run(req.Name, func(t *testing.T) {
			r := httptest.NewRequest(req.Method, req.URL, strings.NewReader(req.Body))
			for _, h := range req.Headers {
				r.Header.Add(h[0], h[1])
			}
			got, serr := verifySignature(r, []byte(req.Body), creds, sigT0.Add(3*time.Minute))
			require.Nil(t, serr)
			assert.Equal(t, want, got)

			// The same request with its body or query changed no longer verifies.
			if req.Body != "" {
				_, serr = verifySignature(r, []byte(req.Body+" "), creds, sigT0)
			} else {
				r.URL.RawQuery = strings.Replace(r.URL.RawQuery, "Version=2012-11-05", "Version=2012-11-06", 1)
				_, serr = verifySignature(r, nil, creds, sigT0)
			}
			require.NotNil(t, serr)
			assert.Equal(t, "SignatureDoesNotMatch", serr.code)
		})
	}
}

// TestVerifyGoSDKClient sends requests of a real *sqs.Client, signed by its own middleware
// at the real time, to a loopback server that verifies them.
func TestVerifyGoSDKClient(t *testing.T) {
	creds := testCredentials(t)
	var mu sync.Mutex
	var got []wireIdentity
	var refusals []*sigError
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id, serr := verifySignature(r, body, creds, time.Now())
		mu.Lock()
		got, refusals = append(got, id), append(refusals, serr)
		mu.Unlock()
		w.Header().Set("Content-Type", jsonContentType)
		io.WriteString(w, `{"MessageId":"m","MD5OfMessageBody":"49f68a5c8493ec2c0bf489821c21fc3b"}`)
	}))
	defer srv.Close()
	client := func(key, secret string) *sqs.Client {
		return sqs.New(sqs.Options{
			Region:       "ap-southeast-2",
			BaseEndpoint: aws.String(srv.URL),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, nil
			}),
			Retryer: aws.NopRetryer{},
		})
	}
	in := &sqs.SendMessageInput{QueueUrl: aws.String(srv.URL + "/123456789012/jobs"), MessageBody: aws.String("hi")}
	_, err := client("AKIDEXAMPLE", "secret").SendMessage(context.Background(), in)
	require.NoError(t, err)
	_, err = client("AKIDEXAMPLE", "not-the-secret").SendMessage(context.Background(), in)
	require.NoError(t, err) // the test server answers every request alike

	require.Len(t, got, 2)
	assert.Nil(t, refusals[0])
	assert.Equal(t, wireIdentity{accessKey: "AKIDEXAMPLE", region: "ap-southeast-2", account: "111122223333",
		principal: "arn:aws:iam::111122223333:user/alice", orgID: "o-a1b2c3d4e5", signed: true}, got[0])
	require.NotNil(t, refusals[1])
	assert.Equal(t, "SignatureDoesNotMatch", refusals[1].code)
	assert.Equal(t, http.StatusForbidden, refusals[1].status)
}

func TestVerifyRefusesAsSQSDoes(t *testing.T) {
	creds := testCredentials(t)
	const scope = "20260101/us-east-1/sqs/aws4_request"
	listQueues := func() *http.Request { return sigRequest("GET", "/?Action=ListQueues&Version=2012-11-05", "", nil) }
	withAuth := func(auth string) func(t *testing.T) *http.Request {
		return func(t *testing.T) *http.Request {
			r := listQueues()
			r.Header.Set("X-Amz-Date", "20260101T000000Z")
			r.Header.Set("Authorization", auth)
			return r
		}
	}
	tests := []struct {
		name string
		req  func(t *testing.T) *http.Request
		body string // the body verify is given, if not the request's
		now  time.Time
		want *sigError
	}{
		{
			name: "unsigned",
			req:  func(t *testing.T) *http.Request { return listQueues() },
			want: &sigError{code: "AccessDenied", shape: "AccessDeniedException", status: 403,
				message: "Access to the resource http://127.0.0.1:9324/ is denied."},
		},
		{
			name: "an Authorization header that is not SigV4 is no signature",
			req:  withAuth("Bearer abc"),
			want: &sigError{code: "AccessDenied", shape: "AccessDeniedException", status: 403,
				message: "Access to the resource http://127.0.0.1:9324/ is denied."},
		},
		{
			name: "unknown access key",
			req: func(t *testing.T) *http.Request {
				return signHeader(t, listQueues(), "AKIDUNKNOWN", "secret", "", "us-east-1", sigT0, "")
			},
			want: &sigError{code: "InvalidClientTokenId", shape: "UnrecognizedClientException", status: 403,
				message: "The security token included in the request is invalid."},
		},
		{
			name: "wrong secret",
			req: func(t *testing.T) *http.Request {
				return signHeader(t, listQueues(), "AKIDEXAMPLE", "not-the-secret", "", "us-east-1", sigT0, "")
			},
			want: sigMismatch("GET\n/\nAction=ListQueues&Version=2012-11-05\nhost:127.0.0.1:9324\nx-amz-date:20260101T000000Z\n\nhost;x-amz-date\n"+emptySHA256,
				"20260101T000000Z", scope),
		},
		{
			name: "JSON body changed after signing",
			req: func(t *testing.T) *http.Request {
				r := signHeader(t, jsonRequest(jsonBody), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, jsonBody)
				r.Header.Set("Content-Length", "74")
				return r
			},
			body: strings.Replace(jsonBody, `"hi"`, `"ho"`, 1),
			want: sigMismatch("POST\n/\n\ncontent-length:74\ncontent-type:application/x-amz-json-1.0\nhost:127.0.0.1:9324\n"+
				"x-amz-date:20260101T000000Z\nx-amz-target:AmazonSQS.SendMessage\n\n"+
				"content-length;content-type;host;x-amz-date;x-amz-target\n"+sha256Hex(strings.Replace(jsonBody, `"hi"`, `"ho"`, 1)),
				"20260101T000000Z", scope),
		},
		{
			name: "query form changed after signing",
			req: func(t *testing.T) *http.Request {
				r := sigRequest("POST", "/", queryForm, map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
				return signHeader(t, r, "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, queryForm)
			},
			body: strings.Replace(queryForm, "MessageBody=hi", "MessageBody=ho", 1),
			want: sigMismatch("POST\n/\n\ncontent-length:113\ncontent-type:application/x-www-form-urlencoded\nhost:127.0.0.1:9324\n"+
				"x-amz-date:20260101T000000Z\n\ncontent-length;content-type;host;x-amz-date\n"+
				sha256Hex(strings.Replace(queryForm, "MessageBody=hi", "MessageBody=ho", 1)),
				"20260101T000000Z", scope),
		},
		{
			name: "a signed header changed after signing",
			req: func(t *testing.T) *http.Request {
				r := signHeader(t, jsonRequest(jsonBody), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, jsonBody)
				r.Header.Set("X-Amz-Target", "AmazonSQS.DeleteQueue")
				r.Header.Set("Content-Length", "74")
				return r
			},
			want: sigMismatch("POST\n/\n\ncontent-length:74\ncontent-type:application/x-amz-json-1.0\nhost:127.0.0.1:9324\n"+
				"x-amz-date:20260101T000000Z\nx-amz-target:AmazonSQS.DeleteQueue\n\n"+
				"content-length;content-type;host;x-amz-date;x-amz-target\n"+sha256Hex(jsonBody),
				"20260101T000000Z", scope),
		},
		{
			name: "signed 30 minutes ago",
			req: func(t *testing.T) *http.Request {
				return signHeader(t, listQueues(), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, "")
			},
			now:  sigT0.Add(30 * time.Minute),
			want: errSignatureDoesNotMatch("Signature expired: 20260101T000000Z is now earlier than 20260101T001500Z (20260101T003000Z - 15 min.)"),
		},
		{
			name: "signed 15 minutes and 1 second ago",
			req: func(t *testing.T) *http.Request {
				return signHeader(t, listQueues(), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, "")
			},
			now:  sigT0.Add(15*time.Minute + time.Second),
			want: errSignatureDoesNotMatch("Signature expired: 20260101T000000Z is now earlier than 20260101T000001Z (20260101T001501Z - 15 min.)"),
		},
		{
			name: "signed 30 minutes ahead",
			req: func(t *testing.T) *http.Request {
				return signHeader(t, listQueues(), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0.Add(30*time.Minute), "")
			},
			want: errSignatureDoesNotMatch("Signature not yet current: 20260101T003000Z is still later than 20260101T001500Z (20260101T000000Z + 15 min.)"),
		},
		{
			name: "presigned URL 16 minutes old",
			req: func(t *testing.T) *http.Request {
				return presign(t, listQueues(), "AKIDEXAMPLE", "secret", "us-east-1", sigT0, emptySHA256, 3600)
			},
			now:  sigT0.Add(16 * time.Minute),
			want: errSignatureDoesNotMatch("Signature expired: 20260101T000000Z is now earlier than 20260101T000100Z (20260101T001600Z - 15 min.)"),
		},
		{
			name: "presigned with the wrong secret",
			req: func(t *testing.T) *http.Request {
				return presign(t, listQueues(), "AKIDEXAMPLE", "not-the-secret", "us-east-1", sigT0, emptySHA256, 0)
			},
			want: sigMismatch("GET\n/\nAction=ListQueues&Version=2012-11-05&X-Amz-Algorithm=AWS4-HMAC-SHA256&"+
				"X-Amz-Credential=AKIDEXAMPLE%2F20260101%2Fus-east-1%2Fsqs%2Faws4_request&X-Amz-Date=20260101T000000Z&"+
				"X-Amz-SignedHeaders=host\nhost:127.0.0.1:9324\n\nhost\n"+emptySHA256,
				"20260101T000000Z", scope),
		},
		{
			name: "presigned without X-Amz-Signature and X-Amz-Date",
			req: func(t *testing.T) *http.Request {
				return sigRequest("GET", "/?Action=ListQueues&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F"+scope+"&X-Amz-SignedHeaders=host", "", nil)
			},
			want: errIncompleteSignature("AWS query-string parameters must include 'X-Amz-Signature'. " +
				"AWS query-string parameters must include 'X-Amz-Date'. Re-examine the query-string parameters."),
		},
		{
			name: "Authorization without Signature",
			req:  withAuth("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/" + scope + ", SignedHeaders=host;x-amz-date"),
			want: errIncompleteSignature("Authorization header requires 'Signature' parameter. " +
				"Authorization=AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/" + scope + ", SignedHeaders=host;x-amz-date"),
		},
		{
			name: "Authorization with the algorithm alone and no date",
			req: func(t *testing.T) *http.Request {
				r := listQueues()
				r.Header.Set("Authorization", "AWS4-HMAC-SHA256")
				return r
			},
			want: errIncompleteSignature("Authorization header requires 'Credential' parameter. " +
				"Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. " +
				"Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-HMAC-SHA256"),
		},
		{
			name: "a part without an equal sign",
			req:  withAuth("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE /" + scope + ", SignedHeaders=host;x-amz-date, Signature=00"),
			want: errIncompleteSignature("'/" + scope + "' not a valid key=value pair (missing equal-sign) in Authorization header: " +
				"'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE /" + scope + ", SignedHeaders=host;x-amz-date, Signature=00'."),
		},
		{
			name: "X-Amz-Date not in the basic format",
			req: func(t *testing.T) *http.Request {
				r := withAuth("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/" + scope + ", SignedHeaders=host;x-amz-date, Signature=00")(t)
				r.Header.Set("X-Amz-Date", "2026-01-01T00:00:00Z")
				return r
			},
			want: errIncompleteSignature("Date must be in ISO-8601 'basic format'. Got '2026-01-01T00:00:00Z'. See http://en.wikipedia.org/wiki/ISO_8601"),
		},
		{
			name: "host not signed",
			req:  withAuth("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/" + scope + ", SignedHeaders=x-amz-date, Signature=00"),
			want: errSignatureDoesNotMatch("'Host' must be a 'SignedHeader' in the AWS Authorization."),
		},
		{
			name: "another algorithm",
			req:  withAuth("AWS4-HMAC-SHA512 Credential=AKIDEXAMPLE/" + scope + ", SignedHeaders=host;x-amz-date, Signature=00"),
			want: errIncompleteSignature("Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA512' (only AWS4-HMAC-SHA256 for now). "),
		},
		{
			name: "a credential of four parts",
			req:  withAuth("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/sqs, SignedHeaders=host;x-amz-date, Signature=00"),
			want: errIncompleteSignature("Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'AKIDEXAMPLE/20260101/us-east-1/sqs'"),
		},
		{
			name: "scoped to another service",
			req: func(t *testing.T) *http.Request {
				r := listQueues()
				creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}
				require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), creds, r, emptySHA256, "s3", "us-east-1", sigT0))
				return r
			},
			want: errSignatureDoesNotMatch("Credential should be scoped to correct service: 'sqs'. "),
		},
		{
			name: "scoped to no region",
			req: func(t *testing.T) *http.Request {
				return signHeader(t, listQueues(), "AKIDEXAMPLE", "secret", "", "queue", sigT0, "")
			},
			want: errSignatureDoesNotMatch("Credential should be scoped to a valid region, not 'queue'. "),
		},
		{
			name: "scope of another day than X-Amz-Date",
			req:  withAuth("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20251231/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=00"),
			want: errSignatureDoesNotMatch("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: " +
				"'20251231' != '20260101', from '20260101T000000Z'. "),
		},
		{
			name: "every part of the scope wrong",
			req:  withAuth("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/b/c/d/e, SignedHeaders=host;x-amz-date, Signature=00"),
			want: errSignatureDoesNotMatch("Credential should be scoped to a valid region, not 'c'. " +
				"Credential should be scoped to correct service: 'sqs'. " +
				"Credential should be scoped with a valid terminator: 'aws4_request', not 'e'. " +
				"Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: 'b' != '20260101', from '20260101T000000Z'. "),
		},
		{
			name: "only a Date header: its time is checked",
			req: func(t *testing.T) *http.Request {
				r := listQueues()
				r.Header.Set("Date", "Thu, 01 Jan 2026 00:00:00 GMT")
				r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"+scope+", SignedHeaders=date;host, Signature=00")
				return r
			},
			now:  sigT0.Add(time.Hour),
			want: errSignatureDoesNotMatch("Signature expired: 20260101T000000Z is now earlier than 20260101T004500Z (20260101T010000Z - 15 min.)"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.req(t)
			body, err := io.ReadAll(r.Body)
			require.NoError(t, err)
			if tt.body != "" {
				body = []byte(tt.body)
			}
			now := tt.now
			if now.IsZero() {
				now = sigT0
			}
			got, serr := verifySignature(r, body, creds, now)
			assert.Equal(t, wireIdentity{}, got)
			assert.Equal(t, tt.want, serr)
		})
	}
}

func TestSigErrorWire(t *testing.T) {
	assert.Equal(t, &wireError{status: 403, typ: "com.amazon.coral.service#InvalidSignatureException",
		query: "SignatureDoesNotMatch;Sender", message: "m"}, errSignatureDoesNotMatch("m").wire())
	assert.Equal(t, &wireError{status: 400, typ: "com.amazon.coral.service#IncompleteSignatureException",
		query: "IncompleteSignature;Sender", message: "m"}, errIncompleteSignature("m").wire())
	assert.Equal(t, &wireError{status: 403, typ: "com.amazon.coral.service#UnrecognizedClientException",
		query: "InvalidClientTokenId;Sender", message: "The security token included in the request is invalid."}, errUnknownAccessKey().wire())
}

func TestVerifyWithNoCredentialsKnowsNoKey(t *testing.T) {
	r := signHeader(t, jsonRequest(jsonBody), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, jsonBody)
	_, serr := verifySignature(r, []byte(jsonBody), nil, sigT0)
	assert.Equal(t, errUnknownAccessKey(), serr)
}

func TestIdentifyReadsTheCredentialScope(t *testing.T) {
	const sig = ", SignedHeaders=host;x-amz-date, Signature=abc"
	tests := []struct {
		name   string
		auth   string // the Authorization header, if any
		target string
		want   wireIdentity
	}{
		{"no credentials", "", "/", wireIdentity{}},
		{"header", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/eu-west-1/sqs/aws4_request" + sig, "/",
			wireIdentity{accessKey: "AKIDEXAMPLE", region: "eu-west-1"}},
		{"12-digit key is the account", "AWS4-HMAC-SHA256 Credential=111122223333/20260101/us-gov-west-1/sqs/aws4_request" + sig, "/",
			wireIdentity{accessKey: "111122223333", region: "us-gov-west-1", account: "111122223333"}},
		{"13-digit key is no account", "AWS4-HMAC-SHA256 Credential=1111222233334/20260101/us-east-1/sqs/aws4_request" + sig, "/",
			wireIdentity{accessKey: "1111222233334", region: "us-east-1"}},
		{"Credential after the other parts", "AWS4-HMAC-SHA256 SignedHeaders=host,Signature=abc,Credential=test/20260101/us-east-1/sqs/aws4_request", "/",
			wireIdentity{accessKey: "test", region: "us-east-1"}},
		{"a key holding a slash", "AWS4-HMAC-SHA256 Credential=a/b/20260101/us-east-1/sqs/aws4_request" + sig, "/",
			wireIdentity{accessKey: "a/b", region: "us-east-1"}},
		{"no region name", "AWS4-HMAC-SHA256 Credential=test/20260101/queue/sqs/aws4_request" + sig, "/",
			wireIdentity{accessKey: "test"}},
		{"too few parts", "AWS4-HMAC-SHA256 Credential=test/us-east-1/sqs/aws4_request" + sig, "/", wireIdentity{}},
		{"no Credential", "AWS4-HMAC-SHA256 SignedHeaders=host, Signature=abc, MyCredential=x/a/b/c/d", "/", wireIdentity{}},
		{"not SigV4", "Bearer abc", "/", wireIdentity{}},
		{"presigned", "", "/?Action=ListQueues&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=222233334444%2F20260101%2Fap-south-1%2Fsqs%2Faws4_request&X-Amz-Signature=abc",
			wireIdentity{accessKey: "222233334444", region: "ap-south-1", account: "222233334444"}},
		{"presigned, malformed escape", "", "/?X-Amz-Credential=%zz", wireIdentity{}},
		{"a parameter ending in X-Amz-Credential is not it", "", "/?MyX-Amz-Credential=k%2F20260101%2Fap-south-1%2Fsqs%2Faws4_request", wireIdentity{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sigRequest("POST", tt.target, "", nil)
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			assert.Equal(t, tt.want, identify(r))
		})
	}
}

// regionForm is the region rule as a regular expression, the reference isRegionName is checked
// against.
var regionForm = regexp.MustCompile(`^[a-z]{2,}(-[a-z]+)+-[0-9]+$`)

func TestIsRegionNameTellsARegionsForm(t *testing.T) {
	for _, s := range []string{"us-east-1", "us-gov-west-1", "eusc-de-east-1", "cn-northwest-1", "il-central-1",
		"", "us", "us-east", "u-east-1", "us--1", "us-east-", "US-east-1", "us-east-1a", "us-1", "queue", "us-ea5t-1", "-east-1"} {
		assert.Equal(t, regionForm.MatchString(s), isRegionName(s), s)
	}
}

func BenchmarkVerifySigV4(b *testing.B) {
	creds := testCredentials(b)
	r := signHeader(b, jsonRequest(jsonBody), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, jsonBody)
	body := []byte(jsonBody)
	b.ReportAllocs()
	for b.Loop() {
		if _, serr := verifySignature(r, body, creds, sigT0); serr != nil {
			b.Fatal(serr)
		}
	}
}

func BenchmarkIdentify(b *testing.B) {
	r := signHeader(b, jsonRequest(jsonBody), "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, jsonBody)
	b.ReportAllocs()
	for b.Loop() {
		if identify(r).region != "us-east-1" {
			b.Fatal("no region")
		}
	}
}

// FuzzSigV4 feeds arbitrary Authorization headers and query strings to identify and verify:
// neither panics, identify's account is a 12-digit key or nothing, and verify accepts
// nothing it was not given a valid signature for.
func FuzzSigV4(f *testing.F) {
	f.Add("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=00", "Action=ListQueues", "20260101T000000Z")
	f.Add("AWS4-", "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=a%2Fb%2Fc%2Fd%2Fe&X-Amz-Signature=1", "2026")
	f.Add("", "X-Amz-Credential=111122223333%2F20260101%2Fus-east-1%2Fsqs%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-SignedHeaders=host&X-Amz-Signature=1&X-Amz-Algorithm=AWS4-HMAC-SHA256", "")
	f.Add("AWS4-HMAC-SHA256 Credential=//// ,SignedHeaders=;;HOST;, Signature==", "%", "20261301T250000Z")
	// Issue 25: a ';' pair before a query, a scope with a region that cannot exist, a long date.
	f.Add("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=00", "QueueUrl=http://x;/1/q&Action=ListQueues", "20260101T000000Z")
	f.Add("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-"+strings.Repeat("east-", 40)+"1/sqs/aws4_request, SignedHeaders=host, Signature=00", "", "20260101T000000Z")
	f.Add("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00", "", strings.Repeat("2026", 1000))
	creds := testCredentials(f)
	f.Fuzz(func(t *testing.T, auth, rawQuery, date string) {
		r := httptest.NewRequest("POST", "http://"+sigHost+"/", strings.NewReader("x"))
		r.URL.RawQuery = rawQuery
		if auth != "" {
			r.Header["Authorization"] = []string{auth}
		}
		if date != "" {
			r.Header["X-Amz-Date"] = []string{date}
		}
		id := identify(r)
		if id.account != "" && id.account != id.accessKey {
			t.Fatalf("identify: account %q of key %q", id.account, id.accessKey)
		}
		got, serr := verifySignature(r, []byte("x"), creds, sigT0)
		if serr == nil {
			t.Fatalf("verify accepted %+v", got)
		}
	})
}

// signByHand signs r as SigV4 says, over exactly the named headers (lower-case, sorted) with
// the values given, for service at t: the way botocore's SigV4Auth signs a POST whose
// parameters are in the query and whose body is empty, content-length:0 included — which
// the SDK's signer never signs.
func signByHand(r *http.Request, key, secret, region, service string, at time.Time, headers [][2]string) {
	date := at.UTC().Format("20060102T150405Z")
	var canon, signed []string
	for _, h := range headers {
		canon = append(canon, h[0]+":"+h[1])
		signed = append(signed, h[0])
	}
	canonical := r.Method + "\n/\n" + r.URL.RawQuery + "\n" + strings.Join(canon, "\n") + "\n\n" + strings.Join(signed, ";") + "\n" + emptySHA256
	scope := date[:8] + "/" + region + "/" + service + "/aws4_request"
	sts := "AWS4-HMAC-SHA256\n" + date + "\n" + scope + "\n" + sha256Hex(canonical)
	mac := func(k []byte, s string) []byte { h := hmac.New(sha256.New, k); h.Write([]byte(s)); return h.Sum(nil) }
	k := mac(mac(mac(mac([]byte("AWS4"+secret), date[:8]), region), service), "aws4_request")
	r.Header.Set("X-Amz-Date", date)
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+key+"/"+scope+", SignedHeaders="+strings.Join(signed, ";")+
		", Signature="+hex.EncodeToString(mac(k, sts)))
}

// A POST with its parameters in the query, an empty body and content-length:0 among its
// signed headers (botocore's SigV4Auth signs it so) verifies, as on AWS.
func TestVerifyAcceptsASignedEmptyContentLength(t *testing.T) {
	creds := testCredentials(t)
	r := httptest.NewRequest(http.MethodPost, "http://"+sigHost+"/?Action=ListQueues&Version=2012-11-05", http.NoBody)
	r.ContentLength = 0
	r.Header.Set("Content-Length", "0")
	signByHand(r, "AKIDBOTOCORE", "botocore-secret", "eu-west-1", "sqs", sigT0, [][2]string{
		{"content-length", "0"}, {"host", sigHost}, {"x-amz-date", sigT0.UTC().Format("20060102T150405Z")}})
	got, serr := verifySignature(r, nil, creds, sigT0)
	require.Nil(t, serr)
	assert.Equal(t, "777788889999", got.account)

	r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), "Signature=", "Signature=0", 1))
	_, serr = verifySignature(r, nil, creds, sigT0)
	require.NotNil(t, serr)
	assert.Equal(t, "SignatureDoesNotMatch", serr.code)
	assert.Contains(t, serr.message, "content-length:0\nhost:", "the canonical request quoted signs content-length")
}

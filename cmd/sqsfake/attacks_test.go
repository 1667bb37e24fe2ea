package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/internal/memtest"
)

// The attacks of issue 25 through the server; wire_attacks_test.go drives them through
// Handler().

const (
	ownerKey, ownerSecret       = "111111111111", "owner-secret"
	strangerKey, strangerSecret = "222222222222", "stranger-secret"
	controlToken                = "attack-control-token"
)

// credentialsFile writes a -credentials file of the owner's and a stranger's keys.
func credentialsFile(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "credentials.json")
	require.NoError(t, os.WriteFile(file, []byte(`[{"accessKeyId": "`+ownerKey+`", "secretAccessKey": "`+ownerSecret+`"},
 {"accessKeyId": "`+strangerKey+`", "secretAccessKey": "`+strangerSecret+`"}]`), 0o600))
	return file
}

// signedServer starts a signed-mode server with the owner's queues "mine" and "other",
// each holding one message.
func signedServer(t *testing.T, args ...string) (s *testServer, mine, other string) {
	t.Helper()
	s = start(t, append([]string{"-clock", "virtual", "-credentials", credentialsFile(t), "-control-token", controlToken}, args...)...)
	owner := s.clientAs(ownerKey, ownerSecret)
	ctx := context.Background()
	for _, name := range []string{"mine", "other"} {
		q, err := owner.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
		require.NoError(t, err)
		_, err = owner.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(name + "'s message")})
		require.NoError(t, err)
	}
	return s, s.endpoint + "/" + ownerKey + "/mine", s.endpoint + "/" + ownerKey + "/other"
}

func (s *testServer) clientAs(key, secret string) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, nil
		}),
		RetryMaxAttempts: 1,
	})
}

// messagesOf returns the bodies and states of a queue's messages, read with the control
// token.
func (s *testServer) messagesOf(t *testing.T, queue string) map[string]string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.endpoint+"/_sqsfake/state?queue="+url.QueryEscape(s.endpoint+"/"+ownerKey+"/"+queue), nil)
	require.NoError(t, err)
	req.Header.Set("X-Sqsfake-Control", controlToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var state struct {
		Queues []struct {
			Messages []struct{ Body, State string } `json:"messages"`
		} `json:"queues"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&state))
	got := map[string]string{}
	for _, q := range state.Queues {
		for _, m := range q.Messages {
			got[m.Body] = m.State
		}
	}
	return got
}

func signed(t *testing.T, r *http.Request, body string) *http.Request {
	t.Helper()
	sum := sha256Hex(body)
	require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: ownerKey, SecretAccessKey: ownerSecret}, r, sum, "sqs", "us-east-1", time.Now()))
	return r
}

func do(t *testing.T, r *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAttacksOnWhatIsSignedFailThroughTheServer(t *testing.T) {
	s, mine, other := signedServer(t)
	esc := func(u string) string { return strings.ReplaceAll(strings.ReplaceAll(u, ":", "%3A"), "/", "%2F") }

	// 1: a pair with ';' before a signed query.
	r, err := http.NewRequest(http.MethodGet, s.endpoint+"/?Action=ReceiveMessage&QueueUrl="+esc(mine)+"&Version=2012-11-05", nil)
	require.NoError(t, err)
	signed(t, r, "")
	r.URL.RawQuery = "QueueUrl=http://x;/" + ownerKey + "/other&" + r.URL.RawQuery
	code, body := do(t, r)
	assert.Equal(t, http.StatusForbidden, code, body)

	// 2: a URL presigned for GetQueueAttributes with UNSIGNED-PAYLOAD, posted with a body.
	pre, err := http.NewRequest(http.MethodPost, s.endpoint+"/?Action=GetQueueAttributes&QueueUrl="+esc(mine)+"&Version=2012-11-05", nil)
	require.NoError(t, err)
	u, _, err := v4.NewSigner().PresignHTTP(context.Background(), aws.Credentials{AccessKeyID: ownerKey, SecretAccessKey: ownerSecret}, pre, "UNSIGNED-PAYLOAD", "sqs", "us-east-1", time.Now())
	require.NoError(t, err)
	r, err = http.NewRequest(http.MethodPost, u, strings.NewReader("Action=ReceiveMessage&QueueUrl="+esc(other)))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	code, body = do(t, r)
	assert.Equal(t, http.StatusForbidden, code, body)
	r, err = http.NewRequest(http.MethodPost, u, strings.NewReader(`{"QueueUrl":"`+other+`"}`))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("X-Amz-Target", "AmazonSQS.PurgeQueue")
	code, body = do(t, r)
	assert.Equal(t, http.StatusForbidden, code, body)

	// 3: a target changed after signing.
	js := `{"QueueUrl":"` + other + `"}`
	r, err = http.NewRequest(http.MethodPost, s.endpoint+"/", strings.NewReader(js))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	signed(t, r, js)
	r.Header.Set("X-Amz-Target", "AmazonSQS.PurgeQueue")
	code, body = do(t, r)
	assert.Equal(t, http.StatusForbidden, code, body)

	assert.Equal(t, map[string]string{"other's message": "visible"}, s.messagesOf(t, "other"))
	assert.Equal(t, map[string]string{"mine's message": "visible"}, s.messagesOf(t, "mine"))
}

// A caller who knows the server's seed replays its calls on a fake of its own with that seed
// and gets the handles the server would issue in memory; in signed mode they are no handles.
func TestAttackHandlesForgedWithTheSeedFailThroughTheServer(t *testing.T) {
	ctx := context.Background()
	s := start(t, "-clock", "virtual", "-seed", "42", "-credentials", credentialsFile(t), "-control-token", controlToken)
	owner := s.clientAs(ownerKey, ownerSecret)
	policy := `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"` + strangerKey + `"},"Action":["sqs:DeleteMessage","sqs:ChangeMessageVisibility"],"Resource":"*"}]}`
	q, err := owner.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("victim"), Attributes: map[string]string{"Policy": policy}})
	require.NoError(t, err)
	_, err = owner.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("in flight")})
	require.NoError(t, err)
	_, err = owner.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, VisibilityTimeout: 600})
	require.NoError(t, err)

	replay := sqsfake.New(sqsfake.WithSeed(42), sqsfake.WithEndpoint(s.endpoint))
	as := sqsfake.ActAs(sqsfake.Identity{AccountID: ownerKey})
	rq, err := replay.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("victim"), Attributes: map[string]string{"Policy": policy}}, as)
	require.NoError(t, err)
	_, err = replay.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: rq.QueueUrl, MessageBody: aws.String("in flight")}, as)
	require.NoError(t, err)
	got, err := replay.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: rq.QueueUrl, VisibilityTimeout: 600}, as)
	require.NoError(t, err)
	require.Len(t, got.Messages, 1)
	forged := got.Messages[0].ReceiptHandle

	stranger := s.clientAs(strangerKey, strangerSecret)
	_, err = stranger.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: q.QueueUrl, ReceiptHandle: forged, VisibilityTimeout: 0})
	requireAPICode(t, err, "ReceiptHandleIsInvalid")
	_, err = stranger.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: forged})
	requireAPICode(t, err, "ReceiptHandleIsInvalid")
	assert.Equal(t, map[string]string{"in flight": "in flight"}, s.messagesOf(t, "victim"))
}

func requireAPICode(t *testing.T, err error, code string) {
	t.Helper()
	var api smithy.APIError
	require.ErrorAs(t, err, &api)
	assert.Equal(t, code, api.ErrorCode())
}

func TestAttackPolicySlipsFailThroughTheServer(t *testing.T) {
	ctx := context.Background()
	s, mine, _ := signedServer(t)
	owner := s.clientAs(ownerKey, ownerSecret)
	for _, doc := range []string{
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","effect":"Allow"}]}`,
		`{"Statement":[{"effect":"Allow","Principal":"*","Action":"sqs:*","Resource":"*"}]}`,
	} {
		_, err := owner.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(mine), Attributes: map[string]string{"Policy": doc}})
		requireAPICode(t, err, "InvalidAttributeValue")
	}
	_, err := owner.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(mine), Attributes: map[string]string{
		"Policy": `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws-cn:iam::` + strangerKey + `:root"},"Action":"sqs:*","Resource":"*"}]}`}})
	require.NoError(t, err)
	_, err = s.clientAs(strangerKey, strangerSecret).ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(mine)})
	requireAPICode(t, err, "AccessDenied")
}

// trickle is a body that declares much and sends one byte before its client goes away.
type trickle struct{ sent bool }

func (b *trickle) Read(p []byte) (int, error) {
	if b.sent {
		return 0, io.ErrUnexpectedEOF
	}
	b.sent = true
	p[0] = '{'
	return 1, nil
}

func (b *trickle) Close() error { return nil }

func TestAttacksOnMemoryAndCPUFailThroughTheServer(t *testing.T) {
	s := newTestServer(t, "-credentials", credentialsFile(t))
	serveRaw := func(r *http.Request) {
		r.Host = "127.0.0.1:9324"
		s.ServeHTTP(httptest.NewRecorder(), r)
	}
	// 5: a declared 8 MiB of which one byte comes.
	cost := memtest.BytesPerRun(10, func() {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
		r.Body, r.ContentLength = &trickle{}, sqsfake.MaxRequestBytes
		serveRaw(r)
	})
	assert.Less(t, cost, uint64(sqsfake.MaxRequestBytes/16), "a request that sent one byte")

	// 6: refusals that quote megabyte headers, kept in the call record.
	kept := memtest.Retained(func() {
		for i := range 40 {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
			r.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
			r.Header.Set("Authorization", "AWS4-HMAC-SHA256 "+strconv.Itoa(i)+strings.Repeat("x", 1<<20))
			serveRaw(r)
		}
	}, s)
	assert.Less(t, kept, int64(4<<20), "40 refusals quoting 1 MB each")

	// 7: a form of 65,536 parameters whose client went away (lenient mode, where an unsigned
	// form is decoded).
	lenient := newTestServer(t)
	serveRaw = func(r *http.Request) {
		r.Host = "127.0.0.1:9324"
		lenient.ServeHTTP(httptest.NewRecorder(), r)
	}
	var form strings.Builder
	form.WriteString("Action=ListQueues&Version=2012-11-05")
	for i := range 1 << 16 {
		form.WriteString("&P" + strconv.Itoa(i) + "=x")
	}
	costWith := func(ctx context.Context) uint64 {
		return memtest.BytesPerRun(1, func() {
			r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", strings.NewReader(form.String()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			serveRaw(r)
		})
	}
	decoded := costWith(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Less(t, costWith(ctx), decoded*2/3, "the decoder stopped when the client went away (decoded: %d)", decoded)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

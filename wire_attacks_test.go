package sqsfake

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake/internal/memtest"
)

// The attacks of issue 25 on signed mode, each through Handler(); cmd/sqsfake's
// attacks_test.go drives the same ones through the server.

const (
	attackKey    = "111111111111"
	attackSecret = "attack-secret"
	attackHost   = "127.0.0.1:9324"
)

// attackFixture is a signed-mode fake with two queues of the caller's account, "mine"
// and "other", each holding one message.
func attackFixture(t *testing.T) (f *Fake, mine, other string) {
	t.Helper()
	f = New(WithEndpoint("http://"+attackHost), WithCredentials(Credential{AccessKeyID: attackKey, SecretAccessKey: attackSecret}))
	ctx := context.Background()
	as := ActAs(Identity{AccountID: attackKey})
	for _, name := range []string{"mine", "other"} {
		q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)}, as)
		require.NoError(t, err)
		_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(name + "'s message")}, as)
		require.NoError(t, err)
	}
	return f, "http://" + attackHost + "/" + attackKey + "/mine", "http://" + attackHost + "/" + attackKey + "/other"
}

// signNow signs r in its Authorization header with the attack key, now, over body.
func signNow(t *testing.T, r *http.Request, body string) *http.Request {
	t.Helper()
	creds := aws.Credentials{AccessKeyID: attackKey, SecretAccessKey: attackSecret}
	require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), creds, r, sha256Hex(body), "sqs", "us-east-1", time.Now()))
	return r
}

// presignNow presigns r with the attack key, now, with the given payload hash.
func presignNow(t *testing.T, r *http.Request, payloadHash string) string {
	t.Helper()
	creds := aws.Credentials{AccessKeyID: attackKey, SecretAccessKey: attackSecret}
	u, _, err := v4.NewSigner().PresignHTTP(context.Background(), creds, r, payloadHash, "sqs", "us-east-1", time.Now())
	require.NoError(t, err)
	return u
}

func serveAttack(f *Fake, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	f.Handler().ServeHTTP(rec, r)
	return rec
}

// visibleBodies returns the bodies of a queue's messages that are not in flight.
func visibleBodies(t *testing.T, f *Fake, name string) []string {
	t.Helper()
	info, err := f.Queue("arn:aws:sqs:us-east-1:" + attackKey + ":" + name)
	require.NoError(t, err)
	var bodies []string
	for _, m := range info.Messages {
		if m.State == StateVisible {
			bodies = append(bodies, m.Body)
		}
	}
	return bodies
}

func TestAttackUnsignedQueryPairIsRefused(t *testing.T) {
	_, _, other := attackFixture(t)
	for _, tc := range []struct {
		name, inject string
		signed       bool // the injected pair is signed too
	}{
		{"a QueueUrl with a semicolon, which the signer leaves out", "QueueUrl=http://x;/" + attackKey + "/other&", false},
		{"a MessageBody with a semicolon", "MessageBody=INJECTED;&", false},
		{"a repeated name, signed", "QueueUrl=" + strings.ReplaceAll(other, ":", "%3A") + "&", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, mine, _ := attackFixture(t)
			for _, action := range []string{"ReceiveMessage", "SendMessage"} {
				q := "Action=" + action + "&MessageBody=signed&QueueUrl=" + strings.ReplaceAll(mine, ":", "%3A") + "&Version=2012-11-05"
				if tc.signed {
					q = tc.inject + q
				}
				r := signNow(t, httptest.NewRequest(http.MethodGet, "http://"+attackHost+"/?"+q, nil), "")
				if !tc.signed {
					r.URL.RawQuery = tc.inject + r.URL.RawQuery
				}
				rec := serveAttack(f, r)
				assert.Contains(t, []int{http.StatusForbidden, http.StatusBadRequest, http.StatusNotFound}, rec.Code, rec.Body.String())
				assert.NotContains(t, rec.Body.String(), "other's message")
			}
			assert.Equal(t, []string{"other's message"}, visibleBodies(t, f, "other"))
			assert.Equal(t, []string{"mine's message"}, visibleBodies(t, f, "mine"), "nothing sent, nothing received")
		})
	}
}

func TestAttackPresignedRequestActsOnlyOnItsSignedQuery(t *testing.T) {
	f, mine, other := attackFixture(t)
	signed := presignNow(t, httptest.NewRequest(http.MethodPost,
		"http://"+attackHost+"/?Action=GetQueueAttributes&AttributeName.1=All&QueueUrl="+strings.ReplaceAll(mine, ":", "%3A")+"&Version=2012-11-05", nil), "UNSIGNED-PAYLOAD")
	post := func(body string, header map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, signed, strings.NewReader(body))
		for k, v := range header {
			r.Header.Set(k, v)
		}
		return serveAttack(f, r)
	}
	rec := post("Action=ReceiveMessage&QueueUrl="+other, map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	assert.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	assert.NotContains(t, rec.Body.String(), "other's message")
	rec = post(`{"QueueUrl":"`+other+`"}`, map[string]string{"Content-Type": jsonContentType, "X-Amz-Target": "AmazonSQS.PurgeQueue"})
	assert.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	rec = post(`{"QueueUrl":"`+other+`"}`, map[string]string{"Content-Type": jsonContentType, "X-Amz-Target": "AmazonSQS.ReceiveMessage"})
	assert.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	assert.Equal(t, []string{"other's message"}, visibleBodies(t, f, "other"))

	// What was signed still works: the URL posted without a body.
	rec = post("", nil)
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}

func TestAttackUnsignedTargetIsRefused(t *testing.T) {
	f, mine, _ := attackFixture(t)
	body := `{"QueueUrl":"` + mine + `","AttributeNames":["All"]}`
	r := httptest.NewRequest(http.MethodPost, "http://"+attackHost+"/", strings.NewReader(body))
	r.Header.Set("Content-Type", jsonContentType)
	signNow(t, r, body) // SignedHeaders=content-type;host;x-amz-date: no target
	r.Header.Set("X-Amz-Target", "AmazonSQS.PurgeQueue")
	rec := serveAttack(f, r)
	assert.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), "X-Amz-Target")
	assert.Equal(t, []string{"mine's message"}, visibleBodies(t, f, "mine"))

	// Signed with its target, the same request is served.
	r = httptest.NewRequest(http.MethodPost, "http://"+attackHost+"/", strings.NewReader(body))
	r.Header.Set("Content-Type", jsonContentType)
	r.Header.Set("X-Amz-Target", "AmazonSQS.GetQueueAttributes")
	rec = serveAttack(f, signNow(t, r, body))
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}

func TestAttackHostMustBeSignedEvenPresigned(t *testing.T) {
	f, _, _ := attackFixture(t)
	r := httptest.NewRequest(http.MethodGet, "http://"+attackHost+"/?Action=ListQueues&Version=2012-11-05", nil)
	signed := presignNow(t, r, sha256Hex(""))
	bad := strings.Replace(signed, "X-Amz-SignedHeaders=host", "X-Amz-SignedHeaders=content-type", 1)
	rec := serveAttack(f, httptest.NewRequest(http.MethodGet, bad, nil))
	assert.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), "'Host' must be a 'SignedHeader'")
}

// FuzzSignedQuery changes a validly signed query request — text before its query string, a
// body, an X-Amz-Target header, sent as a header-signed or a presigned request — and checks
// that whatever signed mode accepts is read exactly as signed: the decoder's parameters are
// the signed query's, and no unsigned header chooses the operation. Seeded with the attacks
// of issue 25.
func FuzzSignedQuery(f *testing.F) {
	f.Add("", "", "", false)
	f.Add("QueueUrl=http://x;/111111111111/other", "", "", false)
	f.Add("MessageBody=INJECTED;", "", "", false)
	f.Add("", "Action=ReceiveMessage&QueueUrl=http://127.0.0.1:9324/111111111111/other", "", true)
	f.Add("", `{"QueueUrl":"http://127.0.0.1:9324/111111111111/other"}`, "AmazonSQS.PurgeQueue", true)
	f.Add("", `{"QueueUrl":"http://127.0.0.1:9324/111111111111/other"}`, "AmazonSQS.PurgeQueue", false)
	f.Add("Action=SendMessage", "", "", false)
	f.Add("X-Amz-Date=20260101T000000Z", "", "", true)
	creds := testCredentials(f)
	const signed = "Action=SendMessage&MessageBody=signed&QueueUrl=http%3A%2F%2F127.0.0.1%3A9324%2F111111111111%2Fmine&Version=2012-11-05"
	want, err := url.ParseQuery(signed)
	require.NoError(f, err)
	sign := func(t *testing.T, presigned bool) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "http://"+sigHost+"/?"+signed, nil)
		if presigned {
			return presign(t, r, "AKIDEXAMPLE", "secret", "us-east-1", sigT0, "UNSIGNED-PAYLOAD", 0)
		}
		return signHeader(t, r, "AKIDEXAMPLE", "secret", "", "us-east-1", sigT0, "")
	}
	f.Fuzz(func(t *testing.T, inject, body, target string, presigned bool) {
		r := sign(t, presigned)
		if inject != "" {
			r.URL.RawQuery = inject + "&" + r.URL.RawQuery
		}
		r.Body = io.NopCloser(strings.NewReader(body))
		if target != "" {
			r.Header["X-Amz-Target"] = []string{target}
		}
		if _, serr := verifySignature(r, []byte(body), creds, sigT0); serr != nil {
			return
		}
		if target != "" {
			t.Fatalf("accepted an unsigned X-Amz-Target %q", target)
		}
		d := formDecoders.Get().(*formDecoder)
		defer d.release()
		if perr := d.parse(r, []byte(body)); perr != nil {
			return
		}
		got := url.Values{}
		for _, p := range d.params {
			got[p.key] = append(got[p.key], p.value)
		}
		delete(got, "X-Amz-Algorithm")
		delete(got, "X-Amz-Credential")
		delete(got, "X-Amz-Date")
		delete(got, "X-Amz-SignedHeaders")
		delete(got, "X-Amz-Signature")
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("accepted and read %v; signed %v", got, want)
		}
	})
}

func TestAttackPolicySlipsAreClosed(t *testing.T) {
	ctx := context.Background()
	f := New(WithEndpoint("http://" + attackHost))
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("owned")})
	require.NoError(t, err)
	arn := "arn:aws:sqs:us-east-1:123456789012:owned"
	stranger := wireClientAs(f, "222222222222", "secret", "us-east-1")
	send := func() error {
		_, err := stranger.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
		return err
	}
	statement := func(effect, principal string) string {
		return `{"Version":"2012-10-17","Statement":[{` + effect + `,"Principal":{"AWS":"` + principal + `"},"Action":"sqs:SendMessage","Resource":"` + arn + `"}]}`
	}
	setPolicy := func(doc string) error {
		_, err := f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: q.QueueUrl, Attributes: map[string]string{"Policy": doc}})
		return err
	}

	t.Run("a root ARN of another partition admits no caller of aws", func(t *testing.T) {
		require.NoError(t, setPolicy(statement(`"Effect":"Allow"`, "arn:aws-cn:iam::222222222222:root")))
		requireCode(t, send(), "AccessDenied")
		require.NoError(t, setPolicy(statement(`"Effect":"Allow"`, "arn:aws:iam::222222222222:root")))
		require.NoError(t, send(), "the same account in its own partition is admitted")
	})
	for _, tc := range []struct{ name, doc string }{
		{"an element named in another case", statement(`"effect":"Allow"`, "222222222222")},
		{"a Deny with a second effect in another case", statement(`"Effect":"Deny","effect":"Allow"`, "222222222222")},
		{"a duplicated element", statement(`"Effect":"Deny","Effect":"Allow"`, "222222222222")},
		{"a duplicated top-level element", `{"Version":"2012-10-17","Version":"2008-10-17","Statement":[]}`},
		{"a top-level element in another case", `{"version":"2012-10-17","Statement":[]}`},
		{"a duplicated principal type", `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"111111111111","AWS":"222222222222"},"Action":"sqs:*","Resource":"*"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, setPolicy(""))
			requireCode(t, setPolicy(tc.doc), "InvalidAttributeValue")
			requireCode(t, send(), "AccessDenied", "the refused policy grants nothing")
		})
	}
}

// forgeReceipt is what a caller who knows a fake's seed — public by default, or given with
// -seed — computes as the handle of message msg's receive-th receive in queue queue: the
// handle the fake would issue in memory, where the seed is the key.
func forgeReceipt(seed uint64, queue uint32, msg uint64, receive uint32) string {
	k := newHandleKey(nil, seed, 0)
	return encodeReceipt(&k, receipt{queue: queue, msg: msg, receive: receive})
}

func TestAttackForgedReceiptHandlesAreInvalid(t *testing.T) {
	ctx := context.Background()
	const owner, stranger = "111111111111", "222222222222"
	f := New(WithEndpoint("http://"+attackHost), WithCredentials(
		Credential{AccessKeyID: owner, SecretAccessKey: "owner-secret"},
		Credential{AccessKeyID: stranger, SecretAccessKey: "stranger-secret"}))
	ownerClient := wireClientAs(f, owner, "owner-secret", "us-east-1")
	q, err := ownerClient.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("victim"), Attributes: map[string]string{
		"Policy": `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"` + stranger + `"},"Action":["sqs:DeleteMessage","sqs:ChangeMessageVisibility"],"Resource":"*"}]}`,
	}})
	require.NoError(t, err)
	for _, body := range []string{"in flight", "visible"} {
		_, err = ownerClient.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body)})
		require.NoError(t, err)
		if body == "in flight" {
			_, err = ownerClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, VisibilityTimeout: 600})
			require.NoError(t, err)
		}
	}
	_, err = ownerClient.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("delayed"), DelaySeconds: 900})
	require.NoError(t, err)

	attacker := wireClientAs(f, stranger, "stranger-secret", "us-east-1")
	var guesses []string
	for queue := uint32(0); queue <= 2; queue++ {
		for msg := uint64(0); msg <= 4; msg++ {
			for receive := uint32(0); receive <= 2; receive++ {
				guesses = append(guesses, forgeReceipt(f.seed, queue, msg, receive))
			}
		}
	}
	for _, h := range guesses {
		_, err := attacker.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: aws.String(h)})
		requireCode(t, err, "ReceiptHandleIsInvalid", h)
		_, err = attacker.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: q.QueueUrl, ReceiptHandle: aws.String(h), VisibilityTimeout: 0})
		requireCode(t, err, "ReceiptHandleIsInvalid", h)
	}
	for i := 0; i < len(guesses); i += 10 {
		var del []types.DeleteMessageBatchRequestEntry
		var vis []types.ChangeMessageVisibilityBatchRequestEntry
		for j, h := range guesses[i:min(i+10, len(guesses))] {
			id := aws.String("e" + strconv.Itoa(j))
			del = append(del, types.DeleteMessageBatchRequestEntry{Id: id, ReceiptHandle: aws.String(h)})
			vis = append(vis, types.ChangeMessageVisibilityBatchRequestEntry{Id: id, ReceiptHandle: aws.String(h)})
		}
		out, err := attacker.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q.QueueUrl, Entries: del})
		require.NoError(t, err)
		assert.Empty(t, out.Successful)
		for _, e := range out.Failed {
			assert.Equal(t, "ReceiptHandleIsInvalid", *e.Code)
		}
		vout, err := attacker.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: q.QueueUrl, Entries: vis})
		require.NoError(t, err)
		assert.Empty(t, vout.Successful)
	}
	info, err := f.Queue("arn:aws:sqs:us-east-1:" + owner + ":victim")
	require.NoError(t, err)
	states := map[string]MessageState{}
	for _, m := range info.Messages {
		states[m.Body] = m.State
	}
	assert.Equal(t, map[string]MessageState{"in flight": StateInFlight, "visible": StateVisible, "delayed": StateDelayed}, states)
}

func TestAttackAlteredAndForeignHandlesAreInvalid(t *testing.T) {
	ctx := context.Background()
	for _, signed := range []bool{false, true} {
		var opts []Option
		if signed {
			opts = append(opts, WithCredentials(Credential{AccessKeyID: "123456789012", SecretAccessKey: "s"}))
		}
		f, other := New(opts...), New(append(opts, WithSeed(7))...) // another seed: another fake's handles
		client := wireClientAs(f, "123456789012", "s", "us-east-1")
		handleOf := func(f *Fake, queue string) (string, *string) {
			c := wireClientAs(f, "123456789012", "s", "us-east-1")
			q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(queue)})
			require.NoError(t, err)
			_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("m")})
			require.NoError(t, err)
			out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
			require.NoError(t, err)
			require.Len(t, out.Messages, 1)
			return *out.Messages[0].ReceiptHandle, q.QueueUrl
		}
		h, qURL := handleOf(f, "a")
		_, bURL := handleOf(f, "b")
		foreign, _ := handleOf(other, "a")
		altered := []byte(h)
		altered[len(altered)-2] ^= 1
		for name, bad := range map[string]string{"altered": string(altered), "truncated": h[:len(h)-4], "of another fake": foreign} {
			_, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: qURL, ReceiptHandle: aws.String(bad)})
			requireCode(t, err, "ReceiptHandleIsInvalid", "signed=%v %s", signed, name)
		}
		_, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: bURL, ReceiptHandle: aws.String(h)})
		requireCode(t, err, "ReceiptHandleIsInvalid", "signed=%v: a handle of another queue", signed)
	}
}

// Two fakes in one process that give one access key id two secrets each check a request with
// their own: the SDK signer's cache of derived keys, which goes by key id, is not shared.
func TestSignedFakesSharingAKeyIDCheckTheirOwnSecret(t *testing.T) {
	ctx := context.Background()
	first := New(WithCredentials(Credential{AccessKeyID: "AKIDSHARED", SecretAccessKey: "first-secret"}))
	second := New(WithCredentials(Credential{AccessKeyID: "AKIDSHARED", SecretAccessKey: "second-secret"}))
	_, err := wireClientAs(first, "AKIDSHARED", "first-secret", "us-east-1").ListQueues(ctx, &sqs.ListQueuesInput{})
	require.NoError(t, err)
	_, err = wireClientAs(second, "AKIDSHARED", "first-secret", "us-east-1").ListQueues(ctx, &sqs.ListQueuesInput{})
	requireCode(t, err, "SignatureDoesNotMatch")
}

// trickle is a request body that declares much and sends one byte before the client goes
// away.
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

func TestAttackDeclaredLengthCostsNoMemoryBeforeItArrives(t *testing.T) {
	for _, signed := range []bool{false, true} {
		var opts []Option
		if signed {
			opts = append(opts, WithCredentials(Credential{AccessKeyID: attackKey, SecretAccessKey: attackSecret}))
		}
		h := New(opts...).Handler()
		perRequest := memtest.BytesPerRun(20, func() {
			r := httptest.NewRequest(http.MethodPost, "http://"+attackHost+"/", nil)
			r.Header.Set("Content-Type", jsonContentType)
			r.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
			r.Body, r.ContentLength = &trickle{}, MaxRequestBytes
			h.ServeHTTP(httptest.NewRecorder(), r)
		})
		// 2×readAhead and what the handler costs anyway; more under -race, whose pools drop
		// what they hold. Before, the buffer was grown to the declared length.
		assert.Less(t, perRequest, uint64(MaxRequestBytes/16), "signed=%v: a request that sent 1 byte of a declared %d cost %d bytes", signed, MaxRequestBytes, perRequest)
	}
}

// queryForm returns a SendMessageBatch form of n parameters beyond its Action and QueueUrl:
// entries of two parameters each, and as many again of unknown distinct names.
func queryFormOf(n int) string {
	var b strings.Builder
	b.WriteString("Action=SendMessageBatch&Version=2012-11-05&QueueUrl=http%3A%2F%2F127.0.0.1%3A9324%2F123456789012%2Fq")
	for i := 1; i <= n/4; i++ {
		s := strconv.Itoa(i)
		b.WriteString("&SendMessageBatchRequestEntry." + s + ".Id=e" + s + "&SendMessageBatchRequestEntry." + s + ".MessageBody=b")
	}
	for i := range n - 2*(n/4) {
		b.WriteString("&P" + strconv.Itoa(i) + "=x")
	}
	return b.String()
}

// BenchmarkQueryDecoder decodes query forms of 1, 100 and 65,536 parameters (the last about
// 1 MB): the cost a parameter stays the same.
func BenchmarkQueryDecoder(b *testing.B) {
	op := wireOps["SendMessageBatch"]
	for _, n := range []int{1, 100, 1 << 16} {
		form := []byte(queryFormOf(n))
		r := httptest.NewRequest(http.MethodPost, "http://"+attackHost+"/", nil)
		r.Header.Set("Content-Type", formContentType)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(form)))
			for b.Loop() {
				d := formDecoders.Get().(*formDecoder)
				if werr := d.parse(r, form); werr != nil {
					b.Fatal(werr.message)
				}
				if werr := d.structure(op.input, ""); werr != nil {
					b.Fatal(werr.message)
				}
				d.release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/param")
		})
	}
}

func TestAttackQueryDecoderStopsWhenTheClientGoesAway(t *testing.T) {
	f := New(WithEndpoint("http://" + attackHost))
	_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	var form strings.Builder
	form.WriteString("Action=SendMessage&Version=2012-11-05&MessageBody=hi&QueueUrl=http%3A%2F%2F127.0.0.1%3A9324%2F123456789012%2Fq")
	for i := range 1 << 16 {
		form.WriteString("&P" + strconv.Itoa(i) + "=x")
	}
	h := f.Handler()
	costWith := func(ctx context.Context) uint64 {
		return memtest.BytesPerRun(1, func() {
			r := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://"+attackHost+"/", strings.NewReader(form.String()))
			r.Header.Set("Content-Type", formContentType)
			h.ServeHTTP(httptest.NewRecorder(), r)
		})
	}
	decoded := costWith(context.Background())
	info, err := f.Queue("q")
	require.NoError(t, err)
	sent := len(info.Messages)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the client went away while its request was read
	cost := costWith(ctx)
	// Reading the body costs the same either way; decoding its 65,539 parameters costs about as
	// much again, and a client that is gone is not decoded.
	assert.Less(t, cost, decoded*2/3, "the decoder stopped: it cost the body and little more (decoded: %d)", decoded)
	info, err = f.Queue("q")
	require.NoError(t, err)
	assert.Len(t, info.Messages, sent, "nothing of a request whose client is gone is acted on")
}

// TestAttackClientStringsAreKeptBounded drives each way a client's strings could pile up in
// the fake — the call record's queue table and key texts, identities and their spaces,
// refusals that echo a header — with requests of about 1 MB each, and reads how much of the
// heap they leave in use.
func TestAttackClientStringsAreKeptBounded(t *testing.T) {
	const requests = 40
	huge := func(i int) string { return strconv.Itoa(i) + strings.Repeat("x", 1<<20) }
	post := func(h http.Handler, target, body string, header ...string) {
		r := httptest.NewRequest(http.MethodPost, "http://"+attackHost+"/", strings.NewReader(body))
		r.Header.Set("Content-Type", jsonContentType)
		r.Header.Set("X-Amz-Target", target)
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	jsonString := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for _, tc := range []struct {
		name   string
		signed bool
		send   func(h http.Handler, i int)
	}{
		{"distinct queue URLs", false, func(h http.Handler, i int) {
			post(h, "AmazonSQS.SendMessage", `{"QueueUrl":`+jsonString("http://x/123456789012/"+huge(i))+`,"MessageBody":"x"}`)
		}},
		{"queue name prefixes", false, func(h http.Handler, i int) {
			post(h, "AmazonSQS.ListQueues", `{"QueueNamePrefix":`+jsonString(huge(i))+`}`)
		}},
		{"receipt handles", false, func(h http.Handler, i int) {
			post(h, "AmazonSQS.DeleteMessage", `{"QueueUrl":"http://x/123456789012/q","ReceiptHandle":`+jsonString(huge(i))+`}`)
		}},
		{"unknown targets", false, func(h http.Handler, i int) { post(h, "AmazonSQS."+huge(i), "{}") }},
		{"region names", false, func(h http.Handler, i int) {
			post(h, "AmazonSQS.ListQueues", "{}", "Authorization", "AWS4-HMAC-SHA256 Credential=123456789012/20260101/us-"+strings.Repeat("east-", 1<<18)+strconv.Itoa(i)+"/sqs/aws4_request, SignedHeaders=host, Signature=00")
		}},
		{"Authorization headers", true, func(h http.Handler, i int) {
			post(h, "AmazonSQS.ListQueues", "{}", "Authorization", "AWS4-HMAC-SHA256 "+huge(i))
		}},
		{"X-Amz-Date headers", true, func(h http.Handler, i int) {
			post(h, "AmazonSQS.ListQueues", "{}", "Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00", "X-Amz-Date", huge(i))
		}},
		{"credential scopes", true, func(h http.Handler, i int) {
			post(h, "AmazonSQS.ListQueues", "{}", "Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/"+huge(i)+"/sqs/aws4_request, SignedHeaders=host, Signature=00", "X-Amz-Date", time.Now().UTC().Format(amzDateFormat))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []Option{WithCallLimit(0)}
			if tc.signed {
				opts = append(opts, WithCredentials(Credential{AccessKeyID: "AKID", SecretAccessKey: "s"}))
			}
			f := New(opts...)
			h := f.Handler()
			kept := memtest.Retained(func() {
				for i := range requests {
					tc.send(h, i)
				}
			}, f)
			assert.Less(t, kept, int64(2<<20), "%d requests of 1 MB left %d bytes in use", requests, kept)
			assert.Len(t, f.Calls(), requests)
		})
	}
}

func TestCallRecordQueueTableIsBoundedLikeTheRecord(t *testing.T) {
	f := New(WithCallLimit(0))
	ctx := context.Background()
	for i := range 4 * (logChunk + 2*logChunk) {
		f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("q" + strconv.Itoa(i))})
	}
	f.mu.Lock()
	n := len(f.calls.queues)
	f.mu.Unlock()
	assert.LessOrEqual(t, n, 2*(f.calls.recs.limit+2*logChunk), "distinct queue texts kept")
	calls := f.Calls()
	last := calls[len(calls)-1]
	assert.Equal(t, "q"+strconv.Itoa(4*(logChunk+2*logChunk)-1), last.Queue, "the newest entries still name their queue")
}

func TestRefusalsQuoteAtMostMaxEchoOfAClientsString(t *testing.T) {
	long := strings.Repeat("é", 1<<19) // 1 MiB of two-byte characters
	for name, header := range map[string][2]string{
		"Authorization": {"Authorization", "AWS4-HMAC-SHA256 " + long},
		"X-Amz-Date":    {"X-Amz-Date", long},
		"X-Amz-Target":  {"X-Amz-Target", "AmazonSQS." + long},
	} {
		r := httptest.NewRequest(http.MethodPost, "http://"+attackHost+"/", strings.NewReader("{}"))
		r.Header.Set("Content-Type", jsonContentType)
		r.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
		if name == "X-Amz-Date" {
			r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00")
		}
		r.Header.Set(header[0], header[1])
		f := New(WithCredentials(Credential{AccessKeyID: "AKID", SecretAccessKey: "s"}))
		if name == "X-Amz-Target" {
			f = New() // lenient: the target is read
		}
		rec := serveAttack(f, r)
		var body struct{ Message string }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), name)
		assert.Less(t, len(body.Message), 2*maxEcho+512, name) // the header and its bad part may both be quoted
		assert.Contains(t, body.Message, "…", name)
		assert.True(t, utf8.ValidString(body.Message), "%s: cut at a character boundary", name)
	}
}

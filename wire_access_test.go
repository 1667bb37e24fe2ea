package sqsfake

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wireClientAs returns a stock client that signs with key and secret for region and sends
// its requests to f's Handler in memory.
func wireClientAs(f *Fake, key, secret, region string) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       region,
		BaseEndpoint: aws.String("http://sqs.fake.invalid"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, nil
		}),
		HTTPClient:       f.HTTPClient(),
		RetryMaxAttempts: 1,
	})
}

func TestWireCallerIsTheSignaturesScopeAndAccountKey(t *testing.T) {
	ctx := context.Background()
	f := New(WithEndpoint("http://127.0.0.1:9324"))
	for _, tc := range []struct {
		name, key, region, wantURL string
	}{
		{"any key in the fake's region is the fake's account", "test", "us-east-1", "http://127.0.0.1:9324/123456789012/q"},
		{"a 12-digit key is that account", "222222222222", "us-east-1", "http://127.0.0.1:9324/222222222222/q"},
		{"the scope's region is the caller's region", "test", "eu-central-1", "http://127.0.0.1:9324/queue/eu-central-1/123456789012/q"},
		{"both", "222222222222", "eu-central-1", "http://127.0.0.1:9324/queue/eu-central-1/222222222222/q"},
		{"a region that is not one is the fake's", "test", "local", "http://127.0.0.1:9324/123456789012/q"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := wireClientAs(f, tc.key, "secret", tc.region)
			out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
			require.NoError(t, err)
			assert.Equal(t, tc.wantURL, *out.QueueUrl)
			list, err := c.ListQueues(ctx, &sqs.ListQueuesInput{})
			require.NoError(t, err)
			assert.Equal(t, []string{tc.wantURL}, list.QueueUrls, "each caller lists its own space's queues")
		})
	}
	assert.Len(t, f.Queues(), 4)
}

func TestWireCrossAccountRefusalIsAccessDenied(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("private")})
	require.NoError(t, err)
	b := wireClientAs(f, "222222222222", "secret", "us-east-1")
	_, err = b.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	requireCode(t, err, "AccessDenied")

	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"QueueUrl":"`+*q.QueueUrl+`","MessageBody":"x"}`))
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("X-Amz-Target", "AmazonSQS.SendMessage")
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=222222222222/20250101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00")
	f.Handler().ServeHTTP(rec, r)
	assert.Equal(t, http.StatusForbidden, rec.Code)
	assert.Equal(t, "AccessDenied;Sender", rec.Header().Get("X-Amzn-Query-Error"))
	assert.Contains(t, rec.Body.String(), `"__type":"com.amazon.coral.service#AccessDeniedException"`)
	info, _ := f.Queue("private")
	assert.Empty(t, info.Messages)
}

func TestSignedModeRefusesWhatAWSRefusesAndNothingHappens(t *testing.T) {
	ctx := context.Background()
	f := New(WithCredentials(
		Credential{AccessKeyID: "AKIAALICE", SecretAccessKey: "alice-secret", PrincipalARN: "arn:aws:iam::123456789012:user/alice"},
		Credential{AccessKeyID: "AKIABOB", SecretAccessKey: "bob-secret", AccountID: "222222222222"},
	))
	alice := wireClientAs(f, "AKIAALICE", "alice-secret", "us-east-1")
	q, err := alice.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	calls := f.Calls()
	assert.Equal(t, "arn:aws:iam::123456789012:user/alice", calls[len(calls)-1].Caller.PrincipalARN)

	for _, tc := range []struct {
		name   string
		client *sqs.Client
		code   string
	}{
		{"unknown key", wireClientAs(f, "AKIAMALLORY", "x", "us-east-1"), "InvalidClientTokenId"},
		{"wrong secret", wireClientAs(f, "AKIAALICE", "guess", "us-east-1"), "SignatureDoesNotMatch"},
		{"unsigned", sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://sqs.fake.invalid"),
			Credentials: aws.AnonymousCredentials{}, HTTPClient: f.HTTPClient(), RetryMaxAttempts: 1}), "AccessDenied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
			requireCode(t, err, tc.code)
			info, _ := f.Queue("q")
			assert.Empty(t, info.Messages)
		})
	}
	// Bob's key is account 222222222222's: Alice's queue does not admit him.
	bob := wireClientAs(f, "AKIABOB", "bob-secret", "us-east-1")
	_, err = bob.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	requireCode(t, err, "AccessDenied")
	_, err = alice.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	require.NoError(t, err)
}

func TestSignedModeRefusesUnsignedQueryRequests(t *testing.T) {
	f := New(WithCredentials(Credential{AccessKeyID: "AKIAALICE", SecretAccessKey: "s"}))
	rec := httptest.NewRecorder()
	f.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/?Action=CreateQueue&QueueName=q&Version=2012-11-05", nil))
	assert.Equal(t, http.StatusForbidden, rec.Code)
	body, _ := io.ReadAll(rec.Body)
	assert.Contains(t, string(body), "<Code>AccessDenied</Code>")
	assert.Empty(t, f.Queues())
	calls := f.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, "AccessDenied", calls[0].ErrorCode)
}

func TestQueryRequestOnARegionQueuePath(t *testing.T) {
	ctx := context.Background()
	f := New(WithEndpoint("http://127.0.0.1:9324"))
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")}, ActAs(Identity{Region: "eu-west-1"}))
	require.NoError(t, err)
	require.Equal(t, "http://127.0.0.1:9324/queue/eu-west-1/123456789012/q", *q.QueueUrl)
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9324/queue/eu-west-1/123456789012/q?Action=SendMessage&MessageBody=hi&Version=2012-11-05", nil)
	f.Handler().ServeHTTP(rec, r)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	info, err := f.Queue("arn:aws:sqs:eu-west-1:123456789012:q")
	require.NoError(t, err)
	assert.Len(t, info.Messages, 1)
}

func TestSignedModeServesAPresignedQueryURL(t *testing.T) {
	f := New(WithCredentials(Credential{AccessKeyID: "222222222222", SecretAccessKey: "s"}))
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9324/?Action=CreateQueue&QueueName=q&Version=2012-11-05", nil)
	signed := presign(t, r, "222222222222", "s", "eu-west-1", time.Now(), sha256Hex(""), 0)
	rec := httptest.NewRecorder()
	f.Handler().ServeHTTP(rec, signed)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), "<QueueUrl>https://sqs.eu-west-1.amazonaws.com/222222222222/q</QueueUrl>")

	tampered := httptest.NewRequest(http.MethodGet, strings.Replace(signed.URL.String(), "QueueName=q", "QueueName=r", 1), nil)
	rec = httptest.NewRecorder()
	f.Handler().ServeHTTP(rec, tampered)
	assert.Equal(t, http.StatusForbidden, rec.Code)
	assert.Contains(t, rec.Body.String(), "<Code>SignatureDoesNotMatch</Code>")
	assert.Len(t, f.Queues(), 1)
}

func TestRefusedRequestsAreRecordedAsWhoTheyWereAuthenticatedAs(t *testing.T) {
	post := func(h http.Handler, target, body, auth string) {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		r.Header.Set("X-Amz-Target", target)
		r.Header.Set("Authorization", auth)
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	const auth = "AWS4-HMAC-SHA256 Credential=333333333333/20250101/eu-west-1/sqs/aws4_request, SignedHeaders=host, Signature=00"

	lenient := New()
	post(lenient.Handler(), "AmazonSQS.ListQueues", "not json", auth)
	calls := lenient.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, "SerializationException", calls[0].ErrorCode)
	assert.Equal(t, Caller{Door: DoorHTTP, AccountID: "333333333333", Region: "eu-west-1",
		PrincipalARN: "arn:aws:iam::333333333333:root", Other: true}, calls[0].Caller)

	signed := New(WithCredentials(Credential{AccessKeyID: "333333333333", SecretAccessKey: "s"}))
	post(signed.Handler(), "AmazonSQS.ListQueues", "{}", auth)
	calls = signed.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, "IncompleteSignature", calls[0].ErrorCode) // no X-Amz-Date
	assert.Equal(t, Caller{Door: DoorHTTP, Other: true}, calls[0].Caller, "a refused signature is nobody's word")
	assert.Contains(t, calls[0].String(), "[unauthenticated]")
}

func TestSecureTransportThroughHTTPClientFollowsTheEndpointsScheme(t *testing.T) {
	ctx := context.Background()
	f := New()
	policy := `{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: map[string]string{"Policy": policy}})
	require.NoError(t, err)
	for endpoint, code := range map[string]string{"https://sqs.us-east-1.amazonaws.com": "", "http://sqs.fake.invalid": "AccessDenied"} {
		c := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), HTTPClient: f.HTTPClient(),
			Credentials: aws.AnonymousCredentials{}, RetryMaxAttempts: 1})
		_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
		if code == "" {
			assert.NoError(t, err, endpoint)
		} else {
			requireCode(t, err, code)
		}
	}
}

func TestAnUnsignedRequestThroughHTTPClientNamesItsHost(t *testing.T) {
	ctx := context.Background()
	f := New(WithCredentials(Credential{AccessKeyID: "AKIAALICE", SecretAccessKey: "s"}))
	c := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://sqs.fake.invalid"), HTTPClient: f.HTTPClient(),
		Credentials: aws.AnonymousCredentials{}, RetryMaxAttempts: 1})
	_, err := c.ListQueues(ctx, &sqs.ListQueuesInput{})
	requireCode(t, err, "AccessDenied")
	assert.Contains(t, err.Error(), "Access to the resource http://sqs.fake.invalid/ is denied.")
}

package snsfake_test

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

// server serves the SNS fake beside its queue fake's wire, as cmd/sqsfake does.
func server(t *testing.T, opts ...sqsfake.Option) (*snsfake.Fake, *httptest.Server) {
	t.Helper()
	f := sqsfake.New(opts...)
	s := snsfake.New(f)
	srv := httptest.NewServer(s.Handler(f.Handler()))
	t.Cleanup(srv.Close)
	return s, srv
}

func wireClient(url string) *sns.Client {
	return sns.New(sns.Options{Region: "us-east-1", BaseEndpoint: aws.String(url), RetryMaxAttempts: 1,
		Credentials: aws.NewCredentialsCache(credentialsFunc{})})
}

type credentialsFunc struct{}

func (credentialsFunc) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", Source: "test"}, nil
}

func TestTheServerAnswersTheCorpusAsTheMethodsDo(t *testing.T) {
	methods := runCorpus(newSNS())
	_, srv := server(t)
	wire := runCorpus(wireClient(srv.URL))
	require.Equal(t, len(methods), len(wire))
	// A call the SDK refuses client-side never reaches a server, which numbers the calls
	// (and so their request ids) without it: compare without request ids.
	rid := regexp.MustCompile(`RequestID: [0-9a-f-]{36}`)
	for i := range methods {
		assert.Equal(t, rid.ReplaceAllString(methods[i], "RequestID: …"), rid.ReplaceAllString(wire[i], "RequestID: …"), "call %d", i)
	}
}

func TestOnePortServesSQSAndSNS(t *testing.T) {
	ctx := context.Background()
	s, srv := server(t, sqsfake.WithEndpoint("http://127.0.0.1"))
	c := wireClient(srv.URL)
	q := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1,
		Credentials: aws.NewCredentialsCache(credentialsFunc{})})
	tp, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	queueArn := "arn:aws:sqs:us-east-1:123456789012:q"
	qu, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: map[string]string{"Policy": snsfake.QueuePolicy(queueArn, *tp.TopicArn)}})
	require.NoError(t, err)
	_, err = c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(queueArn)})
	require.NoError(t, err)
	_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("over the wire")})
	require.NoError(t, err)
	got, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: qu.QueueUrl})
	require.NoError(t, err)
	require.Len(t, got.Messages, 1)
	var env map[string]string
	require.NoError(t, json.Unmarshal([]byte(*got.Messages[0].Body), &env))
	assert.Equal(t, "over the wire", env["Message"])
	// With WithEndpoint the envelope's links name the server, and the certificate is served there.
	assert.Equal(t, "http://127.0.0.1"+snsfake.SigningCertPath(), env["SigningCertURL"])
	resp, err := http.Get(srv.URL + snsfake.SigningCertPath())
	require.NoError(t, err)
	pem, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, snsfake.SigningCertificatePEM(), pem)
	// The envelope's signature verifies with the standard library against the served certificate.
	block, _ := pemDecode(pem)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	sig, err := base64.StdEncoding.DecodeString(env["Signature"])
	require.NoError(t, err)
	sum := sha1.Sum([]byte(snsfake.SignedText(env)))
	require.NoError(t, rsa.VerifyPKCS1v15(cert.PublicKey.(*rsa.PublicKey), crypto.SHA1, sum[:], sig))
	// The UnsubscribeURL's GET works unsigned.
	unsub := strings.TrimPrefix(env["UnsubscribeURL"], "http://127.0.0.1")
	resp, err = http.Get(srv.URL + unsub)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Empty(t, s.Topics()[0].Subscriptions)
}

func TestTheConfirmationLinkConfirmsByItsToken(t *testing.T) {
	ctx := context.Background()
	s, srv := server(t)
	f := s.SQS()
	tp, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	_, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:222222222222:q")})
	require.NoError(t, err)
	_ = f
	token := s.Topics()[0].Subscriptions[0].Token
	get := func(topic, token string) (int, string) {
		resp, err := http.Get(srv.URL + "/?Action=ConfirmSubscription&TopicArn=" + url.QueryEscape(topic) + "&Token=" + token)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	code, body := get("nope", token)
	assert.Equal(t, 400, code)
	assert.Contains(t, body, "<Code>InvalidParameter</Code><Message>Invalid parameter: Topic</Message>")
	code, body = get("arn:aws:sns:us-east-1:123456789012:other-name", token)
	assert.Equal(t, 200, code, body)
	assert.Contains(t, body, "<ConfirmSubscriptionResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\"><ConfirmSubscriptionResult><SubscriptionArn>arn:aws:sns:us-east-1:123456789012:t:")
	attrs := s.Topics()[0].Subscriptions[0].Attributes
	assert.Equal(t, "false", attrs["PendingConfirmation"])
	assert.Equal(t, "false", attrs["ConfirmationWasAuthenticated"])
}

func TestUnknownActionsAndSQSRequestsGoToSQS(t *testing.T) {
	_, srv := server(t)
	resp, err := http.PostForm(srv.URL+"/", url.Values{"Action": {"ListQueues"}, "Version": {"2012-11-05"}})
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, string(b), "ListQueuesResponse")
	resp, err = http.PostForm(srv.URL+"/", url.Values{"Action": {"Nope"}, "Version": {"2010-03-31"}})
	require.NoError(t, err)
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 400, resp.StatusCode)
	assert.Contains(t, string(b), "<Code>InvalidAction</Code>")
}

func pemDecode(b []byte) (*pem.Block, []byte) { return pem.Decode(b) }

func TestAttributesCrossTheWireIntact(t *testing.T) {
	ctx := context.Background()
	s, srv := server(t)
	c := wireClient(srv.URL)
	tp, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t"), Attributes: map[string]string{"DisplayName": "a&b <c>"},
		Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
	require.NoError(t, err)
	queueArn := "arn:aws:sqs:us-east-1:123456789012:q"
	_, err = s.SQS().CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: map[string]string{"Policy": snsfake.QueuePolicy(queueArn, *tp.TopicArn)}})
	require.NoError(t, err)
	_, err = c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(queueArn),
		Attributes: map[string]string{"RawMessageDelivery": "true"}})
	require.NoError(t, err)
	_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("line1\nline2 & <x>"),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"b":    {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 2, 255}},
			"list": {DataType: aws.String("String.Array"), StringValue: aws.String(`["a","b"]`)},
		}})
	require.NoError(t, err)
	msgs := receiveAll(t, s.SQS(), "q")
	require.Len(t, msgs, 1)
	assert.Equal(t, "line1\nline2 & <x>", *msgs[0].Body)
	assert.Equal(t, []byte{0, 1, 2, 255}, msgs[0].MessageAttributes["b"].BinaryValue)
	assert.Equal(t, `["a","b"]`, *msgs[0].MessageAttributes["list"].StringValue)
	attrs, err := c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: tp.TopicArn})
	require.NoError(t, err)
	assert.Equal(t, "a&b <c>", attrs.Attributes["DisplayName"])
	tags, err := c.ListTagsForResource(ctx, &sns.ListTagsForResourceInput{ResourceArn: tp.TopicArn})
	require.NoError(t, err)
	assert.Equal(t, []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}, tags.Tags)
}

type keyCredentials struct{ key, secret string }

func (c keyCredentials) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: c.key, SecretAccessKey: c.secret, Source: "test"}, nil
}

// In signed mode (WithCredentials) an SNS request is checked as an SQS request is: it acts as
// the key that signed it, and a request without a valid signature is refused before it
// reaches an operation, so nobody without a key can publish into the fake's queues.
func TestSignedModeChecksSNSRequestsToo(t *testing.T) {
	ctx := context.Background()
	s, srv := server(t, sqsfake.WithCredentials(sqsfake.Credential{AccessKeyID: "AKIDOWNER", SecretAccessKey: "owner-secret", AccountID: "111122223333"}))
	client := func(key, secret string) *sns.Client {
		return sns.New(sns.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1,
			Credentials: aws.NewCredentialsCache(keyCredentials{key, secret})})
	}
	tp, err := client("AKIDOWNER", "owner-secret").CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	assert.Equal(t, "arn:aws:sns:us-east-1:111122223333:t", *tp.TopicArn, "the topic is the signing key's account's")

	for _, c := range []struct {
		name string
		send func() error
		code string
	}{
		{"a wrong secret", func() error {
			_, err := client("AKIDOWNER", "guess").Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("x")})
			return err
		}, "SignatureDoesNotMatch"},
		{"an unknown key", func() error {
			_, err := client("AKIDSTRANGER", "s").Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("x")})
			return err
		}, "InvalidClientTokenId"},
		{"no signature", func() error {
			form := url.Values{"Action": {"Publish"}, "Version": {"2010-03-31"}, "TopicArn": {*tp.TopicArn}, "Message": {"x"}}
			r, err := http.Post(srv.URL, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
			if err != nil {
				return err
			}
			defer r.Body.Close()
			b, _ := io.ReadAll(r.Body)
			assert.Equal(t, http.StatusForbidden, r.StatusCode, string(b))
			assert.Contains(t, string(b), "<Code>AccessDenied</Code>", "refused as SQS refuses an unsigned request")
			return nil
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.send()
			if c.code == "" {
				require.NoError(t, err)
				return
			}
			var api interface{ ErrorCode() string }
			require.ErrorAs(t, err, &api)
			assert.Equal(t, c.code, api.ErrorCode())
		})
	}
	assert.Empty(t, published(t, s, ""), "nothing was published by a request signed mode refused")
}

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
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

const account = "123456789012"

// setup makes a fake with a topic and a queue whose policy admits the topic.
func setup(t *testing.T, topicName string, topicAttrs map[string]string, queueName string) (*snsfake.Fake, string, string) {
	t.Helper()
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(topicName), Attributes: topicAttrs})
	require.NoError(t, err)
	qAttrs := map[string]string{"Policy": snsfake.QueuePolicy("arn:aws:sqs:us-east-1:"+account+":"+queueName, *tp.TopicArn)}
	if len(queueName) > 5 && queueName[len(queueName)-5:] == ".fifo" {
		qAttrs["FifoQueue"] = "true"
	}
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(queueName), Attributes: qAttrs})
	require.NoError(t, err)
	return s, *tp.TopicArn, "arn:aws:sqs:us-east-1:" + account + ":" + queueName
}

func receiveAll(t *testing.T, f *sqsfake.Fake, queue string) []sqstypes.Message {
	t.Helper()
	info, err := f.Queue(queue)
	require.NoError(t, err)
	out, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(info.URL), MaxNumberOfMessages: 10,
		MessageAttributeNames: []string{"All"}, MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{"All"}})
	require.NoError(t, err)
	return out.Messages
}

func TestPublishDeliversTheEnvelopeAsAWSLaysItOut(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	sub, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue)})
	require.NoError(t, err)
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(`{"a":1}`), Subject: aws.String("hi"),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"n":         {DataType: aws.String("Number"), StringValue: aws.String("99.12")},
			"eventType": {DataType: aws.String("String"), StringValue: aws.String("x")},
			"b":         {DataType: aws.String("Binary"), BinaryValue: []byte{2, 3, 4}},
		}})
	require.NoError(t, err)
	msgs := receiveAll(t, s.SQS(), "q")
	require.Len(t, msgs, 1)
	var env map[string]string
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(*msgs[0].Body), &raw))
	env = map[string]string{}
	for k, v := range raw {
		var str string
		if json.Unmarshal(v, &str) == nil {
			env[k] = str
		}
	}
	want := "{\n" +
		`  "Type" : "Notification",` + "\n" +
		`  "MessageId" : "` + *out.MessageId + `",` + "\n" +
		`  "TopicArn" : "` + topic + `",` + "\n" +
		`  "Subject" : "hi",` + "\n" +
		`  "Message" : "{\"a\":1}",` + "\n" +
		`  "Timestamp" : "` + env["Timestamp"] + `",` + "\n" +
		`  "SignatureVersion" : "1",` + "\n" +
		`  "Signature" : "` + env["Signature"] + `",` + "\n" +
		`  "SigningCertURL" : "https://sns.us-east-1.amazonaws.com` + snsfake.SigningCertPath() + `",` + "\n" +
		`  "UnsubscribeURL" : "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=` + *sub.SubscriptionArn + `",` + "\n" +
		`  "MessageAttributes" : {` + "\n" +
		`    "b" : {"Type":"Binary","Value":"AgME"},` + "\n" +
		`    "eventType" : {"Type":"String","Value":"x"},` + "\n" +
		`    "n" : {"Type":"Number","Value":"99.12"}` + "\n" +
		`  }` + "\n}"
	assert.Equal(t, want, *msgs[0].Body)
	assert.Equal(t, "2025-01-01T00:00:00.000Z", env["Timestamp"])
	assert.Equal(t, snsfake.SenderID, msgs[0].Attributes["SenderId"])
	assert.Empty(t, msgs[0].MessageAttributes, "an enveloped message has no SQS message attributes")

	// The signature verifies with the standard library against the certificate.
	sig, err := base64.StdEncoding.DecodeString(env["Signature"])
	require.NoError(t, err)
	sum := sha1.Sum([]byte(snsfake.SignedText(env)))
	require.NoError(t, rsa.VerifyPKCS1v15(snsfake.SigningCertificate().PublicKey.(*rsa.PublicKey), crypto.SHA1, sum[:], sig))
}

func TestSignatureVersion2VerifiesWithCryptoX509(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", map[string]string{"SignatureVersion": "2"}, "q")
	_, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue)})
	require.NoError(t, err)
	_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("héllo <&> \"q\"\n")})
	require.NoError(t, err)
	msgs := receiveAll(t, s.SQS(), "q")
	require.Len(t, msgs, 1)
	var env map[string]string
	require.NoError(t, json.Unmarshal([]byte(*msgs[0].Body), &env))
	assert.Equal(t, "2", env["SignatureVersion"])
	assert.Equal(t, "héllo <&> \"q\"\n", env["Message"])
	assert.Contains(t, *msgs[0].Body, `"Message" : "héllo <&> \"q\"\n"`)
	sig, err := base64.StdEncoding.DecodeString(env["Signature"])
	require.NoError(t, err)
	block, _ := pem.Decode(snsfake.SigningCertificatePEM())
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	require.NoError(t, cert.CheckSignature(x509.SHA256WithRSA, []byte(snsfake.SignedText(env)), sig))
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

// published is s.Published(topic), failing t on its error.
func published(t *testing.T, s *snsfake.Fake, topic string) []snsfake.Publication {
	t.Helper()
	out, err := s.Published(topic)
	require.NoError(t, err)
	return out
}

// publication is s.Publication(id), failing t on its error.
func publication(t *testing.T, s *snsfake.Fake, id string) snsfake.Publication {
	t.Helper()
	p, err := s.Publication(id)
	require.NoError(t, err)
	return p
}

// deliveries is s.Deliveries(queue), failing t on its error.
func deliveries(t *testing.T, s *snsfake.Fake, queue string) []snsfake.Delivery {
	t.Helper()
	out, err := s.Deliveries(queue)
	require.NoError(t, err)
	return out
}

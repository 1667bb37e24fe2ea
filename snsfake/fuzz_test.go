package snsfake_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

// FuzzHandler: any SNS form request is answered — never a panic, never an InternalError.
func FuzzHandler(f *testing.F) {
	for _, seed := range []string{
		"Action=CreateTopic&Version=2010-03-31&Name=t",
		"Action=Publish&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&Message=m&MessageAttributes.entry.1.Name=a&MessageAttributes.entry.1.Value.DataType=Binary&MessageAttributes.entry.1.Value.BinaryValue=!!",
		"Action=PublishBatch&Version=2010-03-31&TopicArn=x&PublishBatchRequestEntries.member.1.Id=a",
		"Action=Subscribe&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&Protocol=sqs&Attributes.entry.1.key=FilterPolicy&Attributes.entry.1.value=%7B",
		"Action=TagResource&Version=2010-03-31&ResourceArn=a&Tags.member.1.Key=k",
		"Action=ConfirmSubscription&TopicArn=a&Token=b",
		// Issue 29's attacks: an endpoint ARN naming another account's queue in its name, a
		// deadLetterTargetArn likewise, a forged token, an unknown Action, a wildcard filter,
		// a batch whose entries repeat and lack attributes' types, a Jackson-malformed policy.
		"Action=Subscribe&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&Protocol=sqs&Endpoint=arn%3Aaws%3Asqs%3Aus-east-1%3A444455556666%3A111122223333%2Falice-inbox",
		"Action=Subscribe&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&Protocol=sqs&Endpoint=arn%3Aaws%3Asqs%3Aus-east-1%3A123456789012%3Aq&Attributes.entry.1.key=RedrivePolicy&Attributes.entry.1.value=%7B%22deadLetterTargetArn%22%3A%22arn%3Aaws%3Asqs%3Aus-east-1%3A1%3Ax%2F..%2F2%2Fy%22%7D",
		"Action=ConfirmSubscription&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&Token=00000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
		"Action=" + strings.Repeat("A", 5000) + "&Version=2010-03-31",
		"Action=Subscribe&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&Protocol=sqs&Endpoint=arn%3Aaws%3Asqs%3Aus-east-1%3A123456789012%3Aq&Attributes.entry.1.key=FilterPolicy&Attributes.entry.1.value=%7B%22k%22%3A%5B%7B%22wildcard%22%3A%22*a*a*a*b%22%7D%5D%7D",
		"Action=PublishBatch&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&PublishBatchRequestEntries.member.1.Id=a&PublishBatchRequestEntries.member.1.Message=m&PublishBatchRequestEntries.member.2.Id=a&PublishBatchRequestEntries.member.2.Message=m&PublishBatchRequestEntries.member.2.MessageAttributes.entry.1.Name=x",
		"Action=Subscribe&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&Protocol=email&Endpoint=a%40b&Attributes.entry.1.key=FilterPolicy&Attributes.entry.1.value=invalid-json",
		"Action=SetTopicAttributes&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&AttributeName=DisplayName&AttributeValue=" + strings.Repeat("d", 200),
		"Action=ListSubscriptionsByTopic&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&NextToken=%3D%3D",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, form string) {
		sq := sqsfake.New()
		s := snsfake.New(sq)
		h := s.Handler(sq.Handler())
		for _, body := range []string{"Action=CreateTopic&Version=2010-03-31&Name=t", form} {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code >= 500 && strings.Contains(body, "2010-03-31") {
				t.Fatalf("%q: %d %s", body, w.Code, w.Body.String())
			}
		}
	})
}

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

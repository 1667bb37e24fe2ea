package sqsfake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/sqsfake/sqsfake"
)

// The console, served from a test: while the test is stopped at a breakpoint, open the
// server's URL followed by ConsolePath in a browser to see the queues and each message's
// timeline. The page reads the fake through JSON endpoints under ConsolePath + "api/",
// which need the control header, as a script can too.
func Example_console() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hello")})
	f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})

	srv := httptest.NewServer(f.Handler())
	defer srv.Close()
	fmt.Println("page:", sqsfake.ConsolePath) // open srv.URL + sqsfake.ConsolePath

	req, _ := http.NewRequest(http.MethodGet, srv.URL+sqsfake.ConsolePath+"api/overview", nil)
	req.Header.Set("X-Sqsfake-Control", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var overview struct {
		Now    string
		Clock  string
		Queues []struct {
			Name              string
			Visible, InFlight int
		}
	}
	json.NewDecoder(resp.Body).Decode(&overview)
	fmt.Println(overview.Now, overview.Clock, overview.Queues)
	// Output:
	// page: /_sqsfake/console/
	// 2025-01-01T00:00:00Z virtual [{jobs 0 1}]
}

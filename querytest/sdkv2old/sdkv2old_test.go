// Package sdkv2old runs the scenario corpus through aws-sdk-go-v2 service/sqs v1.26.0, the
// last release whose client speaks the query protocol, against cmd/sqsfake.
package sdkv2old

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/sqsfake/sqsfake/querytest/internal/scenario"
)

// caller calls an operation of the v1.26.0 client by name.
type caller struct{ client *sqs.Client }

func (c caller) Call(ctx context.Context, op string, input []byte) scenario.Outcome {
	return scenario.Invoke(ctx, reflect.ValueOf(c.client).MethodByName(op), input, func(out any, err error) scenario.Outcome {
		if err == nil {
			return scenario.Outcome{Output: scenario.Normalize(out)}
		}
		var ae smithy.APIError
		var ipe smithy.InvalidParamsError
		switch {
		case errors.As(err, &ae):
			o := scenario.Outcome{Code: ae.ErrorCode(), Message: ae.ErrorMessage()}
			if _, generic := ae.(*smithy.GenericAPIError); !generic && o.Message == "" {
				o.NoMessage = true
			}
			var re *awshttp.ResponseError
			if errors.As(err, &re) {
				o.Status = re.HTTPStatusCode()
			}
			return o
		case errors.As(err, &ipe):
			return scenario.Outcome{Client: true}
		}
		return scenario.Outcome{Other: err.Error()}
	})
}

func TestCorpusCoversEveryOperation(t *testing.T) { scenario.CheckCoverage(t) }

// TestQueryProtocolAnswersAsJSON runs the corpus through aws-sdk-go-v2 service/sqs v1.26.0
// and through the server's awsJson1_0 door, and requires the same outcome at every step.
func TestQueryProtocolAnswersAsJSON(t *testing.T) {
	srv := scenario.StartServer(t)
	client := sqs.New(sqs.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(srv.URL),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
	})
	scenario.Compare(t, srv, caller{client: client})
}

// Package sdkv1 runs the scenario corpus through aws-sdk-go v1.47.5, the last release of
// aws-sdk-go whose SQS client speaks the query protocol, against cmd/sqsfake.
package sdkv1

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	"github.com/aws/aws-sdk-go/aws/credentials"
	"github.com/aws/aws-sdk-go/aws/request"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/sqs"

	"github.com/sqsfake/sqsfake/querytest/internal/scenario"
)

// caller calls an operation of the v1 client by name.
type caller struct{ svc *sqs.SQS }

func (c caller) Call(ctx context.Context, op string, input []byte) scenario.Outcome {
	return scenario.Invoke(ctx, reflect.ValueOf(c.svc).MethodByName(op+"WithContext"), input, func(out any, err error) scenario.Outcome {
		if err == nil {
			return scenario.Outcome{Output: scenario.Normalize(out)}
		}
		var rf awserr.RequestFailure
		var ae awserr.Error
		switch {
		case errors.As(err, &rf):
			return scenario.Outcome{Code: rf.Code(), Message: rf.Message(), Status: rf.StatusCode()}
		case errors.As(err, &ae) && ae.Code() == request.InvalidParameterErrCode:
			return scenario.Outcome{Client: true}
		}
		return scenario.Outcome{Other: err.Error()}
	})
}

func TestCorpusCoversEveryOperation(t *testing.T) { scenario.CheckCoverage(t) }

// TestQueryProtocolAnswersAsJSON runs the corpus through aws-sdk-go v1.47.5 and through the
// server's awsJson1_0 door, and requires the same outcome at every step.
func TestQueryProtocolAnswersAsJSON(t *testing.T) {
	srv := scenario.StartServer(t)
	sess := session.Must(session.NewSession(&aws.Config{
		Region:      aws.String("us-east-1"),
		Endpoint:    aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentials("test", "test", ""),
		MaxRetries:  aws.Int(0),
	}))
	scenario.Compare(t, srv, caller{svc: sqs.New(sess)})
}

package sqsfake

import (
	"errors"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryErrorShapeBecomesItsTypedSDKError(t *testing.T) {
	typed := map[string]any{
		"BatchEntryIdsNotDistinct": new(*types.BatchEntryIdsNotDistinct), "BatchRequestTooLong": new(*types.BatchRequestTooLong),
		"EmptyBatchRequest": new(*types.EmptyBatchRequest), "InvalidAddress": new(*types.InvalidAddress),
		"InvalidAttributeName": new(*types.InvalidAttributeName), "InvalidAttributeValue": new(*types.InvalidAttributeValue),
		"InvalidBatchEntryId": new(*types.InvalidBatchEntryId), "InvalidIdFormat": new(*types.InvalidIdFormat),
		"InvalidMessageContents": new(*types.InvalidMessageContents), "InvalidSecurity": new(*types.InvalidSecurity),
		"KmsAccessDenied": new(*types.KmsAccessDenied), "KmsDisabled": new(*types.KmsDisabled),
		"KmsInvalidKeyUsage": new(*types.KmsInvalidKeyUsage), "KmsInvalidState": new(*types.KmsInvalidState),
		"KmsNotFound": new(*types.KmsNotFound), "KmsOptInRequired": new(*types.KmsOptInRequired),
		"KmsThrottled": new(*types.KmsThrottled), "MessageNotInflight": new(*types.MessageNotInflight),
		"OverLimit": new(*types.OverLimit), "PurgeQueueInProgress": new(*types.PurgeQueueInProgress),
		"QueueDeletedRecently": new(*types.QueueDeletedRecently), "QueueDoesNotExist": new(*types.QueueDoesNotExist),
		"QueueNameExists": new(*types.QueueNameExists), "ReceiptHandleIsInvalid": new(*types.ReceiptHandleIsInvalid),
		"RequestThrottled": new(*types.RequestThrottled), "ResourceNotFoundException": new(*types.ResourceNotFoundException),
		"TooManyEntriesInBatchRequest": new(*types.TooManyEntriesInBatchRequest), "UnsupportedOperation": new(*types.UnsupportedOperation),
	}
	for shape, kind := range errorKinds {
		t.Run(shape, func(t *testing.T) {
			err := operationError("SendMessage", "req-1", newError(shape, "why"))
			var api smithy.APIError
			require.True(t, errors.As(err, &api))
			assert.Equal(t, kind.code, api.ErrorCode())
			var re *awshttp.ResponseError
			require.True(t, errors.As(err, &re))
			assert.Equal(t, kind.status, re.HTTPStatusCode())
			assert.Equal(t, "req-1", re.ServiceRequestID())
			if target, ok := typed[shape]; ok {
				assert.True(t, errors.As(err, target), "errors.As to the typed error")
				assert.Equal(t, smithy.FaultClient, api.ErrorFault())
				if shape != "MessageNotInflight" && shape != "InvalidIdFormat" {
					assert.Equal(t, "why", api.ErrorMessage())
				} else {
					assert.Empty(t, api.ErrorMessage(), "the model gives this shape no message")
				}
				return
			}
			var generic *smithy.GenericAPIError
			require.True(t, errors.As(err, &generic))
			assert.Equal(t, "why", generic.Message)
		})
	}
	assert.Len(t, typed, 28, "the SDK models 28 error shapes")
}

func TestErrorStringsMatchTheRealClients(t *testing.T) {
	tests := []struct {
		err  *sqsError
		want string
	}{
		{errQueueDoesNotExist(), "operation error SQS: GetQueueUrl, https response error StatusCode: 400, RequestID: r, AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist."},
		{errInvalidValue("31", "WaitTimeSeconds", "Must be >= 0 and <= 20, if provided."), "operation error SQS: GetQueueUrl, https response error StatusCode: 400, RequestID: r, api error InvalidParameterValue: Value 31 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided."},
		{errMissingParameter("MessageBody"), "operation error SQS: GetQueueUrl, https response error StatusCode: 400, RequestID: r, api error MissingParameter: The request must contain the parameter MessageBody."},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, operationError("GetQueueUrl", "r", tt.err).Error())
	}
}

func TestServerFaultsAreReportedAsServerFaults(t *testing.T) {
	err := operationError("SendMessage", "r", newError("InternalError", "boom"))
	var api smithy.APIError
	require.True(t, errors.As(err, &api))
	assert.Equal(t, smithy.FaultServer, api.ErrorFault())
	var re *awshttp.ResponseError
	require.True(t, errors.As(err, &re))
	assert.Equal(t, 500, re.HTTPStatusCode())
	assert.Equal(t, "InternalError;Receiver", re.Response.Header.Get("X-Amzn-Query-Error"))
}

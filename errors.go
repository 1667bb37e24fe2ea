package sqsfake

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// An sqsError is a service error as the engine produces it, before a door shapes it for its
// caller: door 1 and door 2 wrap it as the SDK's error chain, door 3 writes it on the wire.
type sqsError struct {
	shape   string // the wire __type short name, e.g. "QueueDoesNotExist"
	code    string // the legacy query code that ErrorCode() returns, e.g. "AWS.SimpleQueueService.NonExistentQueue"
	status  int    // the HTTP status AWS answers with
	message string
}

func (e *sqsError) Error() string { return e.code + ": " + e.message }

// sqsTypesPath is the package of the SDK's typed SQS errors (types.QueueDoesNotExist, …).
var sqsTypesPath = reflect.TypeFor[types.QueueDoesNotExist]().PkgPath()

// errorKind is one row of the error table: the shape's query code and HTTP status.
type errorKind struct {
	code   string
	status int
}

// errorKinds lists every error SQS can answer with, keyed by wire shape name (SPEC.md §11,
// ECOSYSTEM.md §2.5). The two unmodeled shapes arrive as smithy.GenericAPIError.
var errorKinds = map[string]errorKind{
	"AccessDeniedException":             {"AccessDenied", 403},
	"BatchEntryIdsNotDistinct":          {"AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400},
	"BatchRequestTooLong":               {"AWS.SimpleQueueService.BatchRequestTooLong", 400},
	"EmptyBatchRequest":                 {"AWS.SimpleQueueService.EmptyBatchRequest", 400},
	"InvalidAddress":                    {"InvalidAddress", 404},
	"InvalidAttributeName":              {"InvalidAttributeName", 400},
	"InvalidAttributeValue":             {"InvalidAttributeValue", 400},
	"InvalidBatchEntryId":               {"AWS.SimpleQueueService.InvalidBatchEntryId", 400},
	"InvalidIdFormat":                   {"InvalidIdFormat", 400},
	"InvalidMessageContents":            {"InvalidMessageContents", 400},
	"InvalidSecurity":                   {"InvalidSecurity", 403},
	"KmsAccessDenied":                   {"KMS.AccessDeniedException", 400},
	"KmsDisabled":                       {"KMS.DisabledException", 400},
	"KmsInvalidKeyUsage":                {"KMS.InvalidKeyUsageException", 400},
	"KmsInvalidState":                   {"KMS.InvalidStateException", 400},
	"KmsNotFound":                       {"KMS.NotFoundException", 400},
	"KmsOptInRequired":                  {"KMS.OptInRequired", 403},
	"KmsThrottled":                      {"KMS.ThrottlingException", 400},
	"MessageNotInflight":                {"AWS.SimpleQueueService.MessageNotInflight", 400},
	"OverLimit":                         {"OverLimit", 403},
	"PurgeQueueInProgress":              {"AWS.SimpleQueueService.PurgeQueueInProgress", 403},
	"QueueDeletedRecently":              {"AWS.SimpleQueueService.QueueDeletedRecently", 400},
	"QueueDoesNotExist":                 {"AWS.SimpleQueueService.NonExistentQueue", 400},
	"QueueNameExists":                   {"QueueAlreadyExists", 400},
	"ReceiptHandleIsInvalid":            {"ReceiptHandleIsInvalid", 404},
	"RequestThrottled":                  {"RequestThrottled", 403},
	"ResourceNotFoundException":         {"ResourceNotFoundException", 404},
	"TooManyEntriesInBatchRequest":      {"AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400},
	"UnsupportedOperation":              {"AWS.SimpleQueueService.UnsupportedOperation", 400},
	"InvalidParameterValueException":    {"InvalidParameterValue", 400},
	"MissingRequiredParameterException": {"MissingParameter", 400},
	"InternalError":                     {"InternalError", 500},
	"ServiceUnavailable":                {"ServiceUnavailable", 503},
}

// newError builds the error SQS answers with for a wire shape, e.g. newError("OverLimit", "…").
func newError(shape, message string) *sqsError {
	k, ok := errorKinds[shape]
	if !ok {
		k = errorKind{code: shape, status: 400}
	}
	return &sqsError{shape: shape, code: k.code, status: k.status, message: message}
}

// Constructors for the errors the engine returns most.

func errQueueDoesNotExist() *sqsError {
	return newError("QueueDoesNotExist", "The specified queue does not exist.")
}

func errInvalidParameterValue(message string) *sqsError {
	return newError("InvalidParameterValueException", message)
}

func errMissingParameter(name string) *sqsError {
	return newError("MissingRequiredParameterException", "The request must contain the parameter "+echo(name)+".")
}

// errInvalidValue is the "Value <v> for parameter <P> is invalid. Reason: <r>." family.
func errInvalidValue(value, param, reason string) *sqsError {
	return errInvalidParameterValue("Value " + echo(value) + " for parameter " + param + " is invalid. Reason: " + reason)
}

func errInvalidAttributeName(message string) *sqsError {
	return newError("InvalidAttributeName", message)
}

func errUnknownAttribute(name string) *sqsError {
	return errInvalidAttributeName("Unknown Attribute " + echo(name) + ".")
}

func errInvalidAttributeValue(message string) *sqsError {
	return newError("InvalidAttributeValue", message)
}

func errReceiptHandleIsInvalid(handle string) *sqsError {
	return newError("ReceiptHandleIsInvalid", `The input receipt handle "`+echo(handle)+`" is not a valid receipt handle.`)
}

// apiError returns the error value a caller of the real client would see inside the response
// error: the typed error of the SDK's types package with ErrorCodeOverride set from the
// x-amzn-query-error header, or smithy.GenericAPIError for shapes the model does not have.
func (e *sqsError) apiError() smithy.APIError {
	msg, code := &e.message, &e.code
	switch e.shape {
	case "BatchEntryIdsNotDistinct":
		return &types.BatchEntryIdsNotDistinct{Message: msg, ErrorCodeOverride: code}
	case "BatchRequestTooLong":
		return &types.BatchRequestTooLong{Message: msg, ErrorCodeOverride: code}
	case "EmptyBatchRequest":
		return &types.EmptyBatchRequest{Message: msg, ErrorCodeOverride: code}
	case "InvalidAddress":
		return &types.InvalidAddress{Message: msg, ErrorCodeOverride: code}
	case "InvalidAttributeName":
		return &types.InvalidAttributeName{Message: msg, ErrorCodeOverride: code}
	case "InvalidAttributeValue":
		return &types.InvalidAttributeValue{Message: msg, ErrorCodeOverride: code}
	case "InvalidBatchEntryId":
		return &types.InvalidBatchEntryId{Message: msg, ErrorCodeOverride: code}
	case "InvalidIdFormat":
		return &types.InvalidIdFormat{ErrorCodeOverride: code}
	case "InvalidMessageContents":
		return &types.InvalidMessageContents{Message: msg, ErrorCodeOverride: code}
	case "InvalidSecurity":
		return &types.InvalidSecurity{Message: msg, ErrorCodeOverride: code}
	case "KmsAccessDenied":
		return &types.KmsAccessDenied{Message: msg, ErrorCodeOverride: code}
	case "KmsDisabled":
		return &types.KmsDisabled{Message: msg, ErrorCodeOverride: code}
	case "KmsInvalidKeyUsage":
		return &types.KmsInvalidKeyUsage{Message: msg, ErrorCodeOverride: code}
	case "KmsInvalidState":
		return &types.KmsInvalidState{Message: msg, ErrorCodeOverride: code}
	case "KmsNotFound":
		return &types.KmsNotFound{Message: msg, ErrorCodeOverride: code}
	case "KmsOptInRequired":
		return &types.KmsOptInRequired{Message: msg, ErrorCodeOverride: code}
	case "KmsThrottled":
		return &types.KmsThrottled{Message: msg, ErrorCodeOverride: code}
	case "MessageNotInflight":
		return &types.MessageNotInflight{ErrorCodeOverride: code}
	case "OverLimit":
		return &types.OverLimit{Message: msg, ErrorCodeOverride: code}
	case "PurgeQueueInProgress":
		return &types.PurgeQueueInProgress{Message: msg, ErrorCodeOverride: code}
	case "QueueDeletedRecently":
		return &types.QueueDeletedRecently{Message: msg, ErrorCodeOverride: code}
	case "QueueDoesNotExist":
		return &types.QueueDoesNotExist{Message: msg, ErrorCodeOverride: code}
	case "QueueNameExists":
		return &types.QueueNameExists{Message: msg, ErrorCodeOverride: code}
	case "ReceiptHandleIsInvalid":
		return &types.ReceiptHandleIsInvalid{Message: msg, ErrorCodeOverride: code}
	case "RequestThrottled":
		return &types.RequestThrottled{Message: msg, ErrorCodeOverride: code}
	case "ResourceNotFoundException":
		return &types.ResourceNotFoundException{Message: msg, ErrorCodeOverride: code}
	case "TooManyEntriesInBatchRequest":
		return &types.TooManyEntriesInBatchRequest{Message: msg, ErrorCodeOverride: code}
	case "UnsupportedOperation":
		return &types.UnsupportedOperation{Message: msg, ErrorCodeOverride: code}
	}
	fault := smithy.FaultClient
	if e.status >= 500 {
		fault = smithy.FaultServer
	}
	return &smithy.GenericAPIError{Code: e.code, Message: e.message, Fault: fault}
}

// queryError is the error's x-amzn-query-error header: its legacy code and whose fault it is.
func (e *sqsError) queryError() string {
	if e.status >= 500 {
		return e.code + ";Receiver"
	}
	return e.code + ";Sender"
}

// serviceErrorOf is the service error SQS answers for an error of a door-1 call that is not
// an API error: a request without a member the SDKs require is MissingParameter, a call
// canceled while it waited (the caller went away, or the server is shutting down)
// ServiceUnavailable, anything else InternalError. Door 3 answers with it, and the call
// record gives its code as a door-3 caller sees it.
func serviceErrorOf(err error) *sqsError {
	var ipe smithy.InvalidParamsError
	if errors.As(err, &ipe) {
		field := ""
		if errs := ipe.Errs(); len(errs) > 0 {
			if pe, ok := errs[0].(smithy.InvalidParamError); ok {
				field = pe.Field()
				if ipe.Context != "" {
					field = strings.TrimPrefix(field, ipe.Context+".")
				}
			}
		}
		return errMissingParameter(field)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return newError("ServiceUnavailable", "The request was canceled while it waited.")
	}
	return newError("InternalError", err.Error())
}

// responseError wraps the API error the way the SDK's ResponseErrorWrapper does, with the HTTP
// status and the request id, so errors.As finds *awshttp.ResponseError as against AWS.
func (e *sqsError) responseError(requestID string) *awshttp.ResponseError {
	header := http.Header{}
	header.Set("Content-Type", "application/x-amz-json-1.0")
	header.Set("X-Amzn-Requestid", requestID)
	header.Set("X-Amzn-Query-Error", e.queryError())
	return &awshttp.ResponseError{
		RequestID: requestID,
		ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{
				StatusCode: e.status, Header: header, Body: http.NoBody,
			}},
			Err: e.apiError(),
		},
	}
}

// operationError gives err the outermost shape every SDK error has. Service errors gain the
// response layer with requestID; context errors of a call that was waiting gain the
// cancellation layer the SDK's HTTP handler adds; anything else (client-side validation, a
// context that had ended before the call) is wrapped as it is.
func operationError(op, requestID string, err error) error {
	var se *sqsError
	if errors.As(err, &se) {
		err = se.responseError(requestID)
	} else if ce := (*canceledWait)(nil); errors.As(err, &ce) {
		err = &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 0, Header: http.Header{}, Body: http.NoBody}},
			Err:      &smithy.CanceledError{Err: ce.err},
		}}
	}
	return &smithy.OperationError{ServiceID: "SQS", OperationName: op, Err: err}
}

// canceledWait marks a context that ended while a call was waiting (a long poll), which the
// SDK reports through its HTTP layer rather than before sending.
type canceledWait struct{ err error }

func (c *canceledWait) Error() string { return c.err.Error() }
func (c *canceledWait) Unwrap() error { return c.err }

// contextError reports the context's error in the shape a call that was waiting sees.
func contextError(ctx context.Context) error { return &canceledWait{err: ctx.Err()} }

// maxEcho is the most of a client's string that a refusal quotes: a refusal is answered and
// recorded (Fake.Calls), so quoting a multi-megabyte header or parameter whole would cost
// that much memory again for each refusal. Every value a valid request can hold but an
// attribute's or a message's own text is shorter.
const maxEcho = 2 << 10

// echo returns what a refusal quotes of s: cutText(s, maxEcho).
func echo(s string) string { return cutText(s, maxEcho) }

// cutText returns s itself up to n bytes, else a copy of its first n bytes, cut at a
// character boundary, and "…".
func cutText(s string, n int) string {
	if cut, cutShort := truncate(s, n); cutShort {
		return cut + "…"
	}
	return s
}

// truncate cuts s to at most n bytes, on a character boundary, and reports whether it did.
func truncate(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

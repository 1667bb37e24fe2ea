package snsfake

import (
	"net/http"
	"strings"
	"unicode/utf8"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// maxEcho is the most of a client's string an error quotes, as the queue fake's maxEcho: an
// error is answered and kept in the call record, so quoting a megabyte value whole would
// cost that much again for each refusal. No value a valid request holds where an error
// quotes it is longer. maxName is the most of an unknown Action the record names.
const (
	maxEcho = 2 << 10
	maxName = 256
	// maxKept is the most of a refusal's message the call record keeps: a signature
	// refusal may quote what the client signed.
	maxKept = 4 << 10
)

// echo returns s itself up to maxEcho bytes, else a copy of its first maxEcho bytes, cut at a
// character boundary, and "…".
func echo(s string) string { return cutText(s, maxEcho) }

// echoName is an Action as the call record and the log name it: itself when it is one of
// the fake's operations, else cut to maxName bytes.
func echoName(action string) string {
	if _, ok := operations[action]; ok {
		return action
	}
	return cutText(action, maxName)
}

func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n]) + "…"
}

// snsError is an error SNS answers with: its query code, HTTP status and message.
type snsError struct {
	code    string
	status  int
	message string
}

func (e *snsError) Error() string { return e.code + ": " + e.message }

// statusOf gives each code SNS answers with its HTTP status (the SNS model's httpError
// traits; SPEC-sns.md §9).
var statusOf = map[string]int{
	"AuthorizationError": 403, "NotFound": 404, "ResourceNotFound": 404,
	"TopicLimitExceeded": 403, "SubscriptionLimitExceeded": 403, "FilterPolicyLimitExceeded": 403,
	"InvalidSecurity": 403, "KMSOptInRequired": 403, "Throttled": 429, "InternalError": 500,
}

func newError(code, message string) *snsError {
	status, ok := statusOf[code]
	if !ok {
		status = 400
	}
	return &snsError{code: code, status: status, message: message}
}

// errInvalidParameter is the InvalidParameter error SNS answers most: "Invalid parameter: "
// and what is wrong.
func errInvalidParameter(what string) *snsError {
	return newError("InvalidParameter", "Invalid parameter: "+what)
}

// errInternal is SNS's server fault, for an injected fault that names no error. The
// message is UNVERIFIED (SPEC-sns.md §9 lists the code, not its text).
func errInternal() *snsError { return newError("InternalError", "Internal Error") }

func errTopicNotFound() *snsError { return newError("NotFound", "Topic does not exist") }

func errSubscriptionNotFound() *snsError { return newError("NotFound", "Subscription does not exist") }

// apiError is the error the SDK makes of e. In service/sns v1.48.0 (the version the module
// pins) the query protocol maps a code to its typed error for every operation alike, by
// the code's exact case; the version SPEC-sns.md §1 read (v1.46.0) did so only for the
// operation's own error list. Codes with no type arrive as smithy.GenericAPIError.
func (e *snsError) apiError() smithy.APIError {
	m := &e.message
	switch e.code {
	case "AuthorizationError":
		return &types.AuthorizationErrorException{Message: m}
	case "BatchEntryIdsNotDistinct":
		return &types.BatchEntryIdsNotDistinctException{Message: m}
	case "BatchRequestTooLong":
		return &types.BatchRequestTooLongException{Message: m}
	case "EmptyBatchRequest":
		return &types.EmptyBatchRequestException{Message: m}
	case "FilterPolicyLimitExceeded":
		return &types.FilterPolicyLimitExceededException{Message: m}
	case "InternalError":
		return &types.InternalErrorException{Message: m}
	case "InvalidBatchEntryId":
		return &types.InvalidBatchEntryIdException{Message: m}
	case "InvalidParameter":
		return &types.InvalidParameterException{Message: m}
	case "ParameterValueInvalid":
		return &types.InvalidParameterValueException{Message: m}
	case "InvalidSecurity":
		return &types.InvalidSecurityException{Message: m}
	case "NotFound":
		return &types.NotFoundException{Message: m}
	case "ResourceNotFound":
		return &types.ResourceNotFoundException{Message: m}
	case "SubscriptionLimitExceeded":
		return &types.SubscriptionLimitExceededException{Message: m}
	case "TagLimitExceeded":
		return &types.TagLimitExceededException{Message: m}
	case "TooManyEntriesInBatchRequest":
		return &types.TooManyEntriesInBatchRequestException{Message: m}
	case "TopicLimitExceeded":
		return &types.TopicLimitExceededException{Message: m}
	case "ValidationException":
		return &types.ValidationException{Message: m}
	case "Throttled":
		return &types.ThrottledException{Message: m}
	case "ConcurrentAccess":
		return &types.ConcurrentAccessException{Message: m}
	case "InvalidState":
		return &types.InvalidStateException{Message: m}
	case "StaleTag":
		return &types.StaleTagException{Message: m}
	case "TagPolicy":
		return &types.TagPolicyException{Message: m}
	}
	return &smithy.GenericAPIError{Code: e.code, Message: e.message}
}

// queryType is the <Type> of the error's wire answer.
func (e *snsError) queryType() string {
	if e.status >= 500 {
		return "Receiver"
	}
	return "Sender"
}

// operationError wraps err as the SDK returns it from op: a service error inside the HTTP
// response error that carries its status and request id, a client-side validation error
// as it is.
func operationError(op, requestID string, err error) error {
	if se, ok := err.(*snsError); ok {
		header := http.Header{}
		header.Set("Content-Type", "text/xml")
		header.Set("X-Amzn-Requestid", requestID)
		err = &awshttp.ResponseError{
			RequestID: requestID,
			ResponseError: &smithyhttp.ResponseError{
				Response: &smithyhttp.Response{Response: &http.Response{StatusCode: se.status, Header: header, Body: http.NoBody}},
				Err:      se.apiError(),
			},
		}
	}
	return &smithy.OperationError{ServiceID: "SNS", OperationName: op, Err: err}
}

// ServiceError returns SNS's error with the query code and message, shaped as the SDK
// shapes it, for a fault injected on an SNS operation:
//
//	f.InjectFault(sqsfake.Fault{Operation: "SNS.Publish", Err: snsfake.ServiceError("Throttled", "Rate exceeded"), Times: 1})
//
// Its HTTP status is SNS's for the code (400 unless the code is one of the 403, 404, 429
// or 500 ones). Any other Err reaches the caller wrapped in *smithy.OperationError.
func ServiceError(code, message string) error { return newError(code, message) }

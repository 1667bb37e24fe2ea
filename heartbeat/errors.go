package heartbeat

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
)

// ErrSettled is the cause of a delivery's context once the delivery has settled through
// Stop, Delete, Release or the end of Run.
var ErrSettled = errors.New("heartbeat: delivery settled")

// ErrEnded is what WaitArmed returns once the heartbeat it waits for has ended and will arm
// no more timers: the delivery settled or was dropped, the heartbeat failed, or it made its
// last extension before the 12-hour limit.
var ErrEnded = errors.New("heartbeat: the heartbeat has ended")

// ErrCallTimeout is wrapped into the failure when an extension call has not returned by the
// time the message becomes visible again.
var ErrCallTimeout = errors.New("heartbeat: the extension call did not return before the message became visible again")

// LimitMessage is the message of the warning logged when a delivery's visibility reaches
// SQS's 12-hour limit, so that the heartbeat makes no more extensions. That happens right
// after a last extension shortened to end at the limit, or, when an earlier extension (or
// the receive) already hid the message as long as the limit allows, at the moment the next
// extension would have been due. The warning's attributes are queue_url, message_id,
// received_at, visible_at (when the message becomes visible again) and visibility_timeout:
// the timeout, in seconds, that hides the message until visible_at. That is the last
// extension's, or the receive's if no extension was made.
const LimitMessage = "heartbeat: the message's visibility reaches the 12-hour limit; no more extensions, it becomes visible again at visible_at"

// ExtendError is the failure of a heartbeat. It is the cause (context.Cause) of the handler's
// context, and it wraps the last error of ChangeMessageVisibility. That error keeps the SDK's
// shape, so errors.As finds *types.ReceiptHandleIsInvalid, smithy.APIError and the rest.
type ExtendError struct {
	// MessageID is the MessageId of the message whose extension failed.
	MessageID string
	// Attempts counts the calls made for the extension that failed.
	Attempts int
	// VisibleAt is when the message becomes visible again, or became visible, as far as the
	// heartbeat knows. From then on it may be delivered to another consumer.
	VisibleAt time.Time
	// Err is the last error ChangeMessageVisibility returned.
	Err error
}

// Error describes the failure.
func (e *ExtendError) Error() string {
	return fmt.Sprintf("heartbeat: extending the visibility of message %s failed after %d attempt(s); it may be delivered again from %s: %v",
		e.MessageID, e.Attempts, e.VisibleAt.UTC().Format(time.RFC3339), e.Err)
}

// Unwrap returns the last error of ChangeMessageVisibility.
func (e *ExtendError) Unwrap() error { return e.Err }

// retryable reports whether a failed extension is worth retrying. The SDK's own retry rules
// decide first: throttling codes, 5xx statuses, connection errors, and cancelled requests,
// which are not retried. Beyond those, a service error that is the caller's fault is not
// retried. That covers an invalid or expired receipt handle, a deleted message, a missing
// queue and denied access. Client-side validation errors are not retried either. Anything
// else is retried: server faults, and errors of unknown kind from a user's own client.
func retryable(err error) bool {
	if errors.Is(err, ErrCallTimeout) {
		return false
	}
	var invalid smithy.InvalidParamsError
	var invalidPtr *smithy.InvalidParamsError
	if errors.As(err, &invalid) || errors.As(err, &invalidPtr) {
		return false
	}
	switch retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err) {
	case aws.TrueTernary:
		return true
	case aws.FalseTernary:
		return false
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorFault() == smithy.FaultServer
	}
	return true
}

// isLimitError reports whether SQS refused an extension because it would pass the 12 hours
// since the receive (SPEC §5.13: InvalidParameterValue, "Total VisibilityTimeout for the
// message is beyond the limit [43200 seconds]").
func isLimitError(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "InvalidParameterValue" &&
		strings.Contains(apiErr.ErrorMessage(), "Total VisibilityTimeout for the message is beyond the limit")
}

package lambdasqs

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ReportBatchItemFailures is the one value FunctionResponseTypes accepts (R43).
const ReportBatchItemFailures = "ReportBatchItemFailures"

// DefaultFunctionTimeout is the timeout of a function created without one: 3 seconds, as
// CreateFunction has it (A12).
const DefaultFunctionTimeout = 3 * time.Second

// Config is an event source mapping's configuration as CreateEventSourceMapping has it, plus
// the function's own name and timeout. The zero value is Lambda's defaults: a batch of 10, no
// batching window, no partial batch responses, no concurrency cap, enabled, a 3-second timeout.
type Config struct {
	// BatchSize is the most records in one invocation: 0 means Lambda's default, 10; 1–10,000
	// on a standard queue (above 10 only with a batching window), 1–10 on a FIFO queue (R38, R39).
	BatchSize int32
	// MaximumBatchingWindowInSeconds is how long Lambda gathers records before it invokes:
	// 0–300, standard queues only (R34, R40).
	MaximumBatchingWindowInSeconds int32
	// FunctionResponseTypes is empty or holds ReportBatchItemFailures (R43).
	FunctionResponseTypes []string
	// MaximumConcurrency is ScalingConfig.MaximumConcurrency: 0 (unset) or 2–1,000 (R35), the
	// most invocations this mapping runs at once. See "Concurrency" in the package doc.
	MaximumConcurrency int32
	// ProvisionedPollerConfig turns on provisioned mode: dedicated pollers between a minimum
	// and a maximum, each running up to ten invocations at once, which scale faster than the
	// default ramp. nil is the default (on-demand) mode. It cannot be combined with
	// MaximumConcurrency. See docs/lambda.md, "Provisioned mode".
	ProvisionedPollerConfig *ProvisionedPollerConfig
	// ReservedConcurrency is the function's reserved concurrency (PutFunctionConcurrency's
	// ReservedConcurrentExecutions), 0–900: nil means none, so the function has the account's
	// unreserved 1,000. An invocation that would run more than this many at once is throttled;
	// 0 throttles every batch. See "Concurrency" in the package doc.
	ReservedConcurrency *int32
	// FilterCriteria holds up to MaxFilters filter patterns; when it has any, a message that
	// matches none is deleted without an invocation (R27–R30). See the package doc for the
	// pattern syntax lambdasqs supports.
	FilterCriteria FilterCriteria
	// Disabled is Enabled=false: the mapping exists but does not poll (R37). The zero value is
	// enabled, as Lambda's default is. SetEnabled changes it later.
	Disabled bool
	// FunctionTimeout is the function's timeout, whole seconds from 1 to 900; 0 means
	// DefaultFunctionTimeout.
	FunctionTimeout time.Duration
	// FunctionName names the function in the InvokedFunctionArn of the context and in the
	// mapping's identity (one mapping per queue and function); "" means "function".
	FunctionName string
	// HandlerWait is how long, in real time, the trigger waits for a handler to return or to
	// start waiting on its context before it reports it with a *StuckError and stops waiting
	// for it, so that no handler can hang a test: 0 means DefaultHandlerWait (10 s). Once a
	// handler has been stuck, the trigger waits at most 10 ms for each later one, so that a
	// handler that always blocks cannot add up to a test's timeout either; what it records
	// then may depend on scheduling, and the first *StuckError is the one to fix. It is a
	// safety net, not a clock: nothing the trigger records depends on it otherwise.
	HandlerWait time.Duration
}

// ProvisionedPollerConfig is CreateEventSourceMapping's ProvisionedPollerConfig for an SQS
// queue. A zero member takes Lambda's default.
type ProvisionedPollerConfig struct {
	// MinimumPollers is how many pollers stay ready: 2–200 for SQS; 0 means the default, 2.
	MinimumPollers int32
	// MaximumPollers is how many pollers the mapping may scale up to: 2–10,000 for SQS, and
	// no fewer than MinimumPollers; 0 means the default, 200.
	MaximumPollers int32
}

// Lambda's numbers for provisioned mode on SQS (API_ProvisionedPollerConfig; the launch post
// "AWS Lambda enhances event processing with provisioned mode for SQS event-source mapping",
// 2025): the defaults and SQS's bounds of the two members, what one poller runs, and how fast
// the pollers scale: "up to 1000 concurrent executions per minute".
const (
	defaultMinPollers         = 2
	defaultMaxPollers         = 200
	invocationsPerPoller      = 10
	provisionedScalePerMinute = 1000
)

// Error is an error of CreateEventSourceMapping (or CreateFunction, for a bad timeout), with
// Lambda's code and message. It has the ErrorCode and ErrorMessage methods of smithy.APIError.
type Error struct {
	Code    string
	Message string

	// cause is what the fake knows beyond Lambda's answer: for a queue that does not exist,
	// the queue fake's inspection error (wrapping sqsfake.ErrNoQueue, naming the queues).
	cause error
}

// Error returns "Code: Message", followed by what the fake knows beyond Lambda's answer in
// parentheses: for a queue that does not exist, the queues there are.
func (e *Error) Error() string {
	if e.cause != nil {
		return e.Code + ": " + e.Message + " (" + e.cause.Error() + ")"
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns what the fake knows beyond Lambda's answer, or nil: New's error for a queue
// that does not exist unwraps to the queue fake's, which wraps sqsfake.ErrNoQueue.
func (e *Error) Unwrap() error { return e.cause }

// ErrorCode returns the error's code, such as InvalidParameterValueException.
func (e *Error) ErrorCode() string { return e.Code }

// ErrorMessage returns the error's message.
func (e *Error) ErrorMessage() string { return e.Message }

func invalidParameter(format string, args ...any) *Error {
	return &Error{Code: "InvalidParameterValueException", Message: fmt.Sprintf(format, args...)}
}

// constraint is AWS's model-validation error, the form every AWS JSON service returns for a
// value outside a member's declared range.
// inRange is Lambda's refusal of a member outside [lo, hi], or nil.
func inRange(v, lo, hi int32, member string) *Error {
	switch {
	case v < lo:
		return constraint(v, member, "Member must have value greater than or equal to "+strconv.Itoa(int(lo)))
	case v > hi:
		return constraint(v, member, "Member must have value less than or equal to "+strconv.Itoa(int(hi)))
	}
	return nil
}

func constraint(value any, member, rule string) *Error {
	return &Error{Code: "ValidationException", Message: fmt.Sprintf("1 validation error detected: Value '%v' at '%s' failed to satisfy constraint: %s", value, member, rule)}
}

// mapping is a validated Config.
type mapping struct {
	batchSize   int
	window      time.Duration
	report      bool
	concurrency int // the mapping's cap: MaximumConcurrency, or maxMappingConcurrency, or its pollers' in provisioned mode
	provisioned bool
	ready       int // provisioned mode: the invocations its minimum pollers run at once
	functionCap int // the function's: ReservedConcurrency, or accountConcurrency
	enabled     bool
	timeout     time.Duration
	handlerWait time.Duration
	function    string
	filters     []*pattern
}

// validate checks cfg against a queue as CreateEventSourceMapping does, in the order: the
// API's declared ranges, then the SQS-specific rules, then the visibility timeout.
func validate(cfg Config, fifo bool, visibility string) (mapping, error) {
	m := mapping{batchSize: 10, enabled: !cfg.Disabled, timeout: DefaultFunctionTimeout, function: cfg.FunctionName,
		concurrency: maxMappingConcurrency, functionCap: accountConcurrency}
	if m.function == "" {
		m.function = "function"
	}
	if d := cfg.FunctionTimeout; d != 0 {
		if msg := unitMistake("FunctionTimeout", d, time.Second); msg != "" {
			return m, &Error{Code: "ValidationException", Message: msg}
		}
		// CreateFunction's Timeout is an integer of seconds from 1 to 900 (Lambda's
		// documented maximum); it is shown in seconds, as the API takes it.
		if d%time.Second != 0 || d < time.Second || d > 900*time.Second {
			return m, constraint(strconv.FormatFloat(d.Seconds(), 'f', -1, 64), "timeout", "Member must be a whole number of seconds from 1 to 900")
		}
		m.timeout = d
	}
	m.handlerWait = DefaultHandlerWait
	if d := cfg.HandlerWait; d != 0 {
		if msg := unitMistake("HandlerWait", d, time.Millisecond); msg != "" {
			return m, errors.New("lambdasqs: " + msg)
		}
		if d < 0 {
			return m, fmt.Errorf("lambdasqs: HandlerWait %v is negative: it is how long, in real time, to wait for a handler to settle", d)
		}
		m.handlerWait = d
	}
	if cfg.BatchSize != 0 {
		if err := inRange(cfg.BatchSize, 1, 10000, "batchSize"); err != nil {
			return m, err
		}
		m.batchSize = int(cfg.BatchSize)
	}
	if err := inRange(cfg.MaximumBatchingWindowInSeconds, 0, 300, "maximumBatchingWindowInSeconds"); err != nil {
		return m, err
	}
	m.window = time.Duration(cfg.MaximumBatchingWindowInSeconds) * time.Second
	if len(cfg.FunctionResponseTypes) > 1 {
		return m, constraint(cfg.FunctionResponseTypes, "functionResponseTypes", "Member must have length less than or equal to 1")
	}
	for _, t := range cfg.FunctionResponseTypes {
		if t != ReportBatchItemFailures {
			return m, constraint("["+t+"]", "functionResponseTypes", "Member must satisfy enum value set: [ReportBatchItemFailures]")
		}
		m.report = true
	}
	if cfg.MaximumConcurrency != 0 {
		if err := inRange(cfg.MaximumConcurrency, 2, 1000, "scalingConfig.maximumConcurrency"); err != nil {
			return m, err
		}
		m.concurrency = int(cfg.MaximumConcurrency)
	}
	if p := cfg.ProvisionedPollerConfig; p != nil {
		if err := provisioned(&m, *p, cfg.MaximumConcurrency != 0); err != nil {
			return m, err
		}
	}
	if r := cfg.ReservedConcurrency; r != nil {
		if *r < 0 {
			return m, constraint(*r, "reservedConcurrentExecutions", "Member must have value greater than or equal to 0")
		}
		if *r > accountConcurrency-minUnreserved {
			// PutFunctionConcurrency keeps 100 of the account's concurrency unreserved; the
			// message is the one users quote (milliHQ/terraform-aws-next-js#251 and others,
			// with their accounts' own minimums).
			return m, invalidParameter("Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its minimum value of [%d].", minUnreserved)
		}
		m.functionCap = int(*r)
	}
	filters, err := compileFilters(cfg.FilterCriteria)
	if err != nil {
		return m, err
	}
	m.filters = filters
	if fifo {
		if m.window > 0 {
			return m, invalidParameter("Batching window is not supported for FIFO queues")
		}
		if m.batchSize > 10 {
			return m, invalidParameter("Maximum batch size must be between 1 and 10 inclusive")
		}
	} else if m.batchSize > 10 && m.window == 0 {
		return m, invalidParameter("Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10")
	}
	vis, err := strconv.Atoi(visibility)
	if err != nil {
		return m, fmt.Errorf("lambdasqs: the queue's VisibilityTimeout %q is not a number", visibility)
	}
	if fn := int(m.timeout / time.Second); vis < fn {
		return m, invalidParameter("Queue visibility timeout: %d seconds is less than Function timeout: %d seconds", vis, fn)
	}
	return m, nil
}

// provisioned validates a ProvisionedPollerConfig for an SQS queue and sets m's provisioned
// mode: first the API's declared ranges (ValidationException), then SQS's own rules. Lambda's
// texts for the SQS rules are not published; these are the fake's, in Lambda's manner
// (docs/lambda.md, "Provisioned mode").
func provisioned(m *mapping, p ProvisionedPollerConfig, maxConcurrency bool) error {
	lo, hi := p.MinimumPollers, p.MaximumPollers
	if lo != 0 {
		if err := inRange(lo, 1, 200, "provisionedPollerConfig.minimumPollers"); err != nil {
			return err
		}
	} else {
		lo = defaultMinPollers
	}
	if hi != 0 {
		if err := inRange(hi, 1, 10000, "provisionedPollerConfig.maximumPollers"); err != nil {
			return err
		}
	} else {
		hi = defaultMaxPollers
	}
	switch {
	case maxConcurrency:
		return invalidParameter("ProvisionedPollerConfig and ScalingConfig.MaximumConcurrency cannot be used together: choose provisioned mode or a maximum concurrency")
	case lo < 2:
		return invalidParameter("MinimumPollers must be at least 2 for an Amazon SQS event source mapping, but was %d", lo)
	case hi < 2:
		return invalidParameter("MaximumPollers must be at least 2 for an Amazon SQS event source mapping, but was %d", hi)
	case lo > hi:
		return invalidParameter("MinimumPollers (%d) must not be greater than MaximumPollers (%d)", lo, hi)
	}
	m.provisioned = true
	m.ready = int(lo) * invocationsPerPoller
	m.concurrency = int(hi) * invocationsPerPoller
	return nil
}

// unitMistake is the message for a time.Duration option set to a bare number, such as
// FunctionTimeout: 3, which Go reads as 3 nanoseconds: a positive d below least that is a
// whole number of nanoseconds no larger than a plausible count of seconds. "" otherwise.
func unitMistake(option string, d, least time.Duration) string {
	if d <= 0 || d >= least || d > 1_000_000 {
		return ""
	}
	return fmt.Sprintf("%s is a time.Duration: %d means %v; did you mean %d*time.Second?", option, int64(d), d, int64(d))
}

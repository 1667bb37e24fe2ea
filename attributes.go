package sqsfake

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// Queue attribute names (SPEC.md §4).
const (
	attrAll                           = "All"
	attrApproximateNumberOfMessages   = "ApproximateNumberOfMessages"
	attrApproximateNumberDelayed      = "ApproximateNumberOfMessagesDelayed"
	attrApproximateNumberNotVisible   = "ApproximateNumberOfMessagesNotVisible"
	attrContentBasedDeduplication     = "ContentBasedDeduplication"
	attrCreatedTimestamp              = "CreatedTimestamp"
	attrDeduplicationScope            = "DeduplicationScope"
	attrDelaySeconds                  = "DelaySeconds"
	attrFifoQueue                     = "FifoQueue"
	attrFifoThroughputLimit           = "FifoThroughputLimit"
	attrKmsDataKeyReusePeriodSeconds  = "KmsDataKeyReusePeriodSeconds"
	attrKmsMasterKeyID                = "KmsMasterKeyId"
	attrLastModifiedTimestamp         = "LastModifiedTimestamp"
	attrMaximumMessageSize            = "MaximumMessageSize"
	attrMessageRetentionPeriod        = "MessageRetentionPeriod"
	attrPolicy                        = "Policy"
	attrQueueArn                      = "QueueArn"
	attrReceiveMessageWaitTimeSeconds = "ReceiveMessageWaitTimeSeconds"
	attrRedriveAllowPolicy            = "RedriveAllowPolicy"
	attrRedrivePolicy                 = "RedrivePolicy"
	attrSqsManagedSseEnabled          = "SqsManagedSseEnabled"
	attrVisibilityTimeout             = "VisibilityTimeout"
	defaultMaximumMessageSize         = 1048576
	defaultMessageRetentionPeriod     = 345600
	defaultVisibilityTimeout          = 30
	defaultKmsDataKeyReusePeriod      = 300
	maxVisibilityTimeout              = 43200
	maxDelaySeconds                   = 900
	maxWaitTimeSeconds                = 20
	dedupScopeQueue                   = "queue"
	dedupScopeMessageGroup            = "messageGroup"
	throughputPerQueue                = "perQueue"
	throughputPerMessageGroupID       = "perMessageGroupId"
)

// queueConfig holds a queue's settable attributes in typed form.
type queueConfig struct {
	delaySeconds          int
	maximumMessageSize    int
	retentionPeriod       int
	receiveWaitSeconds    int
	visibilityTimeout     int
	policy                string       // "" when absent
	policyRules           *queuePolicy // policy compiled; nil when absent
	redrivePolicy         *redrivePolicy
	redriveAllowPolicy    *redriveAllowPolicy
	kmsMasterKeyID        string
	kmsDataKeyReusePeriod int
	sqsManagedSSE         bool
	fifo                  bool
	contentBasedDedup     bool
	dedupScope            string
	throughputLimit       string
}

func defaultQueueConfig(fifo bool) queueConfig {
	c := queueConfig{
		maximumMessageSize:    defaultMaximumMessageSize,
		retentionPeriod:       defaultMessageRetentionPeriod,
		visibilityTimeout:     defaultVisibilityTimeout,
		kmsDataKeyReusePeriod: defaultKmsDataKeyReusePeriod,
		sqsManagedSSE:         true,
		fifo:                  fifo,
	}
	if fifo {
		c.dedupScope = dedupScopeQueue
		c.throughputLimit = throughputPerQueue
	}
	return c
}

// errInvalidAttrValue is InvalidAttributeValue "Invalid value for the parameter <Name>."
// (emulator wording, SPEC.md §4; AWS's exact text for each attribute is unverified).
func errInvalidAttrValue(name string) *sqsError {
	return errInvalidAttributeValue("Invalid value for the parameter " + name + ".")
}

func parseBoundedInt(name, v string, lo, hi int) (int, *sqsError) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return 0, errInvalidAttrValue(name)
	}
	return n, nil
}

// parseBool accepts "true"/"false" in any case, as AWS does.
func parseBool(name, v string) (bool, *sqsError) {
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errInvalidAttrValue(name)
}

// sortedKeys returns the keys of m in ascending order, so that validation reports the same
// first error on every run.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// applyAttributes validates attrs against c and, when every attribute is valid, returns the
// updated configuration; nothing is applied when one is invalid. resolve checks queue
// references in redrive policies. creating selects CreateQueue's rules (FifoQueue may be given)
// over SetQueueAttributes' rules.
func (c queueConfig) applyAttributes(attrs map[string]string, creating bool, resolve redriveResolver) (queueConfig, *sqsError) {
	out := c
	names := sortedKeys(attrs)
	// Kind-specific names are checked first so that the message says what is wrong with the
	// kind rather than with a value.
	for _, name := range names {
		switch name {
		case attrFifoQueue, attrContentBasedDeduplication:
			if !c.fifo {
				return c, errUnknownAttribute(name)
			}
		case attrDeduplicationScope:
			if !c.fifo {
				return c, errInvalidAttributeName("You can specify the DeduplicationScope only when FifoQueue is set to true.")
			}
		case attrFifoThroughputLimit:
			if !c.fifo {
				return c, errInvalidAttributeName("You can specify the FifoThroughputLimit only when FifoQueue is set to true.")
			}
		}
	}
	for _, name := range names {
		v := attrs[name]
		var err *sqsError
		switch name {
		case attrDelaySeconds:
			out.delaySeconds, err = parseBoundedInt(name, v, 0, maxDelaySeconds)
		case attrMaximumMessageSize:
			out.maximumMessageSize, err = parseBoundedInt(name, v, 1024, defaultMaximumMessageSize)
		case attrMessageRetentionPeriod:
			out.retentionPeriod, err = parseBoundedInt(name, v, 60, 1209600)
		case attrReceiveMessageWaitTimeSeconds:
			out.receiveWaitSeconds, err = parseBoundedInt(name, v, 0, maxWaitTimeSeconds)
		case attrVisibilityTimeout:
			out.visibilityTimeout, err = parseBoundedInt(name, v, 0, maxVisibilityTimeout)
		case attrKmsDataKeyReusePeriodSeconds:
			out.kmsDataKeyReusePeriod, err = parseBoundedInt(name, v, 60, 86400)
		case attrKmsMasterKeyID:
			out.kmsMasterKeyID = v
		case attrSqsManagedSseEnabled:
			out.sqsManagedSSE, err = parseBool(name, v)
		case attrPolicy:
			// A policy must compile and be within SQS's quotas (policy.go has the rules); it
			// reads back as written.
			err = out.setPolicy(v)
		case attrRedrivePolicy:
			out.redrivePolicy, err = parseRedrivePolicy(v, c.fifo, resolve)
		case attrRedriveAllowPolicy:
			out.redriveAllowPolicy, err = parseRedriveAllowPolicy(v)
		case attrFifoQueue:
			var fifo bool
			fifo, err = parseBool(name, v)
			if err == nil && !fifo {
				if creating {
					err = errInvalidAttrValue(name)
				} else {
					err = errInvalidAttributeValue("Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.")
				}
			}
		case attrContentBasedDeduplication:
			out.contentBasedDedup, err = parseBool(name, v)
		case attrDeduplicationScope:
			if v != dedupScopeQueue && v != dedupScopeMessageGroup {
				err = errInvalidAttrValue(name)
			}
			out.dedupScope = v
		case attrFifoThroughputLimit:
			if v != throughputPerQueue && v != throughputPerMessageGroupID {
				err = errInvalidAttrValue(name)
			}
			out.throughputLimit = v
		default:
			err = errUnknownAttribute(name)
		}
		if err != nil {
			return c, err
		}
	}
	// A queue uses one kind of encryption at a time. Setting a KMS key switches SQS-managed
	// encryption off; asking for SQS-managed encryption while the queue would keep a KMS key
	// (given in the same request or set before) is an error, so that no queue ever reports
	// both.
	if out.kmsMasterKeyID != "" {
		if _, ok := attrs[attrSqsManagedSseEnabled]; ok && out.sqsManagedSSE {
			return c, errInvalidAttributeName("You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE.")
		}
		out.sqsManagedSSE = false
	}
	if out.fifo && out.throughputLimit == throughputPerMessageGroupID && out.dedupScope != dedupScopeMessageGroup {
		return c, errInvalidAttributeValue("Invalid value for the parameter FifoThroughputLimit. Reason: FifoThroughputLimit perMessageGroupId is only valid with DeduplicationScope messageGroup.")
	}
	return out, nil
}

// isJSONObject reports whether s is one well-formed JSON object.
func isJSONObject(s string) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &m) == nil && m != nil
}

// settable reports the value of a settable attribute as GetQueueAttributes shows it, and
// whether it has one.
func (c *queueConfig) settable(name string) (string, bool) {
	switch name {
	case attrDelaySeconds:
		return strconv.Itoa(c.delaySeconds), true
	case attrMaximumMessageSize:
		return strconv.Itoa(c.maximumMessageSize), true
	case attrMessageRetentionPeriod:
		return strconv.Itoa(c.retentionPeriod), true
	case attrReceiveMessageWaitTimeSeconds:
		return strconv.Itoa(c.receiveWaitSeconds), true
	case attrVisibilityTimeout:
		return strconv.Itoa(c.visibilityTimeout), true
	case attrPolicy:
		return c.policy, c.policy != ""
	case attrRedrivePolicy:
		if c.redrivePolicy == nil {
			return "", false
		}
		return c.redrivePolicy.String(), true
	case attrRedriveAllowPolicy:
		if c.redriveAllowPolicy == nil {
			return "", false
		}
		return c.redriveAllowPolicy.raw, true
	case attrKmsMasterKeyID:
		return c.kmsMasterKeyID, c.kmsMasterKeyID != ""
	case attrKmsDataKeyReusePeriodSeconds:
		// Reported only while a KMS key is configured (SPEC.md §4).
		return strconv.Itoa(c.kmsDataKeyReusePeriod), c.kmsMasterKeyID != ""
	case attrSqsManagedSseEnabled:
		return strconv.FormatBool(c.sqsManagedSSE), true
	case attrFifoQueue:
		return "true", c.fifo
	case attrContentBasedDeduplication:
		return strconv.FormatBool(c.contentBasedDedup), c.fifo
	case attrDeduplicationScope:
		return c.dedupScope, c.fifo
	case attrFifoThroughputLimit:
		return c.throughputLimit, c.fifo
	}
	return "", false
}

// comparable returns the value a CreateQueue attribute is compared with when the queue
// already exists (SPEC.md §5.1), normalised the way the queue stores it.
func (c *queueConfig) comparable(name string) (string, bool) {
	return c.settable(name)
}

// allQueueAttributeNames lists, in GetQueueAttributes' order, every attribute `All` covers.
var allQueueAttributeNames = []string{
	attrApproximateNumberOfMessages, attrApproximateNumberDelayed, attrApproximateNumberNotVisible,
	attrContentBasedDeduplication, attrCreatedTimestamp, attrDeduplicationScope, attrDelaySeconds,
	attrFifoQueue, attrFifoThroughputLimit, attrKmsDataKeyReusePeriodSeconds, attrKmsMasterKeyID,
	attrLastModifiedTimestamp, attrMaximumMessageSize, attrMessageRetentionPeriod, attrPolicy,
	attrQueueArn, attrReceiveMessageWaitTimeSeconds, attrRedriveAllowPolicy, attrRedrivePolicy,
	attrSqsManagedSseEnabled, attrVisibilityTimeout,
}

var knownQueueAttributes = func() map[string]bool {
	m := map[string]bool{attrAll: true}
	for _, n := range allQueueAttributeNames {
		m[n] = true
	}
	return m
}()

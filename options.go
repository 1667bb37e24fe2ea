package sqsfake

import (
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"strings"
)

// OptionError reports an option given a value it does not allow. New panics with it, as
// regexp.MustCompile panics on a bad pattern, and CheckOptions returns it. cmd/sqsfake
// reports it as an error of the flag that set the option.
type OptionError struct {
	Option string // the option's function, such as "WithRegion"
	Value  string // the value it was given, as Go source, such as `"x y"`
	Want   string // what the option allows
}

// Error returns "sqsfake: <Option>(<Value>): want <Want>".
func (e *OptionError) Error() string {
	return "sqsfake: " + e.Option + "(" + e.Value + "): want " + e.Want
}

// CheckOptions returns the error New would panic with for opts — an *OptionError naming the
// first option given a value it does not allow, or an error for a nil option — or nil when
// New would accept them all. It lets a program check options built from its own
// configuration and report the error instead of panicking.
func CheckOptions(opts ...Option) error {
	_, err := configure(opts)
	return err
}

// configure returns a fake with the defaults, changed by opts, or the first error among opts.
func configure(opts []Option) (*Fake, error) {
	f := &Fake{
		region:        DefaultRegion,
		account:       DefaultAccountID,
		senderID:      DefaultSenderID,
		seed:          0x5eed5eed,
		inFlightLimit: DefaultInFlightLimit,
		purgeCooldown: DefaultPurgeCooldown,
		queues:        make(map[queueKey]*queue),
		queuesByID:    make(map[uint32]*queue),
		deletedAt:     make(map[queueKey]int64),
		queueNames:    make(map[uint32]string),
	}
	f.calls.setLimit(DefaultCallLimit)
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("sqsfake: New: option %d of %d is nil", i+1, len(opts))
		}
		o(f)
		if f.optErr != nil {
			return nil, f.optErr
		}
	}
	if f.credList != nil {
		// Resolved after every option: a credential's default account and partition are
		// WithAccountID's and WithRegion's, whichever order the options came in.
		set, err := newCredentialSet(f.credList, f.account, partitionOf(f.region))
		if err != nil {
			return nil, err
		}
		f.creds = set
	}
	f.handles = newHandleKey(f.creds.handleSecret(), f.seed, f.epoch)
	return f, nil
}

// refuse records that option was given value, which it does not allow; New panics with it.
func (f *Fake) refuse(option, value, want string) {
	f.optErr = &OptionError{Option: option, Value: value, Want: want}
}

// What the checked options allow.
const (
	// regionRule: a region as AWS names them (us-east-1, us-gov-west-1, cn-northwest-1,
	// eusc-de-east-1); it goes into every queue URL and ARN.
	regionRule    = "a region such as us-east-1: lower-case words and a number, joined by hyphens"
	accountIDRule = "12 digits, such as 123456789012"
	endpointRule  = `an http or https URL with a host and no user, query or fragment, such as http://127.0.0.1:9324`
	// senderIDRule: SQS reports the IAM unique id of the caller — a user's (AIDA…) or, for a
	// role, the role's id, a colon and the session name (AROA…:i-0123…), as the
	// ReceiveMessage API reference describes it. IAM documents unique ids as [\w]+ of 16 to
	// 128 characters (API_PolicyUser) and STS session names as [\w+=,.@-] of 2 to 64
	// (AssumeRole RoleSessionName). A root user's sends carry the 12-digit account id
	// (observed in public samples, unverified).
	senderIDRule      = `an IAM unique id (16 to 128 letters, digits or underscores, such as AIDASQSFAKEEXAMPLE001), optionally followed by ":" and a session name (2 to 64 of those or +=,.@-), or a 12-digit account id`
	inFlightLimitRule = "1 or more (SQS allows about 120,000 messages in flight)"
	historyLimitRule  = "0 or more events"
	callLimitRule     = "0 or more calls"
	clockRule         = "a Clock, such as NewVirtualClock(DefaultStart) or RealClock{}"
	clockFuncsRule    = "ClockFuncs with NowFunc and AfterFuncFunc set"
	chaosRule         = "rates between 0 and 1"
	purgeCooldownRule = "0 (no cooldown) or " + durationRule + "; SQS's is 60s"
	// durationRule: a time.Duration counts nanoseconds, so a bare number — 5 meaning five
	// seconds — is 5ns; no duration the fake takes means less than a millisecond.
	durationRule = "1ms or more, such as 60 * time.Second (a bare number is nanoseconds: 5 is 5ns)"
)

var (
	senderIDPattern = regexp.MustCompile(`^(?:[0-9]{12}|\w{16,128}(?::[\w+=,.@-]{2,64})?)$`)
)

// validEndpoint reports whether base is "" or an absolute http or https URL with a host and
// nothing that would break the queue URLs made from it (a user, a query, a fragment, or
// characters that need escaping).
func validEndpoint(base string) bool {
	if base == "" {
		return true
	}
	u, err := url.Parse(base)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Hostname() != "" &&
		u.User == nil && !strings.ContainsAny(base, "?#") && u.String() == base
}

// checkClock reports what is wrong with c for WithClock, or "".
func checkClock(c Clock) (value, want string) {
	if c == nil {
		return "nil", clockRule
	}
	switch v := reflect.ValueOf(c); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice, reflect.Interface:
		if v.IsNil() {
			return fmt.Sprintf("(%T)(nil)", c), clockRule
		}
	}
	var cf ClockFuncs
	prefix := ""
	switch c := c.(type) {
	case ClockFuncs:
		cf = c
	case *ClockFuncs:
		cf, prefix = *c, "&"
	default:
		return "", ""
	}
	var missing []string
	if cf.NowFunc == nil {
		missing = append(missing, "NowFunc: nil")
	}
	if cf.AfterFuncFunc == nil {
		missing = append(missing, "AfterFuncFunc: nil")
	}
	if missing == nil {
		return "", ""
	}
	return prefix + "ClockFuncs{" + strings.Join(missing, ", ") + "}", clockFuncsRule
}

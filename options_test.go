package sqsfake

import (
	"math"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What each checked option allows, as its panic says it.
const (
	wantRegion    = "a region such as us-east-1: lower-case words and a number, joined by hyphens"
	wantAccount   = "12 digits, such as 123456789012"
	wantEndpoint  = `an http or https URL with a host and no user, query or fragment, such as http://127.0.0.1:9324`
	wantSenderID  = `an IAM unique id (16 to 128 letters, digits or underscores, such as AIDASQSFAKEEXAMPLE001), optionally followed by ":" and a session name (2 to 64 of those or +=,.@-), or a 12-digit account id`
	wantInFlight  = "1 or more (SQS allows about 120,000 messages in flight)"
	wantHistory   = "0 or more events"
	wantCalls     = "0 or more calls"
	wantClock     = "a Clock, such as NewVirtualClock(DefaultStart) or RealClock{}"
	wantClockFunc = "ClockFuncs with NowFunc and AfterFuncFunc set"
	wantChaos     = "rates between 0 and 1"
	wantPurge     = "0 (no cooldown) or 1ms or more, such as 60 * time.Second (a bare number is nanoseconds: 5 is 5ns); SQS's is 60s"
)

func TestEveryOptionRefusesABadValueWithAPanicAtNew(t *testing.T) {
	for _, tc := range []struct {
		opt  Option
		want string // the whole panic message
	}{
		{WithRegion(""), `sqsfake: WithRegion(""): want ` + wantRegion},
		{WithRegion("x y"), `sqsfake: WithRegion("x y"): want ` + wantRegion},
		{WithRegion("US-EAST-1"), `sqsfake: WithRegion("US-EAST-1"): want ` + wantRegion},
		{WithRegion("useast1"), `sqsfake: WithRegion("useast1"): want ` + wantRegion},
		{WithRegion("us-east-1/"), `sqsfake: WithRegion("us-east-1/"): want ` + wantRegion},
		{WithAccountID(""), `sqsfake: WithAccountID(""): want ` + wantAccount},
		{WithAccountID("12"), `sqsfake: WithAccountID("12"): want ` + wantAccount},
		{WithAccountID("1234567890123"), `sqsfake: WithAccountID("1234567890123"): want ` + wantAccount},
		{WithAccountID("12345678901x"), `sqsfake: WithAccountID("12345678901x"): want ` + wantAccount},
		{WithAccountID("１２３４５６７８９０１２"), `sqsfake: WithAccountID("１２３４５６７８９０１２"): want ` + wantAccount},
		{WithEndpoint("sqs.test:9324"), `sqsfake: WithEndpoint("sqs.test:9324"): want ` + wantEndpoint},
		{WithEndpoint("127.0.0.1:9324"), `sqsfake: WithEndpoint("127.0.0.1:9324"): want ` + wantEndpoint},
		{WithEndpoint("ftp://sqs.test"), `sqsfake: WithEndpoint("ftp://sqs.test"): want ` + wantEndpoint},
		{WithEndpoint("http://"), `sqsfake: WithEndpoint("http://"): want ` + wantEndpoint},
		{WithEndpoint("/relative"), `sqsfake: WithEndpoint("/relative"): want ` + wantEndpoint},
		{WithEndpoint("http://sqs.test?x=1"), `sqsfake: WithEndpoint("http://sqs.test?x=1"): want ` + wantEndpoint},
		{WithEndpoint("http://sqs.test#top"), `sqsfake: WithEndpoint("http://sqs.test#top"): want ` + wantEndpoint},
		{WithEndpoint("http://user:pw@sqs.test"), `sqsfake: WithEndpoint("http://user:pw@sqs.test"): want ` + wantEndpoint},
		{WithEndpoint("http://sqs test"), `sqsfake: WithEndpoint("http://sqs test"): want ` + wantEndpoint},
		{WithEndpoint("http://sqs.test/a b"), `sqsfake: WithEndpoint("http://sqs.test/a b"): want ` + wantEndpoint},
		{WithEndpoint("http://sqs.test?"), `sqsfake: WithEndpoint("http://sqs.test?"): want ` + wantEndpoint},
		{WithEndpoint("http://sqs.test#"), `sqsfake: WithEndpoint("http://sqs.test#"): want ` + wantEndpoint},
		{WithEndpoint("http://:9324"), `sqsfake: WithEndpoint("http://:9324"): want ` + wantEndpoint},
		{WithEndpoint("http:sqs.test"), `sqsfake: WithEndpoint("http:sqs.test"): want ` + wantEndpoint},
		{WithSenderID(""), `sqsfake: WithSenderID(""): want ` + wantSenderID},
		{WithSenderID("AIDA-SHORT"), `sqsfake: WithSenderID("AIDA-SHORT"): want ` + wantSenderID},
		{WithSenderID("AIDASQSFAKE"), `sqsfake: WithSenderID("AIDASQSFAKE"): want ` + wantSenderID},
		{WithSenderID("12345678901"), `sqsfake: WithSenderID("12345678901"): want ` + wantSenderID},
		{WithSenderID("AROASQSFAKEEXAMPLE001:"), `sqsfake: WithSenderID("AROASQSFAKEEXAMPLE001:"): want ` + wantSenderID},
		{WithSenderID("AROASQSFAKEEXAMPLE001:x"), `sqsfake: WithSenderID("AROASQSFAKEEXAMPLE001:x"): want ` + wantSenderID},
		{WithSenderID("AROASQSFAKEEXAMPLE001:a b"), `sqsfake: WithSenderID("AROASQSFAKEEXAMPLE001:a b"): want ` + wantSenderID},
		{WithSenderID("AIDASQSFAKEEXAMPLE001\n"), `sqsfake: WithSenderID("AIDASQSFAKEEXAMPLE001\n"): want ` + wantSenderID},
		{WithInFlightLimit(0), `sqsfake: WithInFlightLimit(0): want ` + wantInFlight},
		{WithInFlightLimit(-1), `sqsfake: WithInFlightLimit(-1): want ` + wantInFlight},
		{WithHistoryLimit(-1), `sqsfake: WithHistoryLimit(-1): want ` + wantHistory},
		{WithHistoryLimit(math.MinInt), `sqsfake: WithHistoryLimit(-9223372036854775808): want ` + wantHistory},
		{WithCallLimit(-1), `sqsfake: WithCallLimit(-1): want ` + wantCalls},
		{WithClock(nil), `sqsfake: WithClock(nil): want ` + wantClock},
		{WithClock((*clock.Mock)(nil)), `sqsfake: WithClock((*clock.Mock)(nil)): want ` + wantClock},
		{WithClock(ClockFuncs{}), `sqsfake: WithClock(ClockFuncs{NowFunc: nil, AfterFuncFunc: nil}): want ` + wantClockFunc},
		{WithClock(ClockFuncs{NowFunc: time.Now}), `sqsfake: WithClock(ClockFuncs{AfterFuncFunc: nil}): want ` + wantClockFunc},
		{WithClock(&ClockFuncs{AfterFuncFunc: afterFunc}), `sqsfake: WithClock(&ClockFuncs{NowFunc: nil}): want ` + wantClockFunc},
		{WithChaos(Chaos{DuplicateRate: 1.5}), `sqsfake: WithChaos(Chaos{DuplicateRate: 1.5}): want ` + wantChaos},
		{WithChaos(Chaos{Seed: 1, ReorderRate: -0.1}), `sqsfake: WithChaos(Chaos{ReorderRate: -0.1}): want ` + wantChaos},
		{WithChaos(Chaos{RedeliverRate: math.NaN()}), `sqsfake: WithChaos(Chaos{RedeliverRate: NaN}): want ` + wantChaos},
		{WithChaos(Chaos{DuplicateRate: math.Inf(1), RedeliverRate: 2}), `sqsfake: WithChaos(Chaos{DuplicateRate: +Inf, RedeliverRate: 2}): want ` + wantChaos},
		{WithPurgeCooldown(-time.Second), `sqsfake: WithPurgeCooldown(-1s): want ` + wantPurge},
		{WithPurgeCooldown(math.MinInt64), `sqsfake: WithPurgeCooldown(-2562047h47m16.854775808s): want ` + wantPurge},
		{WithPurgeCooldown(60), `sqsfake: WithPurgeCooldown(60ns): want ` + wantPurge}, // 60 meaning seconds: the unit mistake
	} {
		assert.PanicsWithError(t, tc.want, func() { New(tc.opt) }, tc.want)
	}
}

func TestNewNamesTheFirstBadOptionAndANilOne(t *testing.T) {
	assert.PanicsWithError(t, `sqsfake: WithAccountID("1"): want `+wantAccount,
		func() { New(WithRegion("eu-west-1"), WithAccountID("1"), WithRegion("?")) })
	assert.PanicsWithError(t, `sqsfake: WithRegion("?"): want `+wantRegion,
		func() { New(WithRegion("?"), WithAccountID("1")) })
	assert.PanicsWithError(t, "sqsfake: New: option 2 of 3 is nil",
		func() { New(WithRegion("eu-west-1"), nil, WithSeed(1)) })
}

func afterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

func TestEveryOptionTakesAGoodValue(t *testing.T) {
	mock := clock.NewMock()
	for _, tc := range []struct {
		name string
		opt  Option
		got  func(f *Fake) any // what the fake took
		want any
	}{
		{"region", WithRegion("eu-west-1"), func(f *Fake) any { return f.region }, "eu-west-1"},
		{"GovCloud region", WithRegion("us-gov-west-1"), func(f *Fake) any { return f.region }, "us-gov-west-1"},
		{"European sovereign region", WithRegion("eusc-de-east-1"), func(f *Fake) any { return f.region }, "eusc-de-east-1"},
		{"account", WithAccountID("000000000000"), func(f *Fake) any { return f.account }, "000000000000"},
		{"endpoint", WithEndpoint("http://127.0.0.1:9324"), func(f *Fake) any { return f.endpoint }, "http://127.0.0.1:9324"},
		{"endpoint with a slash", WithEndpoint("https://sqs.test/"), func(f *Fake) any { return f.endpoint }, "https://sqs.test"},
		{"endpoint with a path", WithEndpoint("http://localhost:4566/sqs"), func(f *Fake) any { return f.endpoint }, "http://localhost:4566/sqs"},
		{"endpoint IPv6", WithEndpoint("http://[::1]:9324"), func(f *Fake) any { return f.endpoint }, "http://[::1]:9324"},
		{"no endpoint", WithEndpoint(""), func(f *Fake) any { return f.endpoint }, ""},
		{"user id", WithSenderID("AIDAIO23YVJENQZJOL4VO"), func(f *Fake) any { return f.senderID }, "AIDAIO23YVJENQZJOL4VO"},
		{"role id with an instance session", WithSenderID("AROAIL6GAI2XEC672SWG2:i-12345678901234567"), func(f *Fake) any { return f.senderID }, "AROAIL6GAI2XEC672SWG2:i-12345678901234567"},
		{"role id with a Lambda session", WithSenderID("AROAIL6GAI2XEC672SWG2:awslambda_39_20161007224708400"), func(f *Fake) any { return f.senderID }, "AROAIL6GAI2XEC672SWG2:awslambda_39_20161007224708400"},
		{"role id with an e-mail session", WithSenderID("AROAIL6GAI2XEC672SWG2:jane.doe+ci=1,x@example.com"), func(f *Fake) any { return f.senderID }, "AROAIL6GAI2XEC672SWG2:jane.doe+ci=1,x@example.com"},
		{"root account", WithSenderID("123456789012"), func(f *Fake) any { return f.senderID }, "123456789012"},
		{"seed 0", WithSeed(0), func(f *Fake) any { return f.seed }, uint64(0)},
		{"largest seed", WithSeed(math.MaxUint64), func(f *Fake) any { return f.seed }, uint64(math.MaxUint64)},
		{"in-flight limit 1", WithInFlightLimit(1), func(f *Fake) any { return f.inFlightLimit }, 1},
		{"history limit 0", WithHistoryLimit(0), func(f *Fake) any { return f.hist.limit }, historyChunk},
		{"history limit", WithHistoryLimit(1 << 20), func(f *Fake) any { return f.hist.limit }, 1 << 20},
		{"call limit 0", WithCallLimit(0), func(f *Fake) any { return f.calls.recs.limit }, logChunk},
		{"call limit", WithCallLimit(1 << 20), func(f *Fake) any { return f.calls.recs.limit }, 1 << 20},
		{"mock clock", WithClock(mock), func(f *Fake) any { return f.Clock() }, mock},
		{"ClockFuncs", WithClock(ClockFuncs{NowFunc: time.Now, AfterFuncFunc: afterFunc}), func(f *Fake) any { return f.Clock().Now().IsZero() }, false},
		{"no purge cooldown", WithPurgeCooldown(0), func(f *Fake) any { return f.purgeCooldown }, time.Duration(0)},
		{"purge cooldown", WithPurgeCooldown(time.Hour), func(f *Fake) any { return f.purgeCooldown }, time.Hour},
		{"chaos at the bounds", WithChaos(Chaos{Seed: math.MaxUint64, DuplicateRate: 1, ReorderRate: 0, RedeliverRate: 1}), func(f *Fake) any { return *f.chaos },
			Chaos{Seed: math.MaxUint64, DuplicateRate: 1, RedeliverRate: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f *Fake
			assert.NotPanics(t, func() { f = New(tc.opt) })
			assert.Equal(t, tc.want, tc.got(f))
		})
	}
}

func TestCheckOptionsReturnsTheErrorNewWouldPanicWith(t *testing.T) {
	assert.NoError(t, CheckOptions())
	assert.NoError(t, CheckOptions(WithRegion("eu-west-1"), WithEndpoint(""), WithHistoryLimit(0)))

	err := CheckOptions(WithRegion("eu-west-1"), WithRegion("x y"), WithAccountID("1"))
	var oe *OptionError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, &OptionError{Option: "WithRegion", Value: `"x y"`, Want: wantRegion}, oe)
	assert.PanicsWithError(t, err.Error(), func() { New(WithRegion("eu-west-1"), WithRegion("x y"), WithAccountID("1")) })

	assert.EqualError(t, CheckOptions(nil), "sqsfake: New: option 1 of 1 is nil")
}

// The call record keeps DefaultCallLimit calls unless told otherwise; math.MaxInt keeps every
// call, its side logs too.
func TestCallLimitDefaultsAndEverything(t *testing.T) {
	assert.Equal(t, DefaultCallLimit, New().calls.recs.limit)
	every := New(WithCallLimit(math.MaxInt)).calls
	assert.Equal(t, []int{math.MaxInt, math.MaxInt, math.MaxInt}, []int{every.recs.limit, every.keys.limit, every.extras.limit})
}
